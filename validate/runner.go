package validate

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"schedlab/lab"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// The host runner's start, as a VM run records it. A measured run is not
// the workload alone: the runner's root process (host/worker.c's root,
// comm schedlab-root) is the first task of the workload's session, and
// its pid tree is what the analysis takes for the workload
// (analyze.WorkloadFilter), so its own CPU time is in the shares and its
// threads' wakeups are samples. On the VM it does three things the
// simulation of the file alone lacks:
//
//   - It is still in its busy-loop calibration (calibrate()) when the
//     launcher turns tracing on and sends the go byte: the runner does not
//     wait for it. That is VMRunnerStart of CPU time before anything of
//     the workload exists, on the workload's CPU.
//   - It creates its watch thread (watch_runner, comm schedlab-root),
//     which runs once and blocks on the go pipe until the end: a new
//     task's wakeup, and so a sample, which on one vCPU waits behind
//     whatever the forks after it start (a busy loop's whole first slice).
//   - It then spawns the initial threads one by one, in the order of
//     their delays (file order for equal delays), VMRunnerSpawn apart,
//     and blocks (wait_threads) for the rest of the run.
//
// Measured once, from the trace of `schedlab measure --kernel debian-6.1
// wakeup-latency --cpus 0 --duration 3s --trace` (Linux
// 6.1.0-57-cloud-amd64, one vCPU, TCG icount, 2026-12-01), and seen the
// same in three more traced runs (sleeper-vs-hog, fidelity's
// sleeper-under-hogs and wakeup-chain, 4 s each): the root is on the CPU
// for 20.03 ms (20.05, 20.13, 20.07 in the others) from the trace's start
// to its watch thread's fork, interrupted only by kernel threads; its
// forks are then 64–65 µs apart, the first at the watch thread's fork +
// 64 µs, and it blocks 4–7 µs after the last. The watch thread runs 9–10 µs
// and blocks. Held fixed for every kernel and workload (the root's code is
// the same; under icount its time is instructions).
//
// Of the 27 wakeups longer than 12 µs in those four traces (15 s, 2014
// samples), every one is the runner's: 10 at its start (the watch
// thread's 3.7–10.9 ms wait, the initial threads' own behind each other)
// and 17 at its end (the launcher's stop, below); none falls mid-run.
// The kernel's own threads (rcu_preempt, kworkers, kcompactd, ksoftirqd)
// took 0.008–0.085 % of the CPU mid-run, in runs of 4–7 µs at ticks, and
// delayed none of the 1982 workload wakeups mid-run: they are modelled
// below (VMKernelThreads) and simulated with GuestKernelThreads (on).
//
// The launcher's stop is modelled too (WithRunnerStop, below): the
// analysis of a recording takes every event up to the kill, and the
// launcher's own 2 ms before it, after the duration, decide some of the
// samples the kernel runs count.
const (
	VMRunnerStart = 20_000_000
	VMRunnerSpawn = 64_000
)

// The tick's phase at the run's start. The simulation draws where its
// time 0 falls in a jiffy from the seed (tick_phase_ns -1), as a program
// started at an arbitrary moment would; a VM run under icount does not
// start at an arbitrary moment on every kernel. The launcher forks the
// runner's root (os.StartProcess), adds it to the workload's cgroup,
// reads /proc/stat and turns tracing on (host.Run); what decides the
// phase is who runs after the fork. On debian-6.1 and debian-6.12 the
// root runs first and is already in its calibration (comm schedlab-root)
// when the trace starts: the launcher got the vCPU back only when the
// tick preempted the root's busy loop, and its own work from there to
// tracing_on is the same instructions every run, so every trace starts
// 265–322 µs after a tick (its first event 2–4 µs after the tick's
// softirq wakings, 8 traces of 6.1: 269 269 269 271 272 283 297 322; 5
// of 6.12: 265 271 273 275 282; median of the 13, 272 µs). The root is
// then on the CPU for 20 ms on 6.1 (19.8–20.1) and 16 ms on 6.12: the
// rest of its calibration, a whole number of ticks, so its first fork
// falls at the same phase (219–362 µs, one at 85). On debian-5.10 (one
// trace, two-hogs) and debian-unstable (Linux 7.2, four traces) the
// launcher runs on after the fork: the trace starts before the root has
// run at all (its first switch-in still has comm init), at a phase of
// the launcher's own timeline that differs by workload (5.10: 1591 µs;
// 7.2: 935, 1112, 1570, 1879 µs), and the root runs 31 ms before its
// first fork. There the simulation's phase stays drawn from the seed,
// unless the result kept each run's own phase (below, ForkPhaseNS).
// The phase is every run's, not only the first's after the warm-up: one
// boot of debian-6.12 making three 1 s runs of two-hogs (a build of
// measure that keeps each run's trace) starts them 285, 276 and 263 µs
// after a tick, and each has the same start (the second hog waits
// 3.6–3.7 ms behind the first, until the tick); one of debian-6.1, 269,
// 280 and 269 µs.
//
// The root's calibration takes as long as its loop's instructions, and
// they differ by kernel: from the recording's start (host.Run's Start,
// the go byte) to the watch thread's fork, 6.1 20.02–20.04 ms (three runs
// of one boot of sleeper-under-hogs), 6.12 16.04, 16.02 and 12.04 ms (three; 16 in five earlier traces), 5.10 30.95–30.96 (three)
// and 7.2 31.03, 31.11 and 31.87 ms (three; the launcher runs after the
// fork on these two, and the trace starts before the root has run). That
// decides where the workload's grid falls against the run's end, and so
// what the launcher's stop meets (WithRunnerStop): on 5.10 and 7.2 the
// periodic task's last expiry falls in the launcher's walk. So the root
// runs vmRunnerStarts' time of its kernel (VMRunnerStart for a kernel not
// listed), less the switch-in and the fork the simulation adds (20 µs).
//
// Traces: `schedlab measure --kernel K SCENARIO --cpus 0 --trace`, one
// vCPU, TCG icount, HZ 250, 2026-12-01: 6.1 wakeup-latency, sleeper-vs-hog,
// sleeper-under-hogs, wakeup-chain, two-hogs, fork-under-hogs (with and
// without START_DEBIT), wakeup-granularity; 6.12 wakeup-chain, nice-pair,
// wakeup-latency's SIGEV_THREAD, sleeper-vs-hog, wakeup-latency; 7.2
// wakeup-chain, nice-pair, sleeper-vs-hog, wakeup-latency; 5.10 two-hogs.
const VMRunnerTickPhase = 272_000

// vmTickAligned are the kernel generations whose runs start
// VMRunnerTickPhase after a tick.
var vmTickAligned = [][2]int{{6, 1}, {6, 12}}

// runnerTickPhase is the tick phase of a VM run's start on a kernel of
// that release, if its runs start at a fixed one (above).
func runnerTickPhase(release string) (int64, bool) {
	v, ok := parseRelease(release)
	if ok && slices.Contains(vmTickAligned, [2]int{v[0], v[1]}) {
		return VMRunnerTickPhase, true
	}
	return 0, false
}

// vmRunnerStarts are the root's calibration by kernel generation (above).
var vmRunnerStarts = map[[2]int]int64{{6, 1}: 20_000_000, {6, 12}: 16_000_000, {5, 10}: 30_930_000, {7, 2}: 31_090_000}

// runnerStart is how long the runner's root calibrates on a kernel of
// that release before its first fork (VMRunnerStart if not measured).
func runnerStart(release string) int64 {
	if v, ok := parseRelease(release); ok {
		if d, ok := vmRunnerStarts[[2]int{v[0], v[1]}]; ok {
			return d
		}
	}
	return VMRunnerStart
}

// RunnerComm is the runner's root and watch thread's comm.
const RunnerComm = "schedlab-root"

// WithRunner returns a copy of spec whose initial threads are started as
// the host runner starts them (above): a root task, RunnerComm, that runs
// calib (runnerStart), forks its watch thread (which suspends for good), forks
// each initial thread in the order of its delay, VMRunnerSpawn apart
// (cost_fork_ns of it the fork's own), and suspends. Every initial
// definition becomes a template the root forks; a definition of several
// instances becomes one template per instance, named as the engine names
// an initial instance (NAME-i), so the threads keep their comms. fork is
// the fork's cost (cost_fork_ns) the root's step includes; a dearer fork
// makes the step the fork alone. The copy shares the events of spec.
func WithRunner(spec *workload.Spec, fork, calib int64) *workload.Spec {
	s := *spec
	s.Tasks = make([]*workload.Task, len(spec.Tasks), len(spec.Tasks)+4)
	type start struct {
		def   int
		delay int64
	}
	var starts []start
	split := map[int]int{} // a definition of several instances: its first copy
	for i, t := range spec.Tasks {
		c := *t
		s.Tasks[i] = &c
		if t.Instances == 0 {
			continue
		}
		c.Instances = 0
		if t.Instances == 1 {
			starts = append(starts, start{i, t.Delay})
			continue
		}
		split[i] = len(s.Tasks)
		for j := range t.Instances {
			inst := c
			inst.Name = fmt.Sprintf("%s-%d", t.Name, j)
			s.Tasks = append(s.Tasks, &inst)
			starts = append(starts, start{len(s.Tasks) - 1, t.Delay})
		}
	}
	remapResumes(&s, split)
	slices.SortStableFunc(starts, func(a, b start) int { return cmp.Compare(a.delay, b.delay) })
	watch := &workload.Task{Name: RunnerComm, Runner: true, Loop: 1, Phases: []*workload.Phase{{Loop: 1,
		Events: []workload.Event{{Kind: workload.Suspend, Key: "suspend", Cond: -1}}}}}
	s.Tasks = append(s.Tasks, watch)
	run := func(ns int64) workload.Event {
		return workload.Event{Kind: workload.Run, Key: "run", Dur: workload.Duration{Fixed: ns}}
	}
	ev := []workload.Event{run(calib), {Kind: workload.Fork, Key: "fork", Fork: len(s.Tasks) - 1}}
	var at int64
	for _, st := range starts {
		if st.delay > at {
			ev = append(ev, workload.Event{Kind: workload.Sleep, Key: "sleep", Dur: workload.Duration{Fixed: st.delay - at}})
			at = st.delay
		}
		if d := VMRunnerSpawn - fork; d > 0 {
			ev = append(ev, run(d))
		}
		ev = append(ev, workload.Event{Kind: workload.Fork, Key: "fork", Fork: st.def})
	}
	ev = append(ev, workload.Event{Kind: workload.Suspend, Key: "suspend", Cond: -1})
	s.Tasks = append(s.Tasks, &workload.Task{Name: RunnerComm, Runner: true, Instances: 1, Loop: 1,
		Phases: []*workload.Phase{{Loop: 1, Events: ev}}})
	return &s
}

// remapResumes points a resume whose fallback target (Event.TargetDef) is
// a definition split into one copy per instance at the first copy: the
// engine's fallback, the first live thread of the definition, is then the
// first instance's, as before the split (a later instance is found only by
// its name). The phases that hold such a resume are copied.
func remapResumes(s *workload.Spec, split map[int]int) {
	if len(split) == 0 {
		return
	}
	for i, t := range s.Tasks {
		var phases []*workload.Phase
		for j, ph := range t.Phases {
			for k, e := range ph.Events {
				to, ok := split[e.TargetDef]
				if e.Kind != workload.Resume || !ok {
					continue
				}
				if phases == nil {
					phases = slices.Clone(t.Phases)
				}
				if phases[j] == ph {
					c := *ph
					c.Events = slices.Clone(ph.Events)
					phases[j] = &c
				}
				phases[j].Events[k].TargetDef = to
			}
		}
		if phases != nil {
			c := *s.Tasks[i]
			c.Phases = phases
			s.Tasks[i] = &c
		}
	}
}

// VMColdCallback is the first SIGEV_THREAD callback's extra creation
// cost in the VM: in the trace of `wakeup-latency` above (297 expiries),
// glibc's helper thread takes 85 µs from its switch-in to the clone of the
// first callback thread and 16 µs (median; at most 31) for every later
// one, so the first callback starts 69 µs later than the rest, in every
// run (the kernels' timer max is 57–93 µs above their p99). glibc creates
// the callback threads with the default attributes: the first needs a new
// 8 MiB stack mapped (and its descriptor written into it, faulting its
// pages in); each later one reuses the stack of the callback before it,
// which has exited (glibc's stack cache). Held fixed for every kernel.
const VMColdCallback = 69_000

// WithColdCallback returns a copy of spec whose SIGEV_THREAD helpers spend
// cold more CPU time before their first callback's creation than before
// the others' (VMColdCallback). A helper is a task whose only phase waits
// on a timer with notify "thread" and then forks; its phase is split into
// a first pass, with the extra run before the fork, and the rest. A helper
// of another shape is left as it is.
func WithColdCallback(spec *workload.Spec, cold int64) *workload.Spec {
	s := *spec
	s.Tasks = slices.Clone(spec.Tasks)
	for i, t := range spec.Tasks {
		fork, ok := sigevHelperFork(spec, t)
		if !ok {
			continue
		}
		ph := t.Phases[0]
		first := *ph
		first.Events = slices.Insert(slices.Clone(ph.Events), fork, workload.Event{Kind: workload.Run, Key: "run", Dur: workload.Duration{Fixed: cold}})
		rest := *ph
		c := *t
		switch {
		case t.Loop < 0:
			rest.Loop = -1
			c.Phases = []*workload.Phase{&first, &rest}
		case t.Loop == 1:
			c.Phases = []*workload.Phase{&first}
		default:
			rest.Loop = t.Loop - 1
			c.Loop = 1
			c.Phases = []*workload.Phase{&first, &rest}
		}
		s.Tasks[i] = &c
	}
	return &s
}

// sigevHelperFork reports whether t is a SIGEV_THREAD helper of the shape
// the host runs (one phase, run once per loop: a timer with notify
// "thread", and a fork of the callback) and the fork's index in its phase.
func sigevHelperFork(spec *workload.Spec, t *workload.Task) (fork int, ok bool) {
	if len(t.Phases) != 1 || t.Phases[0].Loop != 1 || t.Loop == 0 {
		return -1, false
	}
	ev := t.Phases[0].Events
	helper := slices.ContainsFunc(ev, func(e workload.Event) bool {
		return e.Kind == workload.Timer && spec.Timers[e.Timer].Notify == "thread"
	})
	fork = slices.IndexFunc(ev, func(e workload.Event) bool { return e.Kind == workload.Fork })
	return fork, helper && fork >= 0
}

// The guest's own kernel threads, for the simulation of every VM run
// (sim.KernelThreads): measured once, from the traces of debian-6.1 above
// (`schedlab measure --kernel debian-6.1 SCENARIO --cpus 0 --trace`:
// wakeup-latency 3 s, sleeper-vs-hog, sleeper-under-hogs, wakeup-chain
// 4 s each; Linux 6.1.0-57-cloud-amd64, one vCPU, 2026-12-01), and held
// fixed for every kernel and workload (the grace period's length is the
// kernel's rule, vmCosts.rcuGPTicks). Each is a fair-class nice-0 task
// woken from the tick's softirq, VMKThreadWake after the jiffy's start
// (the wakings fall 3–4 µs after it); its run is its traced span from
// switch-in to switch-out less the engine's context switch on 6.1
// (VMContextSwitch, 3.2 µs), and it takes no cost_block_ns (its way into
// schedule() is in the span).
//
//   - rcu_preempt, the RCU grace-period kthread: every thread exit queues
//     a callback (put_task_struct_rcu_user's call_rcu), and at the first
//     tick after it the kthread is woken to start a grace period, then
//     again at the tick that ends it, which starts the next at once if
//     callbacks came meanwhile. In wakeup-latency, 300 callback exits in
//     3 s, each 66 µs after a fork and 1.3–2.5 ms before a tick, make
//     601 wakeups: the first tick after each exit and the next. Its span
//     is 3.79 µs (mean of 628 in the four traces; 3–5 µs): VMRCURun
//     0.6 µs.
//   - kcompactd0: every 512 ms to the µs (125 jiffies of HZ/2 put on the
//     timer wheel's 8-jiffy grain), span 5.64 µs (28): 2.4 µs.
//   - kworker/0:2 (the CPU's workqueue: vmstat and the like): 11 wakeups
//     in 3744 ms of sleeper-vs-hog, irregular (8 ms to 1 s apart), so a
//     period of 340 ms, span 5.96 µs (47): 2.8 µs.
//   - kworker/u2:2 (the unbound workqueue): 2 intervals of 352 and
//     1664 ms, a period of 1 s, span 6.92 µs (12): 3.7 µs.
//
// The first due time of a periodic thread is drawn from the run's seed.
// ksoftirqd and migration, once a run, are left out. Not modelled
// either: the callbacks of other origins (the runner's own start queues
// some on 6.1 and 6.12, the launcher some before it), which make 3–8 of
// the grace periods of a trace without thread exits.
const (
	VMKThreadWake   = 4000
	VMRCURun        = 600
	VMKcompactdRun  = 2400
	VMKcompactdEach = 512_000_000
	VMKworkerRun    = 2800
	VMKworkerEach   = 340_000_000
	VMUnboundRun    = 3700
	VMUnboundEach   = 1_000_000_000
)

// The launcher's heartbeat. The guest's init (the launcher, vm/guest.go's
// heartbeat) sends the host a frame every second of guest time, through
// the whole run: a Go timer (time.After) in init's root cgroup, outside the
// workload's, so not in its samples or shares. Measured once, from three
// traced runs in one boot of `schedlab measure --kernel debian-6.12
// fidelity/workloads/sleeper-under-hogs.json --cpus 0 --duration 4s
// --features NO_PLACE_LAG` (Linux 6.12.95+deb12-cloud-amd64, one vCPU,
// TCG icount, 2026-12-01; a build keeping every run's trace): every
// 1000.04 ms (1000.041, 1000.052 apart) the timer interrupt wakes init's
// timer thread mid-tick (the wakings carry the hardirq flag, at no fixed
// phase of the tick: 1.6 ms, 3.8 ms and 0.6 ms after one in three runs),
// which runs 35–46 µs (9 µs for the first frame of a run) and wakes
// another of its threads, that runs 6–9 µs twice at later switches. The
// phase of the second within the run differs from run to run (460 ms
// after the first run's start, 897 and 900 ms after the others'), so the
// simulation draws it from the seed. Held fixed for every kernel and
// workload (the launcher's code is the same; under icount its time is
// instructions); the other thread's short runs, which come at switches
// already made, are left out.
//
// On most cases the heartbeat moves nothing: four wakeups of 40 µs in a
// 4 s run. On EEVDF 6.12 with NO_PLACE_LAG it makes the tail: a task
// waking from a sleep is placed at V with zero lag and wins the next
// pick only narrowly, and the heartbeat's wakeup, by rescheduling a hog
// mid-tick (6.12's update_curr reschedules a curr whose deadline it
// renews, at any wakeup), reorders the hogs so that the periodic task
// loses a whole tick more: 1–2 of its wakeups a second wait 6 or 8 ms
// instead of 2 or 4 (8, 5 and 3 in the three traced runs; none in two
// boots of one run, whose heartbeat fell at another phase of the periodic
// task's 10 ms). Simulated, the same: 7 of 20 seeds give that case a timer
// maximum of 6–8 ms, the rest 4 ms, so with FIDELITY.md's 3 seeds it is
// the seeds' luck, as it is the boot's on the kernel. It is simulated with
// the guest's kernel threads (VMKernelThreads, GuestKernelThreads), on
// by default. The measurement should rather lose it: a heartbeat that
// waits while a run is measured would leave the runs without it.
const (
	VMHeartbeatEach = 1_000_040_000
	VMHeartbeatRun  = 36_000
)

// VMHeartbeat is the launcher's heartbeat as one of the guest's threads
// (a periodic thread woken by an hrtimer, in the root group).
var VMHeartbeat = sim.PeriodicThread{Comm: "init", Run: VMHeartbeatRun, Period: VMHeartbeatEach, HRTimer: true}

// GuestKernelThreads makes the simulation of a VM run add the guest's
// kernel threads and the launcher's heartbeat (VMKernelThreads). It is on:
// they are what else runs in the guest, each measured from traces. It was
// off while they agreed with no more of the kept kernel runs than the
// model without them (598 of 696 figures against 600 before the threads'
// start costs, 597 against 592 after them). With the launcher's stop, the
// runs' own tick phases, the callbacks numbered from the kernel's signals
// and the fork-time locks, they do (2026-12-01, FIDELITY.md's 74 cases):
// 620 of 696 against 614, more than 2× off 61 against 63, toggles 17 of
// 19 either way. What they move is still mostly tick-rounded tails and
// medians of two-population samples, either way. `schedlab fidelity
// --kernel-threads=false` (KERNEL_THREADS=0 scripts/fidelity.sh) leaves
// them out.
var GuestKernelThreads = true

// VMKernelThreads is the guest's kernel threads for a kernel whose grace
// period on one CPU takes gpTicks ticks.
func VMKernelThreads(gpTicks int64) *sim.KernelThreads {
	return &sim.KernelThreads{
		WakeDelay: VMKThreadWake,
		Periodic: []sim.PeriodicThread{
			{Comm: "kcompactd0", Run: VMKcompactdRun, Period: VMKcompactdEach},
			{Comm: "kworker/0:2", Run: VMKworkerRun, Period: VMKworkerEach},
			{Comm: "kworker/u2:2", Run: VMUnboundRun, Period: VMUnboundEach},
			VMHeartbeat,
		},
		RCU: &sim.RCUThread{Comm: "rcu_preempt", Run: VMRCURun, GPTicks: gpTicks},
	}
}

// The launcher's stop, as a VM run records it. host.Run's timer fires at
// the duration; the launcher (the guest's init, a Go program, outside the
// workload) then walks /proc for the session's pids (killSession) with
// tracing still on, and SIGKILLs them: the runner's root and watch
// thread, blocked since the start, are woken, as is every other thread
// asleep, and every thread of the session exits at its next switch-in.
// The analysis takes all of it (the trace ends when the last is reaped),
// so a workload wakeup in the walk waits for it, and the two runner
// threads' wakeups are samples of every run. Measured once, from three runs of one boot of debian-6.1
// (`sleeper-under-hogs`, one vCPU, 4 s, seed 1–3, 2026-12-01), times
// after the run's start + its duration, the same to 1 µs in each run
// but where the walk's own work differs:
//
//   - init's Go runtime monitor (sysmon) wakes every 78.7 µs from +79
//     µs, 6 µs each (a 6 µs span less the 3.2 µs switch: VMStopSpinRun),
//     sleeping 67 µs from its switch-out to its next waking (VMStopSpinSleep,
//     less the engine's timer path), until the walking thread is woken at
//     +790 µs; on 6.1 its next wakeup (+869 µs) waits for the walk's end
//     (the walker has the CPU by CFS's rules), but on 7.2 it goes on every
//     80 µs through the walk, which is time-sliced with it and with the
//     workload's group, and the kill comes at +5.0 and +5.4 ms (two traced
//     runs of `sleeper-under-hogs` on 7.2.13, the same day);
//   - the walk: from its switch-in at +801 µs to the first SIGKILL waking
//     2027, 2054 (it woke the periodic task in the walk) and 2037 µs:
//     VMStopWalk 2037 µs;
//   - the kill wakes the root, then the watch thread 4 µs later, and init
//     runs 13 µs more, then its monitor thread 6 µs; the root runs 23 µs
//     after its waking (23, 39, 23), the watch thread 31 (31, 47, 32)
//     after its own, each exiting in 8–12 µs. The simulated kill wakes
//     them at once; VMStopAfter is the walker's 4 + 13 µs after it (17
//     µs), the monitor's run follows;
//   - the killed workload tasks were all runnable in these runs (a timer
//     task woken in the walk waits for its end: the periodic task's last
//     expiry, 1073 µs in the run whose grid fell there); a thread asleep
//     at the kill is woken by it, a sample too (`sigev-thread`'s helper
//     and its main thread, 51 and 64 µs after their wakings, behind the
//     runner's two, in a traced run of the same day: there they make the
//     wakeup p50, 63–66 µs on the kept runs).
//
// So the simulation of a VM run has a launcher (sim.Launcher): a task
// outside the workload, left out of the samples and the table like a
// kernel thread, that wakes VMStopWake after the duration, runs
// VMStopWalk, kills the workload (every thread woken if asleep, the
// runner's two among them, and exiting at its next run), runs VMStopAfter
// and sleeps, and its monitor thread, from VMStopSpinAt; the run ends
// when the last thread has exited, at most VMStopEnd after the duration.
// Held fixed for every kernel and case: what differs between 6.1 and 7.2
// is the class's, not the launcher's.
const (
	VMStopWake  = 790_000
	VMStopWalk  = 2_037_000
	VMStopAfter = 17_000
	VMStopEnd   = 10_000_000

	VMStopSpinAt    = 79_000
	VMStopSpinRun   = 2_800
	VMStopSpinSleep = 65_000
)

// LauncherComm is the launcher's comm (the guest's init).
const LauncherComm = "init"

// WithRunnerStop returns the launcher's stop of a WithRunner spec, for a
// run of duration ns (above), and the simulation's length, duration +
// VMStopEnd. A spec without the runner has no stop (ok false).
func WithRunnerStop(spec *workload.Spec, duration int64) (launcher *sim.Launcher, length int64, ok bool) {
	n := len(spec.Tasks)
	if n < 2 || spec.Tasks[n-1].Name != RunnerComm || spec.Tasks[n-2].Name != RunnerComm {
		return nil, duration, false
	}
	return &sim.Launcher{Comm: LauncherComm, At: duration + VMStopWake, Walk: VMStopWalk, After: VMStopAfter,
		SpinAt: duration + VMStopSpinAt, SpinRun: VMStopSpinRun, SpinSleep: VMStopSpinSleep}, duration + VMStopEnd, true
}

// The tick's phase of each VM run, measured. Under icount the guest's
// jiffies fall on multiples of 10^9/HZ ns of the trace's clock (on
// debian-unstable's wakeup-chain trace every softirq waking lies 4–17 µs
// after one, 190 of 190), so a recording says where in a jiffy its run
// started: the runner's root's first fork (its watch thread), after which
// the workload's timers are armed. A result whose every kernel run carries
// it (RunStats.ForkPhaseNS, measured since 2026-12-01 evening) is
// simulated at those phases, run i at kernel run i's, instead of the
// kernel's fixed one (VMRunnerTickPhase) or a seeded one: on 7.2 a run's
// phase is not the same from run to run of one boot (wakeup-chain's
// kept runs are two at a phase where the chain's first wakeup waits out
// the busy loop's request and one where it never does), so no constant
// can stand for it, and three seeded phases need not fall where the
// kernel's did. This is the start the kernel run had, not a fit: the
// simulation is told it as it is told the kernel's HZ and features.

// runnerForkPhase is where in a jiffy of tickNS the recording's root
// first forked, if it did.
func runnerForkPhase(traceText []byte, root int, tickNS int64) (int64, bool) {
	if root <= 0 || tickNS <= 0 {
		return 0, false
	}
	s := &firstFork{pid: int32(root), at: -1}
	if _, err := trace.Parse(bytes.NewReader(traceText), s); err != nil || s.at < 0 {
		return 0, false
	}
	return s.at % tickNS, true
}

// firstFork keeps the time of pid's first fork.
type firstFork struct {
	pid int32
	at  int64
}

func (f *firstFork) Event(e *trace.Event) {
	if f.at < 0 && e.Kind == trace.Fork && e.PID == f.pid {
		f.at = e.TS
	}
}

// simForkAt is when the simulated runner's root, calibrating calib ns
// (runnerStart), first forks in the simulation req at tick phase 0: the
// run is cut two jiffies after calib, before the launcher's stop.
// Nothing but the root runs until then, so the time does not depend on
// the phase (the test checks it).
func simForkAt(req lab.Request, calib int64) (int64, bool) {
	req.Keep = lab.Keep{}
	f := &firstFork{at: -1}
	req.Keep.Sink = &rootForks{f: f}
	req.Duration = time.Duration(calib + 2*(1e9/req.Tunables[sim.ParamHZ]))
	req.Tunables = maps.Clone(req.Tunables)
	req.Tunables[sim.ParamTickPhase] = 0
	req.Kernel = nil
	if _, err := lab.Simulate(req); err != nil || f.at < 0 {
		return 0, false
	}
	return f.at, true
}

// rootForks feeds firstFork the forks of the runner's root, whatever its
// pid.
type rootForks struct{ f *firstFork }

func (r *rootForks) Event(e *trace.Event) {
	if e.Kind == trace.Fork && e.Comm == RunnerComm && e.ChildComm == RunnerComm && r.f.at < 0 {
		r.f.at = e.TS
	}
}

// phaseFor is the engine's tick_phase_ns that puts the simulated root's
// first fork, forkAt ns into the run, at phase ns after a tick.
func phaseFor(phase, forkAt, tickNS int64) int64 {
	return ((phase-forkAt)%tickNS + tickNS) % tickNS
}

// phaseList prints phases in µs, comma-separated.
func phaseList(ps []int64) string {
	var b []byte
	for i, p := range ps {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Appendf(b, "%.0f", float64(p)/1e3)
	}
	return string(b)
}
