//go:build cgo

package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"schedlab/uapi"
)

// HaveRunner says whether this build can run workloads on the host: the
// runner's threads are C (worker.c), so a build without cgo has none.
const HaveRunner = true

// monoNow is CLOCK_MONOTONIC, the trace clock of the instance.
func monoNow() int64 {
	var ts syscall.Timespec
	// clock_gettime(CLOCK_MONOTONIC)
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// defaultBufferKB sizes the ring buffer: a busy 2-CPU run writes about
// 1 MB per CPU and second (make -j10 with a timer); twice that, at least
// 16 MB, at most 512 MB per CPU.
func defaultBufferKB(d time.Duration) int {
	kb := int(d.Seconds()*2048) + 1024
	return min(max(kb, 16384), 512*1024)
}

// Run runs o.Spec on the host and returns its recording. It always undoes
// what it set up; when ctx ends first the error is an *InterruptedError.
func Run(ctx context.Context, o Options) (res *Recording, err error) {
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	if o.Duration <= 0 {
		return nil, errors.New("host: a run needs a positive duration")
	}
	setup, err := Preflight(o.CPUs, len(o.Spec.Groups) > 0)
	if err != nil {
		return nil, err
	}
	if err := checkTaskCPUs(o.Spec); err != nil {
		return nil, err
	}
	ctl := setup.ctl
	for _, d := range setup.Did {
		fmt.Fprintf(logw, "schedlab: %s\n", d)
	}
	res = &Recording{Spec: o.Spec, CPUs: o.CPUs, Seed: o.Seed}
	res.Facts = hostFacts()
	res.Facts.Tracefs = setup.Tracefs
	for _, d := range removeStale(setup.Tracefs) {
		fmt.Fprintf(logw, "schedlab: %s\n", d)
	}
	var cl cleanup
	defer func() {
		done := cl.run()
		res.Cleanup = done
		var ie *InterruptedError
		if errors.As(err, &ie) {
			ie.Cleanup = done
		}
		for _, d := range done {
			fmt.Fprintf(logw, "schedlab: cleanup: %s\n", d)
		}
	}()

	name := runName()
	groupTasks := map[string]string{}
	realTime := slices.ContainsFunc(o.Spec.Policies(), func(p uapi.Policy) bool { return p.RealTime() })
	cg, err := newCgroupSet(ctl, name, o.Spec.Groups, o.Limits, realTime)
	if err != nil {
		return res, err
	}
	res.Facts.Notes = append(res.Facts.Notes, cg.notes...)
	for _, n := range cg.notes {
		fmt.Fprintf(logw, "schedlab: note: %s\n", n)
	}
	if len(cg.tops) > 0 {
		cl.add(func() string {
			if errs := cg.remove(); len(errs) > 0 {
				return fmt.Sprintf("FAILED to remove cgroups: %v", errors.Join(errs...))
			}
			return fmt.Sprintf("removed cgroup %s", strings.Join(cg.tops, ", "))
		})
	}
	if ctl != nil {
		for _, g := range o.Spec.Groups {
			groupTasks[g.Path] = cg.tasksFile(g.Path)
		}
		res.Facts.Cgroup = cg.top
	} else {
		res.Facts.Notes = append(res.Facts.Notes, "no cgroup cpu controller: the workload runs in its session's autogroup")
	}
	prog, err := compile(o.Spec, o.CPUs, groupTasks, o.Seed, o.RtappLogDir)
	if err != nil {
		return res, err
	}
	progFile, err := tempFile(prog)
	if err != nil {
		return res, err
	}
	defer progFile.Close()

	bufKB := o.BufferKB
	if bufKB <= 0 {
		bufKB = defaultBufferKB(o.Duration)
	}
	inst, err := newInstance(setup.Tracefs, name, bufKB)
	if err != nil {
		return res, err
	}
	cl.add(func() string {
		if err := inst.remove(); err != nil {
			return fmt.Sprintf("FAILED to remove tracefs instance %s: %v", inst.dir, err)
		}
		return fmt.Sprintf("removed tracefs instance %s", inst.dir)
	})

	// Orphaned workload processes come back to this process, which reaps
	// them; without it they would go to init and out of reach.
	if err := setSubreaper(true); err != nil {
		return res, fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err)
	}
	cl.add(func() string { setSubreaper(false); return "" })

	goR, goW, err := os.Pipe()
	if err != nil {
		return res, err
	}
	defer goW.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		goR.Close()
		return res, err
	}
	leave, rmdirs := cg.undo()
	undoFile, err := tempFile(undoList(filepath.Join(inst.dir, "tracing_on"), leave, append(rmdirs, inst.dir)))
	if err != nil {
		return res, err
	}
	defer undoFile.Close()
	devnull, _ := os.Open(os.DevNull)
	exe, err := os.Executable()
	if err != nil {
		return res, err
	}
	proc, err := os.StartProcess(exe, []string{"schedlab-root"}, &os.ProcAttr{
		Env:   []string{workerEnv + "=" + jobRoot + " 3 4 5 6"},
		Files: []*os.File{devnull, devnull, errW, progFile, inst.marker, goR, undoFile},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	goR.Close()
	errW.Close()
	devnull.Close()
	if err != nil {
		errR.Close()
		return res, fmt.Errorf("starting the workload: %w", err)
	}
	res.RootPID = proc.Pid
	var workerErrs lineCounter
	var errWG sync.WaitGroup
	errWG.Add(1)
	go func() {
		defer errWG.Done()
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			workerErrs.add(strings.TrimPrefix(sc.Text(), "schedlab host worker: "))
		}
		errR.Close()
	}()
	reaped := make(chan struct{})
	var rootStatus syscall.WaitStatus
	go func() {
		defer close(reaped)
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil { // ECHILD: every process of the workload is gone
				return
			}
			if pid == proc.Pid {
				rootStatus = ws
			}
		}
	}()
	kills := []int{cl.add(func() string {
		n := killSession(proc.Pid)
		select {
		case <-reaped:
		case <-time.After(10 * time.Second):
			return fmt.Sprintf("FAILED to reap the workload of session %d within 10 s", proc.Pid)
		}
		if n == 0 {
			return fmt.Sprintf("workload session %d had already ended", proc.Pid)
		}
		return fmt.Sprintf("killed and reaped %d workload process(es) of session %d", n, proc.Pid)
	})}
	if err := cg.add(proc.Pid); err != nil {
		return res, fmt.Errorf("moving the workload into its cgroups: %w", err)
	}
	if len(o.Beside) > 0 {
		// Killed first: its processes must not take the workload's place.
		k, err := startBeside(o.Beside, cg, &cl)
		if err != nil {
			return res, err
		}
		kills = append([]int{k}, kills...)
	}
	total0, steal0 := stealTicks()
	if err := inst.on(true); err != nil {
		return res, err
	}
	res.Start = monoNow()
	if _, err := goW.Write([]byte{1}); err != nil {
		return res, fmt.Errorf("starting the workload: %w", err)
	}
	fmt.Fprintf(logw, "schedlab: measuring %s on the host for %v (workload session %d, tracefs instance %s)\n",
		o.Spec.Name, o.Duration, proc.Pid, inst.dir)
	timer := time.NewTimer(o.Duration)
	defer timer.Stop()
	var cause error
	select {
	case <-timer.C:
	case <-reaped:
	case <-ctx.Done():
		cause = context.Cause(ctx)
	}
	res.End = monoNow()
	// Stop the workload before tracing so that the recording's end is the
	// workload's end, then read what was recorded.
	cl.now(kills...)
	inst.on(false)
	total1, steal1 := stealTicks()
	if dt := total1 - total0; dt > 0 {
		res.Facts.StealPct = 100 * float64(steal1-steal0) / float64(dt)
	}
	errWG.Wait()
	res.WorkerErrors = workerErrs.lines()
	if cause != nil {
		// What was recorded until the signal is kept, as perf and
		// cyclictest keep theirs: the caller may report it, marked.
		res.Overrun, res.Dropped = inst.lost()
		res.Trace, _ = inst.read()
		return res, &InterruptedError{Cause: cause}
	}
	if err := cg.limitsReached(o.Limits); err != nil {
		return res, err
	}
	if rootStatus.Exited() && rootStatus.ExitStatus() == exitSetup {
		return res, fmt.Errorf("the workload could not start: %s", strings.Join(res.WorkerErrors, "; "))
	}
	if len(res.WorkerErrors) > 0 {
		// A thread that could not start, set what it was given, or count
		// its work leaves a recording of another workload than the file's.
		return res, fmt.Errorf("the workload did not run as written: %s", strings.Join(res.WorkerErrors, "; "))
	}
	res.Overrun, res.Dropped = inst.lost()
	if res.Trace, err = inst.read(); err != nil {
		return res, fmt.Errorf("reading the trace: %w", err)
	}
	return res, nil
}

// killSession kills the process group of a session's leader, and
// stragglers that left the group (none should); it returns how many
// processes the session had.
func killSession(pid int) int {
	pids := SessionPIDs(pid)
	syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	return len(pids)
}

// startBeside starts the command that runs beside the workload, in a
// session of its own (so one kill reaches its process group) and in the
// workload's cgroup. It is killed before the workload, at the end; the
// reaper that waits for the workload's processes reaps its too.
func startBeside(argv []string, cg *cgroupSet, cl *cleanup) (kill int, err error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	proc, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Env:   []string{"PATH=/usr/bin:/bin", "LC_ALL=C"},
		Files: []*os.File{devnull, devnull, devnull},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return 0, fmt.Errorf("starting %s beside the workload: %w", argv[0], err)
	}
	kill = cl.add(func() string {
		return fmt.Sprintf("killed %d process(es) of %s beside the workload", killSession(proc.Pid), argv[0])
	})
	if err := cg.add(proc.Pid); err != nil {
		return kill, fmt.Errorf("moving %s into the workload's cgroup: %w", argv[0], err)
	}
	return kill, nil
}

// lineCounter keeps the distinct lines the worker wrote, the first 20 in
// their order, with how often each came: a failing event repeats in every
// loop of every thread.
type lineCounter struct {
	mu    sync.Mutex
	order []string
	n     map[string]int
	more  int // lines beyond the first 20 distinct ones
}

func (c *lineCounter) add(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	if _, seen := c.n[line]; !seen {
		if len(c.order) == 20 {
			c.more++
			return
		}
		c.order = append(c.order, line)
	}
	c.n[line]++
}

func (c *lineCounter) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, l := range c.order {
		if n := c.n[l]; n > 1 {
			l = fmt.Sprintf("%s (%d times)", l, n)
		}
		out = append(out, l)
	}
	if c.more > 0 {
		out = append(out, fmt.Sprintf("and %d more line(s)", c.more))
	}
	return out
}

// tempFile writes b to an unlinked temporary file, which the workload's
// processes read through an inherited descriptor (the program, the undo
// list).
func tempFile(b []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "schedlab-run-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// undoList is what the workload's janitor (worker.c) undoes if this
// process dies without cleaning up: NUL-terminated pairs of a verb and a
// path. "off" writes 0 to a tracing_on at once; then, in a process of its
// own, "leave" moves the janitor out of a container, and "rmdir" removes a
// directory, in order, retrying while the workload's dying processes still
// hold it.
func undoList(tracingOn string, leave, rmdirs []string) []byte {
	var b []byte
	add := func(verb, path string) {
		b = append(append(append(append(b, verb...), 0), path...), 0)
	}
	add(undoOff, tracingOn)
	for _, p := range leave {
		add(undoLeave, p)
	}
	for _, p := range rmdirs {
		add(undoRmdir, p)
	}
	return b
}

func setSubreaper(on bool) error {
	v := uintptr(0)
	if on {
		v = 1
	}
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, v, 0); e != 0 {
		return e
	}
	return nil
}

func hostFacts() Facts {
	var u syscall.Utsname
	syscall.Uname(&u)
	b := make([]byte, 0, 65)
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return Facts{
		Kernel:    string(b),
		CPUs:      readTrim("/sys/devices/system/cpu/online"),
		Autogroup: readTrim("/proc/sys/kernel/sched_autogroup_enabled"),
		BaseSlice: baseSlice(),
		LoadAvg:   readTrim("/proc/loadavg"),
	}
}

// cleanup is the undo list of a run: each step undoes one thing that was
// set up and says what it did. Steps run last-added first, once.
type cleanup struct {
	steps []func() string
	ran   []bool
	done  []string
}

// add adds a step and returns its number, for now.
func (c *cleanup) add(f func() string) int {
	c.steps = append(c.steps, f)
	c.ran = append(c.ran, false)
	return len(c.steps) - 1
}

// step runs step i unless it has run, keeping what it says.
func (c *cleanup) step(i int) {
	if c.ran[i] {
		return
	}
	c.ran[i] = true
	if s := c.steps[i](); s != "" {
		c.done = append(c.done, s)
	}
}

// now runs steps at once (the kills), ahead of the rest.
func (c *cleanup) now(steps ...int) {
	for _, i := range steps {
		c.step(i)
	}
}

func (c *cleanup) run() []string {
	for i := len(c.steps) - 1; i >= 0; i-- {
		c.step(i)
	}
	return c.done
}
