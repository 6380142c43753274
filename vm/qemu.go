package vm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"schedlab/host"
)

// QEMU is the emulator the launcher runs (Debian's qemu-system-x86).
const QEMU = "qemu-system-x86_64"

// Options are one measurement in a VM.
type Options struct {
	Kernel *Kernel
	// VCPUs is the guest's CPU count (default 1).
	VCPUs int
	// MemoryMB is the guest's memory (default 1024).
	MemoryMB int
	// Accel is QEMU's accelerator: "tcg" (the default: emulation with
	// -icount shift=0,sleep=off, guest time counted in instructions, so
	// runs repeat whatever the machine's load; QEMU then runs the vCPUs
	// one at a time), "tcg-mt" (emulation with a host thread per vCPU, in
	// real time: vCPUs in parallel, as noisy as the machine) or "kvm"
	// (hardware virtualisation: real time, as fast as the host, as noisy).
	Accel string
	// Name and Workload are the workload's name in reports and its
	// rt-app JSON; the guest parses it as the host would.
	Name     string
	Workload []byte
	// Duration, Seed, CPUs, BufferKB and Limits are the host run's.
	Duration time.Duration
	Seed     uint64
	CPUs     []int
	BufferKB int
	Limits   host.Limits
	// Features (sched_features syntax, NO_ to clear) and Set (tunables
	// by the simulator's names, such as sched_min_granularity_ns) are
	// written to the guest kernel's sched debugfs files before the runs.
	Features []string
	Set      [][2]string
	// Warmup is a discarded run before the measured ones (0: none).
	Warmup time.Duration
	// MakeJobs > 0 runs a real make -jN of gcc -O2 compiles beside the
	// workload in every run, warm-up included (build.go): the machine's
	// make, gcc, cc1, as and sh go into the initramfs.
	MakeJobs int
	// Runs is how many measured runs one boot makes, the i-th with seed
	// Seed+i (default 1): validate's runs share a boot, its warm-up and
	// its cost probe.
	Runs int
	// Init is the binary the guest runs as init: schedlab itself
	// (default os.Executable()).
	Init string
	// BootTimeout bounds the wall time from QEMU's start to init's first
	// word (default 120 s: a busy 2-core machine boots 6.1 in 10 to 60 s
	// under TCG, an idle one in a few); Silence bounds the time between two words of
	// the guest after that (default 60 s).
	BootTimeout, Silence time.Duration
	// Retries is how often a boot that dies before init is tried again
	// (default 2).
	Retries int
	// Log receives progress and the guest's log lines (nil: discarded);
	// Console, when set, every byte of the guest's console.
	Log, Console io.Writer
}

// Result is a measurement in a VM.
type Result struct {
	// Recordings are the measured runs, in order.
	Recordings []*host.Recording
	Kernel     *Kernel
	VCPUs      int
	// Clock is how guest time passes: "icount" (TCG, one instruction a
	// nanosecond, whatever the machine's load).
	Clock string
	// Boot is the wall time from QEMU's start to init; Wall, to the
	// end of the recording's transfer.
	Boot, Wall time.Duration
	// Retries are the boots that failed before the one that ran.
	Retries []string
	// Guest is what init did besides the runs.
	Guest []string
	// Sched is the guest kernel's features and tunables as the runs met
	// them (nil if the guest could not read them).
	Sched *Sched
	// Costs are the guest's kernel paths as the cost probe measured them
	// after the warm-up (nil if it failed; Guest says why).
	Costs *host.Costs
}

// Facts are a VM run's facts as reports print them (measure's and
// validate's JSON "vm").
type Facts struct {
	Kernel  *Kernel     `json:"kernel"`
	VCPUs   int         `json:"vcpus"`
	Clock   string      `json:"virtual_time"`
	BootS   float64     `json:"boot_s"`
	WallS   float64     `json:"wall_s"`
	Retries []string    `json:"boot_retries,omitempty"`
	Guest   []string    `json:"guest,omitempty"`
	Sched   *Sched      `json:"sched,omitempty"`
	Costs   *host.Costs `json:"costs,omitempty"`
}

// Facts are the result's facts (nil for nil).
func (r *Result) Facts() *Facts {
	if r == nil {
		return nil
	}
	return &Facts{Kernel: r.Kernel, VCPUs: r.VCPUs, Clock: r.Clock, BootS: r.Boot.Seconds(), WallS: r.Wall.Seconds(),
		Retries: r.Retries, Guest: r.Guest, Sched: r.Sched, Costs: r.Costs}
}

// RoundRobinNote is what a run on more than one vCPU under icount must be
// read with. QEMU runs the vCPUs of an icount guest one at a time (its
// round-robin TCG: icount cannot count instructions of parallel vCPUs),
// and a vCPU's turn lasts until the next timer deadline of the machine. So
// a task woken on one vCPU while another computes waits, with its wakeup
// already traced, until the other's next timer: up to a tick of its busy
// loop (seen: 5.2 ms on debian-6.1 with 2 vCPUs, a 10 ms timer beside a
// 5 ms busy loop, where 1 vCPU gives 12 µs).
const RoundRobinNote = "QEMU runs the vCPUs of an icount guest one at a time: a task woken on one vCPU while another computes can wait until that vCPU's next timer (up to a tick), so latencies on more than one vCPU include QEMU's turns and are not the kernel's alone (docs/vm.md; --accel tcg-mt runs them in parallel, in real time)"

// BootError is a guest that did not reach init: the kernel did not boot,
// panicked or hung, with the console's last lines.
type BootError struct {
	Msg     string
	Console []string
}

func (e *BootError) Error() string {
	c := e.Console
	if len(c) > 15 {
		c = c[len(c)-15:]
	}
	if len(c) == 0 {
		return e.Msg + "; the console showed nothing"
	}
	return fmt.Sprintf("%s; the console's last lines:\n  %s", e.Msg, strings.Join(c, "\n  "))
}

// GuestError is a guest that booted and then failed or stopped
// answering.
type GuestError struct {
	Msg     string
	Console []string
}

func (e *GuestError) Error() string {
	if len(e.Console) == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s; the console's last lines:\n  %s", e.Msg, strings.Join(e.Console, "\n  "))
}

// Check says whether a VM run can start: QEMU present, the kernel
// readable, a guest init that has the host runner. It starts nothing.
func Check(o *Options) error {
	if _, err := exec.LookPath(QEMU); err != nil {
		return &InputError{Msg: fmt.Sprintf("%s is missing: install Debian's qemu-system-x86 (apt-get install qemu-system-x86)", QEMU)}
	}
	if o.Kernel == nil {
		return &InputError{Msg: "no kernel given"}
	}
	if _, err := os.Stat(o.Kernel.Image); err != nil {
		return &InputError{Msg: fmt.Sprintf("kernel %s: %v", o.Kernel.Name, err)}
	}
	if o.Init == "" && !host.HaveRunner {
		return &InputError{Msg: "this schedlab was built without cgo, so the guest it would boot as init has no host runner: build it with cgo (CGO_ENABLED=1 go build ./cmd/schedlab)"}
	}
	switch o.Accel {
	case "", "tcg", "tcg-mt":
	case "kvm":
		f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
		if err != nil {
			return &InputError{Msg: fmt.Sprintf("--accel kvm: /dev/kvm: %v (use the default, tcg)", err)}
		}
		f.Close()
	default:
		return &InputError{Msg: fmt.Sprintf("--accel %q: tcg, tcg-mt or kvm", o.Accel)}
	}
	if err := checkKnown(o.Kernel, o.Features, o.Set); err != nil {
		return err
	}
	if o.MakeJobs < 0 || o.MakeJobs > 64 {
		return &InputError{Msg: fmt.Sprintf("--make %d: 1 to 64 jobs", o.MakeJobs)}
	}
	if o.Runs < 0 || o.Runs > 1000 {
		return &InputError{Msg: fmt.Sprintf("%d runs: 1 to 1000 in one boot", o.Runs)}
	}
	if o.VCPUs < 0 || o.VCPUs > 64 {
		return &InputError{Msg: fmt.Sprintf("--vcpus %d: 1 to 64", o.VCPUs)}
	}
	return nil
}

// Measure boots the kernel under QEMU (TCG with icount), runs the workload
// in it as a host run and returns the recording. Every temporary file and
// QEMU itself are gone when it returns, also when ctx ends first (the
// error then wraps context.Cause(ctx)).
func Measure(ctx context.Context, o Options) (*Result, error) {
	if err := Check(&o); err != nil {
		return nil, err
	}
	if o.VCPUs == 0 {
		o.VCPUs = 1
	}
	if o.MemoryMB == 0 {
		o.MemoryMB = 1024
	}
	if o.Runs == 0 {
		o.Runs = 1
	}
	kvm := o.Accel == "kvm"
	if o.BootTimeout == 0 {
		o.BootTimeout = 120 * time.Second
		if kvm {
			// KVM boots in a second or two, or hangs: no reason to wait
			// as for an emulated boot on a loaded machine.
			o.BootTimeout = 30 * time.Second
		}
	}
	if o.Silence == 0 {
		o.Silence = 60 * time.Second
		if o.MakeJobs > 0 {
			// A guest second of compiling can take minutes of a loaded
			// machine's wall time, and the heartbeat is once a guest
			// second.
			o.Silence = 5 * time.Minute
		}
	}
	if o.Retries == 0 && !kvm {
		// A KVM boot that hangs hangs again; an emulated one that died
		// early (an oops under icount) often does not.
		o.Retries = 2
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Init == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		o.Init = exe
	}
	dir, err := os.MkdirTemp("", "schedlab-vm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	req, _ := json.Marshal(request{Name: o.Name, Workload: o.Workload, Duration: o.Duration, Warmup: o.Warmup,
		Seed: o.Seed, CPUs: o.CPUs, BufferKB: o.BufferKB, Limits: o.Limits, VCPUs: o.VCPUs, Features: o.Features, Set: o.Set,
		Runs: o.Runs, Probe: true, MakeJobs: o.MakeJobs})
	initrd := filepath.Join(dir, "initramfs.cpio")
	f, err := os.Create(initrd)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var tools map[string]string
	if o.MakeJobs > 0 {
		if tools, err = toolchain(); err != nil {
			f.Close()
			return nil, &InputError{Msg: err.Error()}
		}
	}
	err = buildInitramfs(bw, o.Init, req, tools)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("building the initramfs: %w", err)
	}
	res := &Result{Kernel: o.Kernel, VCPUs: o.VCPUs, Clock: "icount"}
	switch o.Accel {
	case "kvm":
		res.Clock = "kvm"
	case "tcg-mt":
		res.Clock = "real time (multi-threaded TCG)"
	}
	start := time.Now()
	for attempt := 0; ; attempt++ {
		err := boot(ctx, &o, dir, initrd, res)
		var be *BootError
		if errors.As(err, &be) && attempt < o.Retries && ctx.Err() == nil {
			msg := fmt.Sprintf("boot %d failed: %s (console: %s)", attempt+1, be.Msg, telling(be.Console))
			res.Retries = append(res.Retries, msg)
			fmt.Fprintf(o.Log, "schedlab: %s; booting again\n", msg)
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(res.Recordings) != o.Runs {
			return nil, &GuestError{Msg: fmt.Sprintf("the guest sent %d of %d runs", len(res.Recordings), o.Runs)}
		}
		rememberSched(o.Kernel, res.Sched)
		res.Wall = time.Since(start)
		return res, nil
	}
}

// telling is the console line that says most of why a boot failed: a
// panic's or an oops's first line, else the last line.
func telling(lines []string) string {
	for _, key := range []string{"Kernel panic", "BUG:", "Oops", "general protection fault"} {
		for _, l := range lines {
			if strings.Contains(l, key) {
				return strings.TrimSpace(l)
			}
		}
	}
	if len(lines) == 0 {
		return "nothing"
	}
	return "last line " + strings.TrimSpace(lines[len(lines)-1])
}

// cmdline is the kernel's command line. maxcpus=1: 6.1 hangs at "x86:
// Booting SMP configuration" under icount, and init brings the other vCPUs
// online instead; tsc=reliable keeps the clocksource watchdog from
// doubting an emulated TSC; panic=-1 with -no-reboot turns a panic into
// QEMU's exit; nokaslr because 6.12 oopsed early in some boots without.
func cmdline() string {
	return "console=ttyS0 loglevel=4 panic=-1 nokaslr maxcpus=1 tsc=reliable rdinit=/init"
}

func qemuArgs(o *Options, initrd, sock string) []string {
	accel := []string{"-accel", "tcg", "-icount", "shift=0,sleep=off"}
	switch o.Accel {
	case "kvm":
		// The host CPU as it is, less the feature this machine's QEMU
		// refuses to pass through (it fails to start with it).
		accel = []string{"-accel", "kvm", "-cpu", "host,-arch-capabilities"}
	case "tcg-mt":
		// icount needs QEMU's single-threaded round-robin TCG; without
		// it each vCPU has a host thread.
		accel = []string{"-accel", "tcg,thread=multi"}
	}
	return append([]string{
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-machine", "pc"}, append(accel,
		"-m", fmt.Sprint(o.MemoryMB), "-smp", fmt.Sprint(o.VCPUs),
		"-kernel", o.Kernel.Image, "-initrd", initrd, "-append", cmdline(),
		"-serial", "stdio", "-serial", "unix:"+sock)...)
}

// console keeps the last lines of the guest's console.
type console struct {
	mu    sync.Mutex
	lines []string
	part  strings.Builder
}

func (c *console) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range string(b) {
		switch ch {
		case '\r':
		case '\n':
			c.lines = append(c.lines, c.part.String())
			if len(c.lines) > 200 {
				c.lines = c.lines[len(c.lines)-100:]
			}
			c.part.Reset()
		default:
			c.part.WriteRune(ch)
		}
	}
	return len(b), nil
}

func (c *console) last(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := append([]string(nil), c.lines...)
	if c.part.Len() > 0 {
		l = append(l, c.part.String())
	}
	var out []string
	for _, s := range l {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// kindConnected is the launcher's own mark: QEMU opened the channel.
const kindConnected = "connected"

type frame struct {
	kind    string
	payload []byte
	err     error
}

// boot runs QEMU once. A guest that never says hello is a *BootError,
// which Measure retries.
func boot(ctx context.Context, o *Options, dir, initrd string, res *Result) error {
	sock := filepath.Join(dir, "data.sock")
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	defer ln.Close()
	con := &console{}
	var conW io.Writer = con
	if o.Console != nil {
		conW = io.MultiWriter(con, o.Console)
	}
	var qerr strings.Builder
	cmd := exec.Command(QEMU, qemuArgs(o, initrd, sock)...)
	cmd.Stdout, cmd.Stderr = conW, &qerr
	// QEMU dies with the launcher, however the launcher dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", QEMU, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	kill := func() {
		cmd.Process.Kill()
		<-exited
	}
	frames := make(chan frame, 16)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			frames <- frame{err: err}
			return
		}
		defer c.Close()
		frames <- frame{kind: kindConnected}
		r := bufio.NewReaderSize(c, 1<<20)
		for {
			k, p, err := readFrame(r)
			frames <- frame{kind: k, payload: p, err: err}
			if err != nil || k == kindDone {
				return
			}
		}
	}()
	how := map[string]string{"": "TCG, icount", "tcg": "TCG, icount", "tcg-mt": "multi-threaded TCG, real time", "kvm": "KVM"}[o.Accel]
	fmt.Fprintf(o.Log, "schedlab: booting %s (Linux %s) under %s: %s, %d vCPU(s), %d MB\n", o.Kernel.Name, o.Kernel.Release, QEMU, how, o.VCPUs, o.MemoryMB)
	hello := false
	deadline := time.NewTimer(o.BootTimeout)
	defer deadline.Stop()
	var wire *wireRecording
	res.Recordings = res.Recordings[:0]
	var guestErr string
	var qemuGone bool
	var lastAlive string
	var connected bool
	var qemuErr error
	gone := func() error {
		msg := fmt.Sprintf("QEMU exited (%v) before the guest finished", orExit(qemuErr))
		if q := strings.TrimSpace(qerr.String()); q != "" {
			msg += ": " + lastLines(q, 3)
		}
		if !hello {
			return &BootError{Msg: "the guest did not reach init: " + msg, Console: con.last(40)}
		}
		if guestErr != "" {
			if m, ok := strings.CutPrefix(guestErr, inputPrefix); ok {
				return &InputError{Msg: m}
			}
			msg = "the guest failed: " + guestErr
		}
		return &GuestError{Msg: msg, Console: con.last(15)}
	}
	for {
		select {
		case <-ctx.Done():
			kill()
			return fmt.Errorf("stopped QEMU and removed its files: %w", context.Cause(ctx))
		case err := <-exited:
			// QEMU ended: the guest powered off, panicked (panic=-1,
			// -no-reboot) or QEMU failed. Frames still in flight are read
			// first, for a moment.
			exited, qemuGone, qemuErr = nil, true, err
			if !connected {
				return gone()
			}
			resetTimer(deadline, 5*time.Second)
		case <-deadline.C:
			if qemuGone {
				return gone()
			}
			kill()
			if !hello {
				msg := fmt.Sprintf("the guest did not reach init within %v", o.BootTimeout)
				if o.Accel == "kvm" {
					msg += " under KVM (on some machines KVM opens but the guest hangs at boot; the default accelerator, tcg, works without it)"
				}
				return &BootError{Msg: msg, Console: con.last(40)}
			}
			return &GuestError{Msg: fmt.Sprintf("the guest stopped answering (nothing for %v)", o.Silence), Console: con.last(15)}
		case f := <-frames:
			if f.err != nil {
				if !qemuGone && errors.Is(f.err, io.EOF) {
					// QEMU closes the channel as it exits: say why it
					// exited rather than that the channel closed.
					select {
					case qemuErr = <-exited:
						qemuGone = true
					case <-time.After(5 * time.Second):
					}
				}
				if qemuGone {
					return gone()
				}
				kill()
				msg := fmt.Sprintf("the guest's channel failed: %v", f.err)
				if !hello {
					return &BootError{Msg: msg, Console: con.last(40)}
				}
				return &GuestError{Msg: msg, Console: con.last(15)}
			}
			if !qemuGone && f.kind != kindConnected {
				resetTimer(deadline, o.Silence)
			}
			switch f.kind {
			case kindConnected:
				connected = true
			case kindHello:
				hello = true
				res.Boot = time.Since(t0)
				fmt.Fprintf(o.Log, "schedlab: guest init runs on Linux %s after %.1f s\n", f.payload, res.Boot.Seconds())
			case kindAlive:
				if p := string(f.payload); p != lastAlive {
					lastAlive = p
					fmt.Fprintf(o.Log, "schedlab: guest: %s (%.1f s after QEMU's start)\n", p, time.Since(t0).Seconds())
				}
			case kindError:
				guestErr = string(f.payload)
			case kindSched:
				res.Sched = &Sched{}
				if err := json.Unmarshal(f.payload, res.Sched); err != nil {
					kill()
					return fmt.Errorf("the guest's scheduler settings: %w", err)
				}
			case kindCosts:
				res.Costs = &host.Costs{}
				if err := json.Unmarshal(f.payload, res.Costs); err != nil {
					kill()
					return fmt.Errorf("the guest's cost probe: %w", err)
				}
			case kindResult:
				wire = &wireRecording{}
				if err := json.Unmarshal(f.payload, wire); err != nil {
					kill()
					return fmt.Errorf("the guest's recording: %w", err)
				}
			case kindTrace:
				if wire == nil {
					kill()
					return fmt.Errorf("the guest sent a trace before its recording")
				}
				res.Recordings = append(res.Recordings, wire.recording(f.payload))
				res.Guest = wire.Guest
				fmt.Fprintf(o.Log, "schedlab: received run %d/%d (%d bytes of trace) %.1f s after QEMU's start\n", len(res.Recordings), o.Runs, len(f.payload), time.Since(t0).Seconds())
				if wire.Error != "" {
					kill()
					return &GuestError{Msg: fmt.Sprintf("run %d in the guest failed: %s", len(res.Recordings), wire.Error)}
				}
				wire = nil
			case kindDone:
				// The guest powers off now; give it a moment.
				if !qemuGone {
					select {
					case <-exited:
					case <-time.After(20 * time.Second):
						kill()
					}
				}
				if guestErr != "" || len(res.Recordings) < o.Runs {
					if m, ok := strings.CutPrefix(guestErr, inputPrefix); ok {
						return &InputError{Msg: m}
					}
					if guestErr == "" {
						guestErr = fmt.Sprintf("it sent %d of %d recordings", len(res.Recordings), o.Runs)
					}
					return &GuestError{Msg: "the guest failed: " + guestErr, Console: con.last(15)}
				}
				return nil
			}
		}
	}
}

func resetTimer(t *time.Timer, d time.Duration) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(d)
}

func orExit(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}
