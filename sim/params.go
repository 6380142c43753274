package sim

import "schedlab/sched"

// Params are the engine's own knobs: the tick rate and the costs of the
// kernel paths the simulator does not model instruction by instruction. None
// is known for the seeds' machines (design principle 7), so each is a named
// parameter with a documented default, settable with --set like a tunable.
type Params struct {
	// HZ is the periodic tick rate. Kconfig's default is 250 in 2.6.24,
	// 2.6.35 and on the host; the seed authors' HZ is unknown.
	HZ int64
	// CostContextSwitch is CPU time the incoming task spends in the switch
	// before its own work continues.
	CostContextSwitch int64
	// CostFork is CPU time the parent spends in clone() before the child
	// exists (a thread; a process's fork+exec is longer).
	CostFork int64
	// CostWakeup is the delay from the cause of a wakeup (a timer's or an
	// input device's event) to the wakee being on a run queue: interrupt
	// entry, the hrtimer or input code and try_to_wake_up. A task that
	// wakes another (a resume event) spends it as CPU time in the system
	// call before the wakee is queued.
	CostWakeup int64
	// TimerIRQ is an extra delay of every timer-driven wakeup (a sleep's
	// end, a timer's expiry, an input device's event) on top of CostWakeup:
	// the hrtimer interrupt's late delivery on a virtual machine, where the
	// host must inject it. 0 on bare metal. It does not apply to a task
	// waking another (resume), which CostWakeup alone prices.
	TimerIRQ int64
	// IdleExit is a further delay of a timer-driven wakeup whose timer
	// fires on an idle CPU (the wakee's, where it went to sleep): a halted
	// virtual CPU must be woken by its host first. 0 on bare metal.
	IdleExit int64
	// CostExec is CPU time a task of a definition marked "process" spends
	// before its first event: the exec() of the measuring binary that the
	// host runner's processes really do (host/worker.c's spawn). 0 in a
	// model of a kernel, where the workload's own events are the program;
	// the host and VM profiles of validate set it from a cost probe.
	CostExec int64
	// CostThreadStart is CPU time a workload thread spends before its
	// first event, after its exec if it is a process: the host runner's
	// run_thread naming the thread, opening its task clock and applying
	// its start properties before it reads the clock that anchors its
	// timers (host/worker.c), on a new stack; CostThreadStartCached on a
	// stack its process cached from an exited thread (threadstart.go).
	// 0 in a model of a kernel; the VM profile of validate sets them from
	// traces.
	CostThreadStart, CostThreadStartCached int64
	// CostExit is CPU time a task spends in exit() before it is gone.
	CostExit int64
	// CostYield is CPU time of the sched_yield() system call; it also
	// guarantees that a loop of yields makes progress.
	CostYield int64
	// LLCSize is the number of consecutive CPUs that share a last-level
	// cache (0: all do). A waking task looks for an idle CPU only within
	// its target's cache domain.
	LLCSize int64
	// BalanceInterval is the periodic load-balance period (ns); 0 means
	// the kernel's top-domain default, one ms per CPU, at least a tick.
	BalanceInterval int64
	// CostResched is the time from an event that marks a running task
	// for preemption (a wakeup, the tick, a renice) to that task's
	// schedule(): the rest of the interrupt or system call and the
	// return-to-user path, where the kernel checks TIF_NEED_RESCHED. The
	// task keeps the CPU meanwhile; whether its vruntime is charged for
	// that time is the class's clock rule (2.6.35 refreshes the clock in
	// put_prev_task, 2.6.37 on skips the refresh). A task inside a system
	// call's CPU work (fork, exit, yield, resume) is preempted only when
	// that work ends: kernel code is not preemptible.
	CostResched int64
	// TickPhase is where the workload's time 0 falls in a jiffy (ns): a
	// real program starts at an arbitrary moment of the tick grid, so its
	// timers do not fire in lock-step with the tick. −1 draws it from the
	// seed, uniform in [0, 10⁹/HZ); 0 starts the workload on a jiffy
	// boundary.
	TickPhase int64
	// IdleResched is the time from an idle CPU's need_resched (a task
	// queued on it) to its switch to that task: the rest of
	// try_to_wake_up after sched_waking, the idle loop's exit and
	// schedule(). 0 switches at once, as the engine did before; a real
	// CPU never does (sched_waking to sched_switch is never 0 ns).
	IdleResched int64
	// CostIPI is added to the reschedule of a CPU marked by a wakeup that
	// ran on another CPU (a timer firing where the wakee slept, a waker's
	// CPU): the reschedule IPI's delivery, which a local wakeup does not
	// wait for.
	CostIPI int64
	// CostBlock is CPU time a task spends in a blocking call (a sleep, a
	// timer wait, a suspend) before its schedule(): the system call's
	// entry and its way into the scheduler. A wakee queued meanwhile waits
	// for it. 0 blocks at once, as the engine did before.
	CostBlock int64
	// The noise model (noise.go): the timing jitter of a real machine,
	// each the mean of an exponential delay added to every occurrence of
	// a path, drawn from a stream of the run's seed of its own. 0 turns
	// that noise off (the default: see noise.go for why).
	//
	// NoiseTimer jitters a timer's delivery (expiry to the wakee queued):
	// the interrupt's entry, the hrtimer code and, on a VM, its injection.
	NoiseTimer int64
	// NoiseResched jitters a reschedule's way to schedule() (idle or
	// busy CPU, and a blocking call's, cost_block_ns): the wakee's
	// sched_waking to its sched_switch.
	NoiseResched int64
	// NoiseSwitch jitters each context switch's cost, charged to the
	// incoming task (cache and TLB refills: its way back to user code).
	NoiseSwitch int64
}

// Names of the engine parameters as --set and the JSON "tunables" spell them.
const (
	ParamHZ          = "HZ"
	ParamCtxSwitch   = "cost_context_switch_ns"
	ParamFork        = "cost_fork_ns"
	ParamWakeup      = "cost_wakeup_ns"
	ParamTimerIRQ    = "cost_timer_irq_ns"
	ParamIdleExit    = "cost_idle_exit_ns"
	ParamExit        = "cost_exit_ns"
	ParamExec        = "cost_exec_ns"
	ParamThreadStart = "cost_thread_start_ns"
	ParamStartCached = "cost_thread_start_cached_ns"
	ParamYield       = "cost_yield_ns"
	ParamLLCSize     = "llc_size"
	ParamBalance     = "balance_interval_ns"
	ParamResched     = "cost_resched_ns"
	ParamTickPhase   = "tick_phase_ns"
	ParamIdleResched = "cost_idle_resched_ns"
	ParamIPI         = "cost_ipi_ns"
	ParamBlock       = "cost_block_ns"
	ParamNoiseTimer  = "noise_timer_ns"
	ParamNoiseResch  = "noise_resched_ns"
	ParamNoiseSwitch = "noise_switch_ns"
	defaultHZ        = 250
	defaultCtxSwitch = 3000
	defaultFork      = 25000
	defaultWakeup    = 2000
	defaultExit      = 10000
	defaultYield     = 500
	defaultResched   = 1000
	seededTickPhase  = -1
)

// TickNS is the tick period, 10^9/HZ ns: what a class that models the
// tick length is told through sched.Machine.TickNS. Jiffies start on the
// grid floor(k·10^9/HZ), so with an HZ that does not divide 10^9 a tick
// can be a nanosecond longer.
func (p *Params) TickNS() int64 { return 1e9 / p.HZ }

// timerWakeDelay is the delay from a timer's expiry to its wakee being
// queued.
func (p *Params) timerWakeDelay() int64 { return p.CostWakeup + p.TimerIRQ }

// DefaultParams are the engine defaults. The costs are round figures of the
// right order for a 2 GHz CPU of 2010 (a context switch of a few µs, a
// thread clone of tens of µs); they are not calibrated to any row of the
// seeds.
func DefaultParams() Params {
	return Params{
		HZ:                defaultHZ,
		CostContextSwitch: defaultCtxSwitch,
		CostFork:          defaultFork,
		CostWakeup:        defaultWakeup,
		CostExit:          defaultExit,
		CostYield:         defaultYield,
		CostResched:       defaultResched,
		TickPhase:         seededTickPhase,
	}
}

// ParamTunables describes the engine parameters for `schedlab features` and
// for --set parsing.
func ParamTunables() []sched.Tunable {
	return []sched.Tunable{
		{Name: ParamHZ, Default: defaultHZ, Unit: "Hz", Choices: []int64{100, 250, 300, 1000}, Doc: "periodic scheduler tick rate (CONFIG_HZ)"},
		{Name: ParamCtxSwitch, Default: defaultCtxSwitch, Unit: "ns", Min: 0, Max: 1e9, Doc: "CPU time of a context switch, charged to the incoming task"},
		{Name: ParamFork, Default: defaultFork, Unit: "ns", Min: 0, Max: 1e9, Doc: "CPU time of clone() in the parent before the child exists"},
		{Name: ParamWakeup, Default: defaultWakeup, Unit: "ns", Min: 0, Max: 1e9, Doc: "delay from a timer or input event to the wakee being queued (irq + hrtimer + try_to_wake_up); CPU time of the waker for a task-to-task wakeup (resume)"},
		{Name: ParamTimerIRQ, Default: 0, Unit: "ns", Min: 0, Max: 1e9, Doc: "extra delay of timer-driven wakeups (sleep ends, timer expiries, input events): a virtual machine's late hrtimer interrupt; 0 on bare metal"},
		{Name: ParamIdleExit, Default: 0, Unit: "ns", Min: 0, Max: 1e9, Doc: "further delay of a timer-driven wakeup whose timer fires on an idle CPU: a halted virtual CPU's wakeup by its host; 0 on bare metal"},
		{Name: ParamExec, Default: 0, Unit: "ns", Min: 0, Max: 1e10, Doc: "CPU time a \"process\" task spends in exec() of the measuring binary before its first event (the host runner's processes exec schedlab); 0 in a model of a kernel"},
		{Name: ParamThreadStart, Default: 0, Unit: "ns", Min: 0, Max: 1e9, Doc: "CPU time a workload thread spends before its first event, which anchors its timers (the host runner's per-thread setup); 0 in a model of a kernel"},
		{Name: ParamStartCached, Default: 0, Unit: "ns", Min: 0, Max: 1e9, Doc: "the same for a thread created on a stack its process cached from an exited thread (glibc's stack cache); 0 in a model of a kernel"},
		{Name: ParamExit, Default: defaultExit, Unit: "ns", Min: 0, Max: 1e9, Doc: "CPU time of exit() before the task is gone"},
		{Name: ParamYield, Default: defaultYield, Unit: "ns", Min: 0, Max: 1e9, Doc: "CPU time of the sched_yield() system call"},
		{Name: ParamLLCSize, Default: 0, Min: 0, Max: 1 << 16, Doc: "CPUs per last-level-cache domain (0: all CPUs share one); wakeups look for idle CPUs within it"},
		{Name: ParamBalance, Default: 0, Unit: "ns", Min: 0, Max: 1e10, Doc: "periodic load-balance interval (0: one ms per CPU, at least a tick)"},
		{Name: ParamResched, Default: defaultResched, Unit: "ns", Min: 0, Max: 1e9, Doc: "delay from a preempting wakeup, tick or renice to the running task's schedule() (rest of the interrupt or system call, return to user), spent by that task"},
		{Name: ParamTickPhase, Default: seededTickPhase, Unit: "ns", Min: -1, Max: 1e8, Doc: "where the workload's time 0 falls in a jiffy: -1 draws it from the seed (uniform within a tick), 0 starts on a jiffy boundary; below 10^9/HZ"},
		{Name: ParamIdleResched, Default: 0, Unit: "ns", Min: 0, Max: 1e9, Doc: "delay from a task queued on an idle CPU to the switch to it (rest of try_to_wake_up, idle loop exit, schedule()); 0 switches at once"},
		{Name: ParamBlock, Default: 0, Unit: "ns", Min: 0, Max: 1e9, Doc: "CPU time of a blocking call (sleep, timer wait, suspend) before its schedule(); 0 blocks at once"},
		{Name: ParamIPI, Default: 0, Unit: "ns", Min: 0, Max: 1e9, Doc: "extra delay of a reschedule that a wakeup on another CPU asked for (the reschedule IPI)"},
		{Name: ParamNoiseTimer, Default: 0, Unit: "ns", Min: 0, Max: 1e8, Doc: "noise: mean of an exponential extra delay of every timer's delivery, seeded from the run's seed; 0 is off"},
		{Name: ParamNoiseResch, Default: 0, Unit: "ns", Min: 0, Max: 1e8, Doc: "noise: mean of an exponential extra delay of every reschedule's way to schedule() (sched_waking to sched_switch), seeded; 0 is off"},
		{Name: ParamNoiseSwitch, Default: 0, Unit: "ns", Min: 0, Max: 1e8, Doc: "noise: mean of an exponential extra CPU time of every context switch (cache refills), seeded; 0 is off"},
	}
}

// Set applies a parsed parameter value; ok is false for an unknown name.
func (p *Params) Set(name string, v int64) (ok bool) {
	switch name {
	case ParamHZ:
		p.HZ = v
	case ParamCtxSwitch:
		p.CostContextSwitch = v
	case ParamFork:
		p.CostFork = v
	case ParamWakeup:
		p.CostWakeup = v
	case ParamTimerIRQ:
		p.TimerIRQ = v
	case ParamIdleExit:
		p.IdleExit = v
	case ParamExit:
		p.CostExit = v
	case ParamExec:
		p.CostExec = v
	case ParamThreadStart:
		p.CostThreadStart = v
	case ParamStartCached:
		p.CostThreadStartCached = v
	case ParamYield:
		p.CostYield = v
	case ParamLLCSize:
		p.LLCSize = v
	case ParamBalance:
		p.BalanceInterval = v
	case ParamResched:
		p.CostResched = v
	case ParamTickPhase:
		p.TickPhase = v
	case ParamIdleResched:
		p.IdleResched = v
	case ParamIPI:
		p.CostIPI = v
	case ParamBlock:
		p.CostBlock = v
	case ParamNoiseTimer:
		p.NoiseTimer = v
	case ParamNoiseResch:
		p.NoiseResched = v
	case ParamNoiseSwitch:
		p.NoiseSwitch = v
	default:
		return false
	}
	return true
}

// Values returns the parameters by name, for reports. The idle-switch,
// IPI, blocking-call, thread-start and noise parameters (added after reports were fixed) are listed
// only when set, so a report of a run without them is as it was.
func (p Params) Values() map[string]int64 {
	m := map[string]int64{
		ParamHZ:        p.HZ,
		ParamCtxSwitch: p.CostContextSwitch,
		ParamFork:      p.CostFork,
		ParamWakeup:    p.CostWakeup,
		ParamTimerIRQ:  p.TimerIRQ,
		ParamIdleExit:  p.IdleExit,
		ParamExit:      p.CostExit,
		ParamExec:      p.CostExec,
		ParamYield:     p.CostYield,
		ParamLLCSize:   p.LLCSize,
		ParamBalance:   p.BalanceInterval,
		ParamResched:   p.CostResched,
		ParamTickPhase: p.TickPhase,
	}
	for name, v := range map[string]int64{ParamIdleResched: p.IdleResched, ParamIPI: p.CostIPI, ParamBlock: p.CostBlock, ParamThreadStart: p.CostThreadStart, ParamStartCached: p.CostThreadStartCached,
		ParamNoiseTimer: p.NoiseTimer, ParamNoiseResch: p.NoiseResched, ParamNoiseSwitch: p.NoiseSwitch} {
		if v != 0 {
			m[name] = v
		}
	}
	return m
}

// IsParam says whether name is an engine parameter (not a class's tunable).
func IsParam(name string) bool {
	for _, t := range ParamTunables() {
		if t.Name == name {
			return true
		}
	}
	return false
}
