package sim

import (
	"fmt"
	"slices"

	"schedlab/sched"
	"schedlab/trace"
	"schedlab/workload"
)

// KernelThreads are a machine's own kernel threads: fair-class nice-0
// tasks in the root group that the tick's softirq wakes, each to run a
// short burst and sleep again. They are not the workload's: they take no
// part in its end, and their PIDs (below the workload's tgid, as kernel
// threads' are) let an analysis leave them out (IsKernelPID). A run
// without them (Config.Kernel nil) is the engine as it was.
type KernelThreads struct {
	// WakeDelay is the time from a jiffy's start to the thread's wakeup:
	// the tick's handler, then its softirq.
	WakeDelay int64
	// Periodic threads are woken every Period by a timer-wheel timer: at
	// the first jiffy at or after each due time, the first due time drawn
	// from the seed in [0, Period).
	Periodic []PeriodicThread
	// RCU is the grace-period kthread; nil: none.
	RCU *RCUThread
	// Launcher is the task of the machine that ends the run by killing
	// the workload; nil: none.
	Launcher *Launcher
}

// Launcher is a task of the machine outside the workload (the host
// runner's launcher, validate.WithRunnerStop) that has slept since before
// the run, wakes at At, runs Walk, then kills the workload (SIGKILL to
// its every thread, in PID order: each one asleep is woken, and each
// exits at its next run after cost_exit_ns), runs After and sleeps for
// good. The analysis leaves it out as it does the kernel threads. It is
// in the root group and on CPU 0, as they are.
//
// Its runtime's monitor thread (Go's sysmon) wakes at SpinAt and then
// every SpinSleep after running SpinRun, until the run ends: where the
// class lets it preempt the walk, each of its wakeups is a chance for the
// workload to be picked. SpinRun 0: no such thread.
type Launcher struct {
	Comm               string
	At, Walk, After    int64
	SpinAt             int64
	SpinRun, SpinSleep int64
}

// PeriodicThread is a kernel thread woken by a periodic timer (a
// kworker's delayed work, kcompactd's wait).
type PeriodicThread struct {
	Comm   string
	Run    int64 // CPU time per wakeup (ns), after the engine's context switch
	Period int64 // ns between due times
	// HRTimer wakes the thread at each due time itself, from the timer
	// interrupt, as a high-resolution timer does (a user-space daemon's
	// sleep), instead of at the next jiffy's softirq: its wakeups fall
	// anywhere in a tick.
	HRTimer bool
}

// RCUThread is the RCU grace-period kthread (rcu_preempt) of a kernel
// whose callbacks are invoked in softirq. A task's exit queues a callback
// (release_task's put_task_struct_rcu_user → call_rcu); at the first tick
// after, the CPU's RCU softirq finds callbacks that need a grace period
// and, if none is in progress, wakes the kthread to start one. On one CPU
// the grace period ends GPTicks ticks later, when the tick reports the
// CPU's quiescent state and wakes the kthread again to clean it up; if
// callbacks were queued meanwhile, the cleanup starts the next grace
// period at once, without another wakeup (rcu_gp_cleanup's needgp).
type RCUThread struct {
	Comm    string
	Run     int64 // CPU time per wakeup (ns), after the engine's context switch
	GPTicks int64 // ticks from a grace period's start to its end (≥ 1)
}

// kernelPIDBase is the first kernel thread's PID: kernel threads have
// PIDs below the workload's tgid (pidBase), so the workload's PIDs are
// the same with and without them.
const kernelPIDBase = 2

// IsKernelPID says whether a PID of a simulated trace is one of the
// machine's kernel threads (KernelThreads), not the workload's.
func IsKernelPID(pid int32) bool { return pid >= kernelPIDBase && pid < pidBase }

// IsInitialFork says whether a fork event of a simulated trace creates
// one of the tasks the run starts with (the workload's initial threads,
// forked by the rt-app process itself) rather than a thread's fork.
func IsInitialFork(e *trace.Event) bool { return e.Kind == trace.Fork && e.PID == pidBase }

// kthread is one kernel thread's state.
type kthread struct {
	comm   string
	run    int64
	period int64 // periodic: ns between due times; 0 for the RCU kthread
	due    int64 // periodic: the next due time
	// hrtimer: woken at due itself (PeriodicThread.HRTimer)
	hrtimer bool
	pid     int
	task    *Task
	t       timer
	prog    []workload.Event // the launcher's program; nil: run and sleep
	once    bool             // the launcher: woken once, by its timer
	loop    bool             // its program loops for ever (the launcher's spinner)
}

// rcuState is the grace-period machine of the RCU kthread (rcu is nil
// without one).
type rcuState struct {
	k       *kthread
	gpTicks int64
	gp      bool  // a grace period is in progress
	waiting bool  // callbacks queued that the grace period in progress does not cover
	endK    int64 // the jiffy the grace period in progress ends at
}

func (e *Engine) checkKernel(k *KernelThreads) error {
	if k == nil {
		return nil
	}
	if k.WakeDelay < 0 || k.WakeDelay >= e.p.TickNS() {
		return fmt.Errorf("sim: kernel threads' wake delay must be in [0, %d) ns, got %d", e.p.TickNS(), k.WakeDelay)
	}
	for _, p := range k.Periodic {
		if p.Period <= 0 || p.Run <= 0 {
			return fmt.Errorf("sim: kernel thread %s needs a positive period and run time, got %d and %d ns", p.Comm, p.Period, p.Run)
		}
	}
	if r := k.RCU; r != nil && (r.GPTicks < 1 || r.Run <= 0) {
		return fmt.Errorf("sim: the RCU kthread needs a grace period of at least one tick and a positive run time, got %d ticks and %d ns", r.GPTicks, r.Run)
	}
	if l := k.Launcher; l != nil && (l.At < 0 || l.Walk < 0 || l.After < 0 || l.SpinAt < 0 || l.SpinRun < 0 || l.SpinRun > 0 && l.SpinSleep <= 0) {
		return fmt.Errorf("sim: the launcher needs its times at or above 0 ns and a positive spin sleep with a spin, got %+v", *l)
	}
	if n := len(k.Periodic) + 3; kernelPIDBase+n >= pidBase {
		return fmt.Errorf("sim: %d kernel threads: at most %d", n, pidBase-kernelPIDBase-1)
	}
	return nil
}

// startKernel creates the kernel threads and arms the periodic ones'
// first wakeups; the RCU kthread waits for a callback.
func (e *Engine) startKernel() {
	k := e.cfg.Kernel
	if k == nil {
		return
	}
	pid := kernelPIDBase
	newK := func(comm string, run, period int64, prog []workload.Event, loop bool) *kthread {
		kt := &kthread{comm: comm, run: run, period: period, pid: pid, prog: prog, once: prog != nil, loop: loop}
		kt.t.kind = tkKThread
		pid++
		e.kthreads = append(e.kthreads, kt)
		e.newKthread(kt)
		return kt
	}
	for i, p := range k.Periodic {
		kt := newK(p.Comm, p.Run, p.Period, nil, false)
		kt.due = int64(splitmix(e.cfg.Seed^uint64(i+1)*0x2545f4914f6cdd1d) % uint64(p.Period))
		kt.hrtimer = p.HRTimer
		e.q.arm(&kt.t, e.kthreadDue(kt))
	}
	if k.RCU != nil {
		e.rcu = &rcuState{k: newK(k.RCU.Comm, k.RCU.Run, 0, nil, false), gpTicks: k.RCU.GPTicks}
	}
	if l := k.Launcher; l != nil {
		run := func(ns int64) workload.Event {
			return workload.Event{Kind: workload.Run, Key: "run", Dur: workload.Duration{Fixed: ns}}
		}
		kt := newK(l.Comm, 0, 0, []workload.Event{run(l.Walk), {Kind: workload.Resume, Key: killKey, TargetDef: -1, Cond: -1}, run(l.After)}, false)
		e.q.arm(&kt.t, l.At)
		if l.SpinRun > 0 {
			kt := newK(l.Comm, 0, 0, []workload.Event{run(l.SpinRun),
				{Kind: workload.Sleep, Key: "sleep", Dur: workload.Duration{Fixed: l.SpinSleep}}}, true)
			e.q.arm(&kt.t, l.SpinAt)
		}
	}
}

// rcuCallback is a call_rcu: a grace period starts at the next tick
// unless one is in progress, which then starts the next at its end.
func (e *Engine) rcuCallback() {
	r := e.rcu
	if r == nil {
		return
	}
	if r.gp {
		r.waiting = true
		return
	}
	if !r.k.t.armed() {
		e.q.arm(&r.k.t, e.nextJiffy()+e.cfg.Kernel.WakeDelay)
	}
}

// kthreadTimer is a kernel thread's wakeup at a tick.
func (e *Engine) kthreadTimer(t *timer) {
	var kt *kthread
	for _, k := range e.kthreads {
		if &k.t == t {
			kt = k
		}
	}
	e.kthreadWake(kt)
	if kt.once {
		return
	}
	if kt.period > 0 {
		kt.due += kt.period
		e.q.arm(&kt.t, e.kthreadDue(kt))
		return
	}
	r := e.rcu
	switch {
	case !r.gp: // the softirq starts a grace period
		r.gp, r.endK = true, e.jiffy(e.now)+r.gpTicks
	case r.waiting: // the cleanup starts the next
		r.waiting, r.endK = false, r.endK+r.gpTicks
	default:
		r.gp = false
		return
	}
	e.q.arm(&kt.t, e.jiffyStart(r.endK)+e.cfg.Kernel.WakeDelay)
}

// kthreadDue is when a periodic kernel thread's next wakeup falls: at its
// due time for an hrtimer, else at the softirq of the jiffy at or after it.
func (e *Engine) kthreadDue(kt *kthread) int64 {
	if kt.hrtimer {
		return kt.due
	}
	return e.jiffyAtOrAfter(kt.due) + e.cfg.Kernel.WakeDelay
}

// kthreadWake wakes a kernel thread; one still running its last burst
// runs another (its condition is set again).
func (e *Engine) kthreadWake(kt *kthread) {
	if t := kt.task; t.suspended {
		t.suspended = false
		e.wakeUp(t, sched.WakeTimer, nil)
	} else {
		t.resumed = true
	}
}

// newKthread creates a kernel thread as the run starts, asleep: it has
// slept since boot, so the class places it as a new task and dequeues it
// as a sleeper at once, without its running (nor any event traced), and
// every wakeup is then a sleeper's (on EEVDF with the lag it slept with,
// zero; on CFS with the sleeper credit). Its program is to run its burst
// and sleep, for ever. It is on CPU 0, as the per-CPU threads are, and in
// the root group.
func (e *Engine) newKthread(kt *kthread) {
	d := &workload.Task{Name: kt.comm, Loop: -1, Phases: []*workload.Phase{{Loop: -1, Events: []workload.Event{
		{Kind: workload.Run, Key: "run", Dur: workload.Duration{Fixed: kt.run}},
		{Kind: workload.Suspend, Key: "suspend", Cond: -1},
	}}}}
	switch {
	case kt.loop:
		d = &workload.Task{Name: kt.comm, Loop: -1, Phases: []*workload.Phase{{Loop: -1, Events: kt.prog}}}
	case kt.prog != nil:
		// Its program once, then a suspend nothing resumes.
		ev := append(slices.Clip(kt.prog), workload.Event{Kind: workload.Suspend, Key: "suspend", Cond: -1})
		d = &workload.Task{Name: kt.comm, Loop: 1, Phases: []*workload.Phase{{Loop: 1, Events: ev}}}
	}
	t := e.allocTask()
	t.def, t.e = d, e
	t.st.PID, t.st.TGID, t.st.Comm = kt.pid, kt.pid, kt.comm
	t.kernel = true
	t.setAllowed([]int{0})
	t.rqIdx = -1
	t.doneT, t.wakeT = taskTimer(tkWorkDone, t), taskTimer(tkWake, t)
	t.threadLoops, t.phase, t.action = -1, -1, actStep
	t.state, t.suspended = stSleeping, true // (rqAdd leaves the state alone)
	// The live list is in PID order, and kernel PIDs come first.
	e.alive.add(t)
	kt.task = t
	c := e.cpus[0]
	c.sync()
	e.class.TaskNew(&t.st, nil)
	e.class.Fork(c, c, nil, &t.st)
	e.rqAdd(c, t, 0)
	e.rqDel(c, t, sched.DequeueSleep)
}

// jiffyAtOrAfter is the first jiffy start at or after t.
func (e *Engine) jiffyAtOrAfter(t int64) int64 {
	k := e.jiffy(t)
	when := e.jiffyStart(k)
	for when < t {
		k++
		when = e.jiffyStart(k)
	}
	return when
}

// splitmix is splitmix64's finalizer: a draw from the seed that moves no
// stream of the workload's or the machine's.
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// killKey marks the launcher's kill in its program: a resume of no
// thread, whose system call (cost_wakeup_ns) ends in kill instead.
const killKey = "kill"

// kill is the launcher's SIGKILL of the workload: every live thread of
// it, in PID order (the kernel's thread list), is to exit at its next run
// after cost_exit_ns, whatever it was doing; a sleeping one is woken
// (signal_wake_up: a sample, as on the kernel), taken off whatever it
// waited on first. A running one exits once it has run cost_exit_ns.
func (e *Engine) kill(killer *Task) {
	for t := range e.alive.all() {
		if t.kernel || t.state == stDead {
			continue
		}
		c := e.cpus[t.st.CPU]
		running := c.curr == t
		if running {
			c.sync() // what it ran so far is charged first
		}
		t.deadline, t.blockEv, t.resumeEv = 0, nil, nil
		t.work, t.action = e.p.CostExit, actExit
		switch {
		case t.state == stSleeping:
			e.unwait(t)
			t.suspended, t.resumed = false, false
			e.wakeUp(t, sched.WakeTask, killer)
		case running:
			e.q.arm(&t.doneT, e.now+t.work)
		}
	}
}

// unwait takes a sleeping thread off what it waits on: its timer, a POSIX
// timer's signal, a sync object's queue.
func (e *Engine) unwait(t *Task) {
	e.q.cancel(&t.wakeT)
	for _, pt := range e.posix {
		if pt.waiter == t {
			pt.waiter = nil
			t.pins--
		}
	}
	if s := e.syncs; s != nil {
		drop := func(w []*Task) []*Task { return slices.DeleteFunc(w, func(x *Task) bool { return x == t }) }
		for i := range s.mutexes {
			s.mutexes[i].waiters = drop(s.mutexes[i].waiters)
		}
		for i := range s.conds {
			s.conds[i].waiters = drop(s.conds[i].waiters)
		}
		for i := range s.barriers {
			s.barriers[i].waiters = drop(s.barriers[i].waiters)
		}
		for i := range s.sems {
			s.sems[i].waiters = drop(s.sems[i].waiters)
		}
	}
}
