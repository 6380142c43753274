// Package sim is schedlab's discrete-event engine. It owns time, CPUs,
// tasks, timers and costs, runs a workload's task programs, and reaches the
// scheduling policy only through sched.Class, as the kernel's core scheduler
// reaches a scheduling class. Every state change is reported as a
// trace.Event, so analysis never needs to know it ran on a simulator.
//
// A run is a deterministic state machine on one goroutine: a heap of timers
// ordered by (time, arming order), each dispatched in turn. Time is integer
// nanoseconds; nothing depends on the wall clock or on map order.
package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
	"unsafe"

	"schedlab/internal/cpumask"
	"schedlab/internal/freelist"
	"schedlab/sched"
	"schedlab/trace"
	"schedlab/uapi"
	"schedlab/workload"
)

// Config describes one simulation run.
type Config struct {
	Spec *workload.Spec
	// Sched is the resolved policy configuration: its NCPU is the CPU
	// count, and a TickNS other than 0 must be Params' tick.
	Sched  *sched.Config
	Params Params
	// Duration caps the simulated time (ns); the run also ends when every
	// task has exited. It must be positive.
	Duration int64
	Seed     uint64
	Sink     trace.Sink
	// Check verifies the engine's and the class's invariants after every
	// event and stops the run at the first violation.
	Check bool
	// Kernel is the machine's own kernel threads (kthreads.go); nil: none.
	Kernel *KernelThreads
}

// Engine runs one simulation.
type Engine struct {
	cfg     Config
	p       Params
	spec    *workload.Spec
	class   sched.Class
	warmer  sched.Warmer // class, if it is one (warm.go)
	checker sched.Checker
	// stack is the class when the workload has tasks above the fair
	// class (classes.go); nil for a fair-only run. classT is its timer.
	stack  *sched.Stack
	classT timer
	sink   trace.Sink
	fast   trace.FastSink // the sink's (trace.AsFast), nil without one: emit.go
	rng    *rand.Rand
	jitter *rand.Rand // the balancer's timing jitter (smp.go), apart from the workload's draws
	// noiseRNG draws the noise model's delays (noise.go).
	noiseRNG *rand.Rand

	now int64
	end int64
	// tickOff shifts the jiffy grid: workload time t is machine time
	// t+tickOff (Params.TickPhase).
	tickOff int64
	// While jiffyLo ≤ now < jiffyHi, jiffyHi is the next jiffy start,
	// where jiffy jiffyK starts (nextJiffy; jiffyK is 0 before the first).
	jiffyLo, jiffyHi, jiffyK int64
	q                        eventQueue
	cpus                     []*CPU
	dirty                    []*CPU // CPUs whose need_resched was set during this event
	// hrticks: a CPU has armed its hrtick timer (StartHRTick). Until
	// one does, schedule() need not cancel any, and does not read the
	// timer's line (most policies never arm one: HRTICK is off).
	hrticks bool
	alive   liveTasks // tasks created and not yet exited, in creation order (alive.go)
	created int       // tasks created so far; the next PID is pidBase+1+created
	// Exited tasks are released; what reports need of them stays here:
	// the sum, and each one's runtime by task number (PID − pidBase − 1,
	// dense since PIDs are handed out in order; −1: alive).
	deadRuntime     int64
	deadRuntimeByID []int64
	groups          map[string]*sched.Group
	ev              trace.Event // reused for every emitted event: no allocation

	posix []*posixTimer
	// Exited tasks for reuse (taskpool.go): released during the current
	// event, then free; reused counts the Tasks handed out again.
	dying     []*Task
	freeTasks freelist.List[Task]
	reused    int
	// taskBlock is what is left of the block new Tasks come from
	// (newTask1).
	taskBlock []Task
	rtState   []*rtTimerState // shared rt-app timer state, by Spec.Timers index
	timerID   int32
	// stacks counts each thread group's cached thread stacks
	// (threadstart.go), kept only when threads are charged a setup.
	stacks map[int32]int
	// forkLocks are the thread groups' fork-time locks (threadstart.go).
	forkLocks map[int32]*forkLock

	live, pending int // tasks alive; initial tasks not started yet
	started       bool

	// Many-CPU bookkeeping (smp.go): queued tasks and busy CPUs in all,
	// and group loads.
	runnable, busy int
	// With more than one CPU, the CPUs by state, kept by cpuChanged for
	// the balancer's searches (smp.go): idle (nothing running or
	// queued), by their task count (filed at count+1), and, by their
	// task count, those with a task waiting.
	idleCPUs            cpumask.Mask
	nrCPUs, waitingCPUs *cpumask.Levels
	groupLoads          map[*sched.Group]*groupLoad
	groupOrder          []*groupLoad
	events              uint64
	traced              uint64
	err                 error

	// still counts the events dispatched since the clock last advanced
	// (progress.go); stall holds the threads seen looping once it is
	// over the bound.
	still uint64
	stall []*stallSeen
	// everyEvent: every event ends in afterEvent, not only those that
	// marked a CPU for a reschedule: the classes above the fair class
	// may push tasks between CPUs after any event, and Config.Check
	// checks after each.
	everyEvent bool
	// maxThreads bounds the threads alive at once (workload.MaxThreads).
	maxThreads int
	// syncs are the workload's mutexes, conditions, barriers and
	// semaphores (sync.go), made at their first use.
	syncs *syncObjs
	// rtLogOn keeps rt-app's per-thread logs (rtapplog.go) in rtLogs.
	rtLogOn bool
	rtLogs  []*RtappLog
	// kthreads are the machine's kernel threads, rcu the RCU kthread's
	// grace periods (kthreads.go).
	kthreads []*kthread
	rcu      *rcuState
}

// pidBase is the tgid of the simulated rt-app process; its threads get the
// PIDs after it, in creation order.
const pidBase = 1000

// New prepares a run. Errors are about the configuration or the workload.
func New(cfg Config) (*Engine, error) {
	if cfg.Spec == nil || cfg.Sched == nil {
		return nil, errors.New("sim: Config needs Spec and Sched")
	}
	if cfg.Duration <= 0 {
		return nil, fmt.Errorf("sim: duration must be positive, got %d ns", cfg.Duration)
	}
	// Beyond it the engine's sums of a time and a length could wrap, and
	// the tick grid's products do.
	if cfg.Duration > workload.MaxNS {
		return nil, fmt.Errorf("sim: a duration of %v is longer than a simulation may be (10⁷ s, about 115 days)", time.Duration(cfg.Duration))
	}
	if cfg.Params.HZ <= 0 {
		return nil, fmt.Errorf("sim: HZ must be positive, got %d", cfg.Params.HZ)
	}
	if ph := cfg.Params.TickPhase; ph < -1 || ph >= cfg.Params.TickNS() {
		return nil, fmt.Errorf("sim: %s must be -1 (drawn from the seed) or in [0, %d) at HZ %d, got %d",
			ParamTickPhase, cfg.Params.TickNS(), cfg.Params.HZ, ph)
	}
	// A configuration resolved for a machine must be for this one: the
	// class's model of the tick is the engine's tick.
	if m := cfg.Sched.Machine; m.TickNS != 0 && m.TickNS != cfg.Params.TickNS() {
		return nil, fmt.Errorf("sim: the policy was configured for a %d ns tick, but the engine ticks every %d ns (HZ %d)",
			m.TickNS, cfg.Params.TickNS(), cfg.Params.HZ)
	}
	class, err := sched.NewStack(cfg.Sched, cfg.Spec.Policies())
	if err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:      cfg,
		p:        cfg.Params,
		spec:     cfg.Spec,
		class:    class,
		sink:     cfg.Sink,
		fast:     trace.AsFast(cfg.Sink),
		rng:      rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		jitter:   rand.New(rand.NewPCG(cfg.Seed^0x6a09e667f3bcc909, cfg.Seed)),
		noiseRNG: newNoiseRNG(cfg.Seed),
		end:      cfg.Duration,
		groups:   map[string]*sched.Group{},

		groupLoads: map[*sched.Group]*groupLoad{},
		maxThreads: workload.MaxThreads,
		tickOff:    tickPhase(cfg.Params, cfg.Seed),
	}
	if cfg.Check {
		e.checker, _ = class.(sched.Checker)
	} else if u, ok := class.(sched.Unchecked); ok {
		u.SkipChecks()
	}
	e.stack, _ = class.(*sched.Stack)
	e.everyEvent = e.stack != nil || cfg.Check
	if k, ok := class.(sched.Clocked); ok {
		k.SetClock(&e.now)
	}
	e.warmer, _ = class.(sched.Warmer)
	e.q.sizeFor(cfg.Sched.NCPU)
	e.classT = timer{kind: tkClass}
	for i := 0; i < cfg.Sched.NCPU; i++ {
		c := &CPU{id: i, e: e}
		c.tickT = cpuTimer(tkTick, c)
		c.hrtickT = cpuTimer(tkHRTick, c)
		c.reschedT = cpuTimer(tkResched, c)
		e.cpus = append(e.cpus, c)
	}
	if e.smp() {
		e.idleCPUs = cpumask.New(len(e.cpus))
		e.nrCPUs, e.waitingCPUs = cpumask.NewLevels(len(e.cpus)), cpumask.NewLevels(len(e.cpus))
		for _, c := range e.cpus {
			e.countChanged(c, -1)
		}
	}
	// Stagger the CPUs' periodic balancing over one interval, as the
	// kernel's per-CPU next_balance times are: CPUs that balanced in the
	// same instant would undo each other's moves.
	for i, c := range e.cpus {
		c.nextBalance = e.balanceInterval() * busyFactor * int64(i+1) / int64(len(e.cpus))
	}
	for _, g := range cfg.Spec.Groups {
		sg := &sched.Group{Path: g.Path, Shares: g.Shares, Parent: e.groups[g.Parent], Depth: 1}
		if sg.Parent != nil {
			sg.Depth = sg.Parent.Depth + 1
		}
		e.groups[g.Path] = sg
	}
	e.rtState = make([]*rtTimerState, len(cfg.Spec.Timers))
	threads := 0
	for _, d := range cfg.Spec.Tasks {
		if err := e.checkTaskDef(d); err != nil {
			return nil, err
		}
		threads += d.Instances
	}
	if threads > e.maxThreads {
		return nil, fmt.Errorf("sim: the workload starts %d threads: at most %d", threads, e.maxThreads)
	}
	if err := e.checkKernel(cfg.Kernel); err != nil {
		return nil, err
	}
	return e, nil
}

// checkTaskDef rejects what the workload language allows but this engine
// cannot run, before anything starts.
func (e *Engine) checkTaskDef(d *workload.Task) error {
	pol := e.spec.DefaultPolicy
	if d.Props.Policy != nil {
		pol = *d.Props.Policy
	}
	switch {
	case pol == uapi.SchedDeadline && sched.ClassOf(pol) == nil:
		return fmt.Errorf("task %q: policy SCHED_DEADLINE (rt-app's deadline policy, dl-runtime/dl-period/dl-deadline) needs the deadline class, which this build does not register (import schedlab/sched/dl)", d.Name)
	case pol.RealTime() && sched.ClassOf(pol) == nil:
		return fmt.Errorf("task %q: policy %v needs the real-time class, which this build does not register (import schedlab/sched/rt)", d.Name, pol)
	}
	for _, c := range d.Props.CPUs {
		if c < 0 || c >= len(e.cpus) {
			return fmt.Errorf("task %q: cpus lists CPU %d, but the run has %d CPU(s) (0-%d): run it with --cpus %d or more", d.Name, c, len(e.cpus), len(e.cpus)-1, c+1)
		}
	}
	return e.checkPhases(d)
}

// Class returns the run's scheduling class (for tests and reports).
func (e *Engine) Class() sched.Class { return e.class }

// Now returns the current simulated time.
func (e *Engine) Now() int64 { return e.now }

// Events returns the number of engine events dispatched so far.
func (e *Engine) Events() uint64 { return e.events }

// TraceEvents returns the number of trace events emitted so far.
func (e *Engine) TraceEvents() uint64 { return e.traced }

// CPUTime returns, per CPU, the busy and idle time so far.
func (e *Engine) CPUTime() (busy, idle []int64) {
	for _, c := range e.cpus {
		busy = append(busy, c.busy)
		idle = append(idle, c.idle)
	}
	return busy, idle
}

// TaskRuntime returns the CPU time each task received, by PID.
func (e *Engine) TaskRuntime() map[int]int64 {
	m := make(map[int]int64, e.alive.len()+len(e.deadRuntimeByID))
	for i, ns := range e.deadRuntimeByID {
		if ns >= 0 {
			m[pidBase+1+i] = ns
		}
	}
	for t := range e.alive.all() {
		m[t.st.PID] = t.runtime
	}
	return m
}

// Run simulates until the duration or until every task has exited, and
// returns the simulated time. It may be called once, or after Advance.
func (e *Engine) Run() (int64, error) {
	if err := e.Advance(e.end); err != nil {
		return e.now, err
	}
	e.now = e.end
	for _, c := range e.cpus {
		c.sync()
	}
	return e.end, nil
}

// Advance dispatches every event up to time until (at most the run's
// duration), so a test or benchmark can run a simulation in stages; the
// first call starts the workload's tasks. When every task has exited the
// run ends there.
func (e *Engine) Advance(until int64) error {
	if !e.started {
		e.started = true
		e.ev = trace.Event{Kind: trace.Begin, CPU: -1, CPUs: int32(len(e.cpus))}
		e.emit()
		e.startKernel()
		for _, d := range e.spec.Tasks {
			for i := 0; i < d.Instances; i++ {
				t := e.newTask(d, nil, i)
				t.startT = taskTimer(tkStart, t)
				e.pending++
				e.q.arm(&t.startT, d.Delay)
			}
		}
	}
	until = min(until, e.end)
	for e.err == nil {
		if e.live == 0 && e.pending == 0 && e.created > 0 {
			e.end = e.now
			break
		}
		t := e.q.peek()
		if t == nil {
			e.end = e.now
			break
		}
		if t.when > until {
			break
		}
		e.q.pop()
		// The clock moved (nearly every event), or the event is one more
		// at the same instant, counted against the no-progress bound.
		if t.when != e.now {
			e.now, e.still = t.when, 1
		} else if e.still++; e.still > stallBase {
			if limit := e.stallLimit(); e.still > limit {
				e.stallNote(t)
				if e.still > limit+stallWitness {
					e.err = e.stallError()
					break
				}
			}
		}
		e.events++
		// Nine events in ten are a task's work ending or its wake timer
		// (the busy engine: 52 % and 43 %): dispatched here, without a
		// call; dispatch has the rest.
		switch t.kind {
		case tkWorkDone:
			t := t.task()
			c := e.cpus[t.st.CPU]
			c.sync()
			e.complete(c, t)
		case tkWake:
			e.timerWake(t.task())
		default:
			e.dispatch(t)
		}
		// Most events mark no CPU for a reschedule (two in three in the
		// busy engine): they have nothing to resolve, and no task was
		// released, which only schedule() does.
		if len(e.dirty) > 0 || e.everyEvent {
			e.afterEvent()
		}
	}
	return e.err
}

// dispatch runs the timer t of a kind Advance does not run itself.
func (e *Engine) dispatch(t *timer) {
	switch t.kind {
	case tkTick:
		c := t.cpu()
		c.sync()
		if c.curr != nil {
			e.class.Tick(c, &c.curr.st, false)
			e.armTick(c)
			e.balanceTick(c)
		}
	case tkHRTick:
		c := t.cpu()
		c.sync()
		if c.curr != nil {
			e.class.Tick(c, &c.curr.st, true)
		}
	case tkStart:
		e.pending--
		e.start(t.task())
		// rt-app's main thread creates the initial threads due at one
		// moment one after another and only then blocks: none of them runs
		// before the last is queued, so none is preempted by the next one's
		// wake_up_new_task, and the CPU's first pick is among them all
		// (on 6.1, the last created: START_DEBIT's vslice shrinks as the
		// queue grows).
		for n := e.q.peek(); n != nil && n.kind == tkStart && n.when == e.now; n = e.q.peek() {
			e.q.pop()
			e.events++
			e.pending--
			e.start(n.task())
		}
	case tkPosix:
		e.posixExpire(t.ptmr())
	case tkResched:
		c := t.cpu()
		c.sync()
		if c.needResched {
			c.schedNow()
		}
	case tkClass:
		e.stack.Timer(core{e})
	case tkKThread:
		e.kthreadTimer(t)
	}
}

// afterEvent resolves the event: it runs schedule() on every CPU marked
// need_resched during the event, now or, for a preemption, when the
// marked task reaches it (deferResched), and lets the classes above the
// fair one push; then it recycles the tasks the event released, and
// checks the invariants when the run asks.
func (e *Engine) afterEvent() {
	e.resolveOnce()
	if e.stack != nil {
		e.push()
	}
	if len(e.dying) > 0 {
		e.recycle()
	}
	if e.cfg.Check && e.err == nil {
		if err := e.checkInvariants(); err != nil {
			e.err = fmt.Errorf("invariant broken at %d ns (event %d): %w", e.now, e.events, err)
		}
	}
}

func (e *Engine) resolveOnce() {
	for len(e.dirty) > 0 {
		c := e.dirty[len(e.dirty)-1]
		e.dirty = e.dirty[:len(e.dirty)-1]
		c.listed = false
		for n := 0; c.needResched && (c.selfSched || !e.deferResched(c)); n++ {
			if n == 16 {
				e.err = fmt.Errorf("cpu %d: the policy keeps asking for a reschedule at %d ns", c.id, e.now)
				return
			}
			e.schedule(c)
		}
	}
}

// deferResched says whether c's pending preemption waits, and starts the
// wait. A task marked by an interrupt (the tick, a timer's wakeup) or by
// a task's system call (a wakeup, a fork, a renice) runs on in the kernel
// until its return to user space checks TIF_NEED_RESCHED: cost_resched_ns,
// which it spends instead of its own work. A task inside a system call's
// CPU work is not preempted at all until that work ends (complete): the
// modelled kernels are not preemptible in kernel mode. An idle CPU
// switches at once (its idle loop polls the flag).
func (e *Engine) deferResched(c *CPU) bool {
	t := c.curr
	remote := c.remoteWake
	c.remoteWake = false
	if t == nil {
		// An idle CPU's way from the flag to the switch
		// (cost_idle_resched_ns), when it has one.
		if c.reschedT.armed() {
			return true
		}
		d := e.p.IdleResched + e.ipi(remote)
		if d += e.noise(e.p.NoiseResched); d == 0 {
			return false
		}
		e.q.arm(&c.reschedT, e.now+d)
		return true
	}
	if t.state != stRunnable {
		return false
	}
	if c.reschedT.armed() || t.action != actStep {
		return true
	}
	d := e.p.CostResched + e.ipi(remote)
	if d += e.noise(e.p.NoiseResched); d == 0 {
		return false
	}
	c.sync()
	if t.deadline != 0 {
		// A runtime event ends at its wall-clock deadline, which the
		// kernel's time counts towards; not before the task is back.
		t.work = max(t.work, d)
	} else {
		t.work += d
	}
	// Armed first, so that it comes before a doneT at the same time.
	e.q.arm(&c.reschedT, e.now+d)
	e.q.arm(&t.doneT, e.now+t.work)
	return true
}

// ipi is the reschedule IPI's delay for a CPU that a wakeup on another
// CPU marked.
func (e *Engine) ipi(remote bool) int64 {
	if remote {
		return e.p.CostIPI
	}
	return 0
}

// armTick keeps a busy CPU's periodic tick armed at the next jiffy boundary.
// Ticks sit on one global grid (k·10⁹/HZ ns), as jiffies do, and an idle CPU
// has none (NO_HZ_IDLE).
func (e *Engine) armTick(c *CPU) {
	when := e.nextJiffy()
	if c.tickT.armed() && c.tickT.when == when {
		return
	}
	e.q.arm(&c.tickT, when)
}

// nextJiffy is the first jiffy start after now. Every schedule() asks, so
// the last answer is kept with the jiffy start before it: while now is
// between the two, it stands (the divisions were a tenth of a seed
// load's time).
func (e *Engine) nextJiffy() int64 {
	if e.jiffyLo <= e.now && e.now < e.jiffyHi {
		return e.jiffyHi
	}
	return e.newJiffy()
}

// newJiffy is nextJiffy when now has left the kept range.
func (e *Engine) newJiffy() int64 {
	// Time moves on by less than a jiffy between most misses: when now
	// is in the jiffy that starts at jiffyHi, the next one's start is
	// the answer, with no division of now.
	k := e.jiffyK + 1
	when := e.jiffyStart(k)
	if e.jiffyK == 0 || e.now < e.jiffyHi || when <= e.now {
		// Jiffy k starts at floor(k·10⁹/HZ). When HZ does not divide
		// 10⁹ (300) the first guess can round back onto now: step on
		// until strictly after. Every jiffy up to jiffy(now) starts at
		// or before now, so this is the first start after now of all.
		k = e.jiffy(e.now) + 1
		when = e.jiffyStart(k)
		for when <= e.now {
			k++
			when = e.jiffyStart(k)
		}
	}
	// No jiffy starts between now and when, so when is the answer for
	// any time from now until then: now is the range's lower end (the
	// clock only moves on; it is a guard, not a jiffy start).
	e.jiffyLo, e.jiffyHi, e.jiffyK = e.now, when, k
	return when
}

// jiffy is floor(t·HZ/10⁹), the jiffy t falls in, and jiffyStart is
// floor(k·10⁹/HZ), where jiffy k starts. Each is computed in two parts
// (whole seconds, then the rest) to the same values as the plain
// products, which would wrap past 10⁷ s at HZ 1000.
// The grid is the machine's: workload time t is machine time t+tickOff.
func (e *Engine) jiffy(t int64) int64 {
	t += e.tickOff
	return t/1e9*e.p.HZ + t%1e9*e.p.HZ/1e9
}

func (e *Engine) jiffyStart(k int64) int64 {
	return k/e.p.HZ*1e9 + k%e.p.HZ*1e9/e.p.HZ - e.tickOff
}

// tickPhase is the run's offset of the jiffy grid (Params.TickPhase):
// drawn from the seed by its own hash, so that no stream of the
// workload's or the machine's draws moves.
func tickPhase(p Params, seed uint64) int64 {
	if p.TickPhase >= 0 {
		return p.TickPhase
	}
	return int64(splitmix(seed) % uint64(p.TickNS()))
}

// schedule is the core scheduler's __schedule() for one CPU. Up to 2.6.36
// it clears need_resched before the put and the pick, since 2.6.37 after
// them (Profile.ReschedBefore2637): a reschedule the class asks for
// meanwhile is then dropped.
func (e *Engine) schedule(c *CPU) {
	prev := c.curr
	before := e.cfg.Sched.Profile.ReschedBefore2637
	if before {
		c.needResched, c.selfSched = false, false
	}
	e.q.cancel(&c.reschedT)
	if e.hrticks {
		e.q.cancel(&c.hrtickT)
	}
	c.sync()
	if prev != nil {
		if prev.state != stRunnable {
			e.rqDel(c, prev, sched.DequeueSleep)
		}
		e.class.PutPrev(c, &prev.st)
		if prev.classSwitch {
			e.switchClass(c, prev)
		}
		// A phase may have moved prev to a task group or off c
		// (phaseprops.go); most tasks have neither.
		if prev.regroup || prev.pinned {
			e.moveDisallowed(c, prev)
		}
	}
	if e.stack != nil {
		var p *sched.Task
		if prev != nil {
			p = &prev.st
		}
		e.stack.PreSchedule(core{e}, c, p)
	}
	next := e.pick(c)
	// A CPU about to go idle first tries to pull a waiting task.
	if next == nil && e.pull(c, false) {
		next = e.pick(c)
	}
	if !before {
		c.needResched, c.selfSched = false, false
	}
	if next != prev {
		if prev != nil {
			e.q.cancel(&prev.doneT)
			prev.lastRan = e.now
		}
		e.emitSwitch(c, prev, next)
		if (prev == nil) != (next == nil) {
			if next == nil {
				e.busy--
			} else {
				e.busy++
			}
		}
		c.curr = next
		e.cpuChanged(c)
		if next != nil {
			e.switchIn(c, next)
		}
		if prev != nil && prev.state == stDead {
			e.class.TaskDead(c, &prev.st)
			e.live--
			// Release it: a long run forks hundreds of thousands.
			e.deadRuntime += prev.runtime
			e.deadRuntimeByID[prev.st.PID-pidBase-1] = prev.runtime
			e.released(prev)
		}
	}
	if c.curr == nil {
		e.q.cancel(&c.tickT)
	} else {
		e.armTick(c)
	}
}

// pick asks the class for c's next task.
func (e *Engine) pick(c *CPU) *Task { return e.task(e.class.PickNext(c)) }

// switchIn starts next's stint on c: the switch cost comes first, and a
// runtime (wall-clock) event has lost whatever time passed while it waited.
func (e *Engine) switchIn(c *CPU, t *Task) {
	if t.deadline != 0 {
		t.work = max(0, t.deadline-e.now)
	}
	t.work += e.p.CostContextSwitch + e.noise(e.p.NoiseSwitch)
	// A child that inherited TIF_NEED_RESCHED (fork) calls schedule()
	// again on its way out of the switch, before any of its own code.
	if t.inheritedResched {
		t.inheritedResched = false
		c.needResched = true
		e.q.arm(&c.reschedT, e.now+e.p.CostContextSwitch)
	}
	e.q.arm(&t.doneT, e.now+t.work)
}

// task maps the class's view of a task back to the engine's (nil to
// nil). Every sched.Task a class holds is a Task's st, which the engine
// handed it, so the Task is st's address less st's offset in it: a
// pointer kept in st for the way back was a line more that a wakeup's
// pick read.
func (e *Engine) task(st *sched.Task) *Task {
	if st == nil {
		return nil
	}
	return (*Task)(unsafe.Add(unsafe.Pointer(st), -int(unsafe.Offsetof(Task{}.st))))
}

// newTask creates a task from a definition; parent is nil for the
// workload's initial threads (instance is their index).
func (e *Engine) newTask(d *workload.Task, parent *Task, instance int) *Task {
	t := e.allocTask()
	t.def, t.e = d, e
	t.st.PID = pidBase + 1 + e.created
	e.created++
	e.deadRuntimeByID = append(e.deadRuntimeByID, -1)
	// A thread joins its creator's thread group (rt-app's for the initial
	// ones); a definition marked "process" starts a group of its own.
	t.st.TGID = pidBase
	if parent != nil {
		t.st.TGID = parent.st.TGID
	}
	if d.Process {
		t.st.TGID = t.st.PID
	}
	e.takeStack(t)
	name := d.Name
	if parent == nil && d.Instances > 1 {
		name = fmt.Sprintf("%s-%d", d.Name, instance)
	}
	if len(name) > 15 { // TASK_COMM_LEN − 1
		name = name[:15]
	}
	t.st.Comm = name
	if parent != nil {
		// sched_fork: the child has its parent's policy and nice (there
		// is no SCHED_RESET_ON_FORK here); its own definition's are set
		// by the thread itself once it runs (applyOwnSched).
		t.st.Policy, t.st.Nice = parent.st.Policy, parent.st.Nice
		t.ownSched = true
	} else {
		t.st.Policy, t.st.Nice = ownSched(e.spec, d)
	}
	if d.Props.UID != nil {
		t.st.UID = *d.Props.UID
	}
	t.st.Slice = d.Props.Slice
	ownRT(&t.st, d)
	if parent != nil {
		// sched_fork copies the real-time priority and the deadline
		// reservation with the policy.
		t.st.RTPrio, t.st.DL = parent.st.RTPrio, parent.st.DL
	}
	t.ownBal = e.stack != nil && e.stack.Balances(&t.st)
	if d.Props.TaskGroup != nil {
		t.st.Group = e.groups[*d.Props.TaskGroup]
	}
	t.setAllowed(d.Props.CPUs)
	t.rqIdx = -1
	t.doneT, t.wakeT = taskTimer(tkWorkDone, t), taskTimer(tkWake, t)
	t.threadLoops = d.Loop
	t.phase = -1
	t.action = actStep
	if d.Process {
		// The exec() that makes the new process the workload's program.
		t.work = e.p.CostExec
	}
	e.alive.add(t)
	return t
}

// ownSched is the policy and nice a definition gives its threads: its own
// keys, else the workload's default policy and nice 0, as rt-app's thread
// sets them when it starts (set_thread_param).
func ownSched(spec *workload.Spec, d *workload.Task) (uapi.Policy, int) {
	pol, nice := spec.DefaultPolicy, 0
	if d.Props.Policy != nil {
		pol = *d.Props.Policy
	}
	if d.Props.Nice != nil {
		nice = *d.Props.Nice
	}
	return pol, nice
}

// applyOwnSched is a forked thread's first act: setting its definition's
// policy and nice (rt-app's thread_body calls set_thread_param before its
// first phase; a change among the fair policies is a reweight, as
// __sched_setscheduler's dequeue, set and enqueue are).
func (e *Engine) applyOwnSched(t *Task) {
	t.ownSched = false
	pol, nice := ownSched(e.spec, t.def)
	if e.classChange(t, pol) {
		e.setClass(t, pol, nice)
		return
	}
	if pol == t.st.Policy && nice == t.st.Nice {
		return
	}
	c := e.cpus[t.st.CPU]
	c.sync()
	if t.onRQ {
		e.loadAdd(c, t, -1)
	}
	t.st.Policy = pol
	e.class.SetNice(c, &t.st, nice)
	if t.onRQ {
		e.loadAdd(c, t, 1)
	}
}

// start makes an initial task runnable: rt-app's main thread created it,
// so it is placed as a fork with no running parent.
func (e *Engine) start(t *Task) {
	t.st.CPU = e.selectForkCPU(t, nil)
	if !e.admit(t) {
		return
	}
	e.class.TaskNew(&t.st, nil)
	c := e.cpus[t.st.CPU]
	c.sync()
	e.emitFork(c, nil, t)
	e.class.Fork(c, c, nil, &t.st)
	e.live++
	e.wakeUpNew(t, nil)
}

// fork is clone() completing in parent: the child exists, is placed by the
// class and woken as a new task.
func (e *Engine) fork(parent *Task) {
	if e.live+e.pending >= e.maxThreads {
		e.err = &WorkloadError{Msg: fmt.Sprintf("task %s (pid %d) forks a thread at %d ns with %d alive, the most the simulator holds at once: a fork loop? (the threads forked must end; on the host --pids-max bounds it)",
			parent.st.Comm, parent.st.PID, e.now, e.live+e.pending)}
		return
	}
	if parent.st.Policy == uapi.SchedDeadline {
		e.err = &WorkloadError{Msg: fmt.Sprintf("task %s (pid %d) forks at %d ns, but it is SCHED_DEADLINE, and the kernel refuses a deadline task's fork without SCHED_FLAG_RESET_ON_FORK (EAGAIN)",
			parent.st.Comm, parent.st.PID, e.now)}
		return
	}
	d := e.spec.Tasks[parent.forkDef]
	child := e.newTask(d, parent, 0)
	child.st.Group = parent.st.Group
	if d.Props.TaskGroup != nil {
		child.st.Group = e.groups[*d.Props.TaskGroup]
	}
	child.st.CPU = e.selectForkCPU(child, parent)
	// A preemption pending in the parent's clone() (the tick's, a
	// wakeup's) is in the thread_info that dup_task_struct copies, up to
	// 2.6.36 (cleared since 2.6.37, f26f9aff6aa).
	pc := e.cpus[parent.st.CPU]
	child.inheritedResched = pc.needResched && e.cfg.Sched.Profile.ReschedBefore2637
	if !e.admit(child) {
		return
	}
	e.class.TaskNew(&child.st, &parent.st)
	c := e.cpus[parent.st.CPU]
	e.emitFork(c, parent, child)
	e.class.Fork(c, e.cpus[child.st.CPU], &parent.st, &child.st)
	// The SIGEV_THREAD callback runs in this new thread.
	child.resumeMark, parent.forkMark = parent.forkMark, mark{}
	e.live++
	e.wakeUpNew(child, parent)
}

// wakeUpNew is wake_up_new_task.
func (e *Engine) wakeUpNew(t, parent *Task) {
	c := e.cpus[t.st.CPU]
	c.sync()
	t.st.Wake = sched.WakeInfo{Source: sched.WakeFork}
	if parent != nil {
		t.st.Wake.Waker = &parent.st
	}
	t.state = stRunnable
	e.rqAdd(c, t, 0)
	e.emitWake(trace.WakeupNew, c, t)
	e.checkPreempt(c, t, sched.WFFork)
}

// wakeUp is try_to_wake_up for a sleeping task.
func (e *Engine) wakeUp(t *Task, src sched.WakeSource, waker *Task) {
	if t.state != stSleeping {
		return
	}
	c := e.cpus[t.st.CPU]
	c.sync()
	t.st.Wake = sched.WakeInfo{Source: src}
	if waker != nil {
		t.st.Wake.Waker = &waker.st
	}
	e.emitWake(trace.Waking, c, t)
	flags := sched.EnqueueWakeup
	// The wakeup runs where the timer fired (the wakee's CPU) or on the
	// waker's CPU.
	from := t.st.CPU
	if waker != nil {
		from = waker.st.CPU
	}
	if to := e.selectWakeCPU(t, waker); to != t.st.CPU {
		dst := e.cpus[to]
		dst.sync()
		e.class.MigrateTask(c, dst, &t.st, true)
		e.emitMigrate(dst, t, t.st.CPU)
		t.st.CPU = to
		c = dst
		flags |= sched.EnqueueWaking
	}
	t.state = stRunnable
	e.rqAdd(c, t, flags)
	e.emitWake(trace.Wakeup, c, t)
	c.remoteWake = c.id != from && e.p.CostIPI > 0
	e.checkPreempt(c, t, 0)
	if !c.needResched {
		c.remoteWake = false
	}
}

// checkPreempt is check_preempt_curr: an idle CPU always reschedules.
func (e *Engine) checkPreempt(c *CPU, t *Task, wf int) {
	if c.curr == nil {
		c.Resched()
		return
	}
	e.class.CheckPreempt(c, &t.st, wf)
}

// block puts the running task t to sleep; schedule() dequeues it.
func (e *Engine) block(t *Task) {
	t.state = stSleeping
	e.cpus[t.st.CPU].schedNow()
}

// exit ends t: it leaves the CPU for good at the next schedule().
func (e *Engine) exit(t *Task) {
	c := e.cpus[t.st.CPU]
	e.emitExit(c, t)
	t.state = stDead
	e.returnStack(t)
	// Its task_struct is freed after a grace period.
	e.rcuCallback()
	e.alive.remove(t)
	c.schedNow()
}

// resume is a resume event of waker taking effect: the named thread wakes
// if it is suspended, and otherwise finds the resume remembered at its next
// suspend. An input sample token the waker carries goes to the wakee. A
// name that matches no live thread makes it a no-op.
func (e *Engine) resume(waker *Task, ev *workload.Event) {
	e.resumeCond(waker, ev)
	t := e.resumeTarget(ev)
	if t == nil {
		return
	}
	if waker.token.set && t != waker {
		t.token, waker.token = waker.token, mark{}
	}
	if !t.suspended {
		t.resumed = true
		return
	}
	t.suspended = false
	e.wakeUp(t, sched.WakeTask, waker)
}

// resumeTarget finds the thread a resume names: the first live thread
// whose comm is the name, else the first live thread of the definition
// the name belongs to.
func (e *Engine) resumeTarget(ev *workload.Event) *Task {
	comm := ev.Target
	if len(comm) > 15 {
		comm = comm[:15]
	}
	var def *workload.Task
	if ev.TargetDef >= 0 {
		def = e.spec.Tasks[ev.TargetDef]
	}
	return e.alive.first(comm, def)
}

// maxDraw is the longest a random duration is drawn: twice the longest
// simulation, so that what starts at any time of a run still ends after
// it, as any longer draw would. A lognormal of sigma 10 draws past int64
// (where the conversion from float is undefined, a negative sleep on
// amd64) some hundred times in a million.
const maxDraw = 2 * workload.MaxNS

// drawNS converts a drawn length to ns.
func drawNS(f float64) int64 {
	if f >= maxDraw {
		return maxDraw
	}
	return int64(f)
}

// draw returns a duration for one execution of an event. A fixed one
// (nearly every event's) is answered inline; the 56-byte distribution is
// passed by reference, since a copy of it was most of a fixed draw.
func (e *Engine) draw(d *workload.Duration) int64 {
	if d.Dist == workload.Fixed {
		return d.Fixed
	}
	return e.drawRandom(d)
}

func (e *Engine) drawRandom(d *workload.Duration) int64 {
	switch d.Dist {
	case workload.LogNormal:
		return drawNS(float64(d.Median) * math.Exp(d.Sigma*e.rng.NormFloat64()))
	case workload.Exponential:
		return drawNS(float64(d.Mean) * e.rng.ExpFloat64())
	case workload.Uniform:
		if d.Max <= d.Min {
			return d.Min
		}
		return d.Min + e.rng.Int64N(d.Max-d.Min+1)
	}
	return d.Fixed
}
