package vm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"schedlab/host"
	"schedlab/workload"
)

// IsGuest says whether this process is schedlab as a VM guest's init:
// PID 1 with the launcher's request in its root. A container's PID 1 has
// no request, and stays a plain schedlab.
func IsGuest() bool {
	if os.Getpid() != 1 {
		return false
	}
	_, err := os.Stat(requestPath)
	return err == nil
}

// dataPort is the guest's end of the launcher's channel: the second
// serial port (the first is the console).
const dataPort = "/dev/ttyS1"

// GuestMain is init in the guest: it sets up the kernel's file systems,
// runs the launcher's request as a host run, sends the recording back and
// powers off. It never returns; whatever happens, the machine ends.
func GuestMain() {
	defer powerOff()
	logf("schedlab guest: init started")
	if err := mountAll(); err != nil {
		logf("schedlab guest: %v", err)
		return
	}
	port, err := os.OpenFile(dataPort, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		// Without the channel nothing can be reported but on the console.
		logf("schedlab guest: cannot open %s: %v", dataPort, err)
		return
	}
	makeRaw(port)
	fw := &frameWriter{w: port}
	defer func() {
		if p := recover(); p != nil {
			fw.send(kindError, fmt.Appendf(nil, "the guest's init panicked: %v", p))
		}
		fw.send(kindDone, nil)
		drain(port)
	}()
	if err := guest(fw); err != nil {
		logf("schedlab guest: %v", err)
		fw.send(kindError, []byte(err.Error()))
	}
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
}

func powerOff() {
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	// Still here (no ACPI?): init's end panics the kernel, and panic=-1
	// with QEMU's -no-reboot ends the machine.
	os.Exit(1)
}

// mountAll mounts what the host runner and its workload expect of a
// machine. devtmpfs first: the kernel mounts nothing in an initramfs.
func mountAll() error {
	type m struct{ src, dir, fs, data string }
	for _, x := range []m{{"devtmpfs", "/dev", "devtmpfs", ""}, {"proc", "/proc", "proc", ""}, {"sysfs", "/sys", "sysfs", ""}} {
		if err := mount(x.src, x.dir, x.fs, x.data); err != nil && !errors.Is(err, syscall.EBUSY) {
			return err
		}
	}
	return nil
}

func mount(src, dir, fs, data string) error {
	os.MkdirAll(dir, 0o755)
	if err := syscall.Mount(src, dir, fs, 0, data); err != nil {
		return fmt.Errorf("mount -t %s %s %s: %w", fs, src, dir, err)
	}
	return nil
}

// mountCgroups mounts the cgroup controllers as this project's host has
// them (v1, a hierarchy per controller: cpu.shares is exact there), else
// the unified v2 hierarchy, for a kernel without v1.
func mountCgroups() []string {
	var notes []string
	root := host.CgroupRoot
	if err := mount("tmpfs", root, "tmpfs", "mode=755"); err != nil {
		return []string{err.Error()}
	}
	var v1 []string
	for _, c := range []string{"cpu", "pids", "memory"} {
		if err := mount("cgroup", filepath.Join(root, c), "cgroup", c); err == nil {
			v1 = append(v1, c)
		}
	}
	if len(v1) == 3 {
		return nil
	}
	if len(v1) == 0 {
		syscall.Unmount(root, 0)
		if err := mount("cgroup2", root, "cgroup2", ""); err != nil {
			return []string{"no cgroups: " + err.Error()}
		}
		return []string{"cgroup v2 (the kernel has no v1 controllers): cpu.shares become cpu.weight"}
	}
	notes = append(notes, fmt.Sprintf("cgroup v1 controllers %s only", strings.Join(v1, ", ")))
	return notes
}

// drain waits until the tty has sent what was written to it (tcdrain:
// TCSBRK with a non-zero argument): a write returns once the bytes are in
// the tty's buffer, and powering off then would lose the recording's end.
func drain(f *os.File) {
	const tcsbrk = 0x5409 // asm-generic/ioctls.h
	syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), tcsbrk, 1)
}

// makeRaw sets a tty to raw mode (cfmakeraw), so that bytes pass as they
// are: no newline translation, no echo, no signals.
func makeRaw(f *os.File) {
	var t syscall.Termios
	fd := f.Fd()
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return
	}
	t.Iflag &^= syscall.IGNBRK | syscall.BRKINT | syscall.PARMRK | syscall.ISTRIP | syscall.INLCR | syscall.IGNCR | syscall.ICRNL | syscall.IXON
	t.Oflag &^= syscall.OPOST
	t.Lflag &^= syscall.ECHO | syscall.ECHONL | syscall.ICANON | syscall.ISIG | syscall.IEXTEN
	t.Cflag &^= syscall.CSIZE | syscall.PARENB
	t.Cflag |= syscall.CS8
	syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCSETS, uintptr(unsafe.Pointer(&t)))
}

func guest(fw *frameWriter) error {
	var u syscall.Utsname
	syscall.Uname(&u)
	fw.send(kindHello, []byte(cstr(u.Release[:])))
	var notes []string
	for _, x := range [][3]string{{"tracefs", "/sys/kernel/tracing", "tracefs"}, {"debugfs", "/sys/kernel/debug", "debugfs"}} {
		if err := mount(x[0], x[1], x[2], ""); err != nil {
			notes = append(notes, err.Error())
		}
	}
	notes = append(notes, mountCgroups()...)
	b, err := os.ReadFile(requestPath)
	if err != nil {
		return err
	}
	var req request
	if err := json.Unmarshal(b, &req); err != nil {
		return fmt.Errorf("the launcher's request: %w", err)
	}
	notes = append(notes, onlineCPUs(req.VCPUs)...)
	applied, err := applySched(req.Features, req.Set)
	if err != nil {
		return err
	}
	notes = append(notes, applied...)
	// What the runs meet, as the kernel now says: for the report and
	// for the simulation of the same runs.
	st := readSched()
	notes = append(notes, "scheduler tunables: "+st.line())
	spec, err := workload.Parse(req.Name, req.Workload)
	if err != nil {
		return err
	}
	spec.Name = req.Name
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	progress := make(chan string, 1)
	progress <- "booted"
	go heartbeat(ctx, fw, progress)
	if j, err := json.Marshal(st); err == nil {
		fw.send(kindSched, j)
	}
	o := host.Options{Spec: spec, CPUs: req.CPUs, Seed: req.Seed, BufferKB: req.BufferKB, Limits: req.Limits, Log: os.Stderr}
	if req.MakeJobs > 0 {
		if err := writeBuildTree(buildDir, req.MakeJobs); err != nil {
			return fmt.Errorf("writing the build's tree: %w", err)
		}
		o.Beside = buildCommand(req.MakeJobs)
		notes = append(notes, fmt.Sprintf("a real make -j%d of %d gcc -O2 compiles (%s) ran beside the workload in its cgroup through every run, the warm-up included", req.MakeJobs, buildFiles, buildDir))
	}
	if req.Warmup > 0 {
		// The first run after boot meets cold caches, page faults of the
		// binary and the kernel's first-time allocations: much slower.
		o.Duration = req.Warmup
		setProgress(progress, "warm-up")
		t0 := time.Now()
		if _, err := host.Run(ctx, o); err != nil {
			return fmt.Errorf("the warm-up run: %w", err)
		}
		notes = append(notes, fmt.Sprintf("warm-up: one %v run of the same workload before the measured ones, discarded (%.2f s of guest time)", req.Warmup, time.Since(t0).Seconds()))
	}
	if req.Probe {
		// After the warm-up, so that the binary's pages are in.
		setProgress(progress, "cost probe")
		cpu := 0
		if len(req.CPUs) > 0 {
			cpu = req.CPUs[0]
		}
		if c, err := host.Probe(cpu); err != nil {
			notes = append(notes, err.Error())
		} else if j, err := json.Marshal(c); err == nil {
			fw.send(kindCosts, j)
		}
	}
	runs := max(req.Runs, 1)
	for i := range runs {
		o.Duration = req.Duration
		o.Seed = req.Seed + uint64(i)
		setProgress(progress, fmt.Sprintf("measuring run %d/%d", i+1, runs))
		rec, err := host.Run(ctx, o)
		if rec == nil {
			return err
		}
		setProgress(progress, fmt.Sprintf("sending run %d/%d", i+1, runs))
		w := toWire(rec)
		w.Guest = notes
		if err != nil {
			w.Error = err.Error()
		}
		j, _ := json.Marshal(w)
		if err := fw.send(kindResult, j); err != nil {
			return err
		}
		if err := fw.send(kindTrace, rec.Trace); err != nil {
			return err
		}
		if err != nil {
			return nil
		}
	}
	return nil
}

func setProgress(ch chan string, s string) {
	select {
	case <-ch:
	default:
	}
	ch <- s
}

// heartbeat tells the launcher the guest still runs, every guest second.
func heartbeat(ctx context.Context, fw *frameWriter, progress chan string) {
	state := ""
	for {
		select {
		case s := <-progress:
			state = s
		default:
		}
		fw.send(kindAlive, []byte(state))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// onlineCPUs brings the vCPUs beyond the boot CPU online: the launcher
// boots with maxcpus=1, since some kernels hang bringing up a second CPU
// under icount at boot but not later.
func onlineCPUs(n int) []string {
	var on []string
	var notes []string
	for c := 1; c < n; c++ {
		p := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/online", c)
		if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) == "1" {
			continue
		}
		if err := os.WriteFile(p, []byte("1"), 0); err != nil {
			notes = append(notes, fmt.Sprintf("CPU %d could not be brought online: %v", c, err))
			continue
		}
		on = append(on, strconv.Itoa(c))
	}
	if len(on) > 0 {
		notes = append(notes, fmt.Sprintf("booted with maxcpus=1, CPU(s) %s brought online by init (the kernel rescales its tunables to the online CPUs then, as at boot)", strings.Join(on, ",")))
	}
	return notes
}

// fairTunables are the fair class's tunables a kernel may have, by their
// file names (the simulator's names without "sched_").
var fairTunables = []string{"latency_ns", "min_granularity_ns", "idle_min_granularity_ns", "wakeup_granularity_ns", "base_slice_ns", "migration_cost_ns", "nr_migrate", "tunable_scaling"}

// tunableFile is where the guest kernel keeps a tunable: debugfs since
// 5.13, /proc/sys/kernel/sched_* before ("" if it has none).
func tunableFile(name string) string {
	for _, p := range []string{"/sys/kernel/debug/sched/" + name, "/proc/sys/kernel/sched_" + name} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// featuresFile is the kernel's sched_features file: debugfs's sched/
// since 5.13, its top level before.
func featuresFile() string {
	for _, p := range []string{"/sys/kernel/debug/sched/features", "/sys/kernel/debug/sched_features"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// applySched writes the simulator's features and tunables to the guest
// kernel's files; a name the kernel lacks is an input error that lists
// what it has.
func applySched(features []string, set [][2]string) ([]string, error) {
	var notes []string
	ff := featuresFile()
	if len(features) > 0 && ff == "" {
		return nil, errors.New(inputPrefix + "--features: the guest kernel has no sched_features file (CONFIG_SCHED_DEBUG off?)")
	}
	if msg := readSched().lacks("the guest kernel", features, set); msg != "" {
		return nil, errors.New(inputPrefix + msg)
	}
	for _, f := range features {
		f = strings.TrimSpace(f)
		if err := os.WriteFile(ff, []byte(f), 0); err != nil {
			return nil, fmt.Errorf("writing %s to %s: %w", f, ff, err)
		}
	}
	if len(features) > 0 {
		b, _ := os.ReadFile(ff)
		notes = append(notes, fmt.Sprintf("sched features set (%s): %s", strings.Join(features, ","), strings.TrimSpace(string(b))))
	}
	for _, kv := range set {
		p := tunableFile(strings.TrimPrefix(kv[0], "sched_"))
		if err := os.WriteFile(p, []byte(kv[1]), 0); err != nil {
			return nil, fmt.Errorf(inputPrefix+"--set %s=%s: the guest kernel refused it (%s): %v", kv[0], kv[1], p, err)
		}
		b, _ := os.ReadFile(p)
		notes = append(notes, fmt.Sprintf("set %s=%s (%s reads %s)", kv[0], kv[1], p, strings.TrimSpace(string(b))))
	}
	return notes, nil
}

// readSched reads the kernel's features and fair tunables, for the
// simulation of the same runs.
func readSched() *Sched {
	st := &Sched{Tunables: map[string]int64{}}
	if ff := featuresFile(); ff != "" {
		if b, err := os.ReadFile(ff); err == nil {
			st.Features = strings.Fields(string(b))
		}
	}
	for _, n := range fairTunables {
		if b, err := os.ReadFile(tunableFile(n)); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
				st.Tunables["sched_"+n] = v
			}
		}
	}
	return st
}

// line is the fair class's tunables of s in the kernel's order, by the
// kernel's file names.
func (s *Sched) line() string {
	var out []string
	for _, n := range fairTunables {
		if v, ok := s.Tunables["sched_"+n]; ok {
			out = append(out, fmt.Sprintf("%s=%d", n, v))
		}
	}
	if len(out) == 0 {
		return "unreadable (neither /sys/kernel/debug/sched nor /proc/sys/kernel/sched_*)"
	}
	return strings.Join(out, " ")
}

func cstr(b []int8) string {
	s := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}
