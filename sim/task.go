package sim

import (
	"fmt"
	"unsafe"

	"schedlab/sched"
	"schedlab/uapi"
	"schedlab/workload"
)

type taskState uint8

const (
	stNew      taskState = iota
	stRunnable           // running or waiting on a run queue
	stSleeping
	stDead
)

// action is what a task does once its current CPU work is used up.
type action uint8

const (
	actStep   action = iota // go on with the program's next event
	actFork                 // clone() finishes: create the child
	actYield                // the sched_yield() system call takes effect
	actExit                 // exit() finishes
	actResume               // a resume's system call reaches try_to_wake_up
	actBlock                // a blocking call (sleep, timer wait, suspend) reaches schedule()
	actKill                 // the launcher's kill() reaches the workload (kthreads.go)
)

// mark identifies a timer expiry whose callback has not started yet.
type mark struct {
	timer int32
	set   bool
	seq   int64
}

// Task is a simulated thread running a workload program.
//
// The fields a task's wakeups, switches, work and program steps touch
// (and the CPU's sync) are its first 320 bytes, five cache lines, with
// what the class sees (sched.Task's hot part) last among them; the rest
// (fork, sync objects, resume, affinity, rare flags) follows, in lines a
// cycle of the task does not reach. With 10,000 tasks asleep, each
// wakeup finds its task gone from the caches, and every line it reaches
// is a miss and a line more that the others' must share the cache with:
// the lines held for each sleeper decide whether they all fit (on the
// machine of issue 16 a random load costs 6-55 ns within 4 MiB and
// 110-180 ns beyond 8; BenchmarkMemoryChase). TestTaskHotPart checks the
// hot part's bounds; warm reads its lines.
type Task struct {
	state  taskState
	onRQ   bool
	action action
	// settled: step has nothing to do before the event (settle).
	settled bool
	// stepped: first has been set by the thread's first step.
	stepped bool
	// ownSched: a forked thread still has its parent's policy and nice,
	// and sets its own when it first steps its program.
	ownSched bool
	// regroup: a phase moves it to task group regroupTo at its next
	// schedule() (phaseprops.go).
	regroup bool
	// kernel: one of the machine's kernel threads (kthreads.go).
	kernel bool
	// inheritedResched is TIF_NEED_RESCHED copied from the parent at
	// fork: the child reschedules as soon as it is switched in.
	inheritedResched bool
	// ownBal: its class places and moves it (real-time), not the fair
	// balancing (classes.go).
	ownBal bool
	// pinned: allowed is not empty (setAllowed). schedule() and the
	// wakeup's placement test it at every switch and wakeup, and
	// allowed is in a line that they touch for nothing else.
	pinned bool
	// suspended: blocked in a suspend event; resumed: a resume arrived
	// while it was not suspended (the next suspend returns at once).
	suspended, resumed bool
	// inputWake makes the next timer-driven wakeup an input wakeup.
	inputWake bool
	// classSwitch: its policy moves it to another class at its next
	// schedule() (setClass), to newPolicy and newNice.
	classSwitch bool

	// The CPU work in progress (what follows it is action) and the CPU
	// time run: what the CPU's sync touches.
	work    int64
	runtime int64

	wakeT    timer
	doneT    timer
	deadline int64 // wall-clock end of a runtime event; 0 otherwise
	def      *workload.Task
	e        *Engine
	lastRan  int64 // when it last left a CPU (cache-cold tasks move first)

	// Program position: phase index, events done in it, loops left.
	phase       int
	event       int
	phaseLoops  int
	threadLoops int

	rqIdx int   // index in its CPU's queued list, −1 when not queued
	loadW int64 // the weight it added to its CPU's load when queued
	// rl is its rt-app log, when the run keeps them (rtapplog.go).
	rl *RtappLog
	// blockEv is the blocking event whose way into schedule() is in
	// progress (cost_block_ns).
	blockEv *workload.Event

	// resumeMark is emitted as a callback start when the task next steps
	// its program; pendingWake is the mark an rt-app timer wakeup will
	// set.
	resumeMark, pendingWake mark

	st sched.Task // what the class sees; its hot part ends the Task's

	// The rest is rarely touched.
	//
	// forkMark is handed to the next child it forks.
	forkMark mark
	// pins counts the POSIX timers that name it (owner, waiter): a
	// pinned task is not recycled when it exits (taskpool.go).
	pins int32
	// startSpent: the thread has run its setup (step, threadstart.go);
	// cachedStack: it was created on a stack its group had cached.
	startSpent, cachedStack bool
	// forkLocked: t is in a process fork, holding its group's fork-time
	// locks until its next step (threadstart.go).
	forkLocked bool
	// lockWait: t waits for another thread's fork-time locks.
	lockWait bool
	// first anchors the thread's timer grid: the moment it first steps its
	// program, as host/worker.c's run_thread takes th->first when the
	// thread runs its body. A thread woken behind a busy task starts when
	// the scheduler first gives it the CPU (on a tick-driven kernel, at a
	// tick), and its timers keep that phase against the tick.
	first     int64
	startT    timer
	allowed   []int // CPU affinity; empty means every CPU
	forkDef   int
	liveIdx   int // index in the engine's live list, −1 once exited (alive.go)
	newPolicy uapi.Policy
	newNice   int
	// token is an input event's sample that this task carries: a resume
	// hands it to the resumed task and latency_end ends it.
	token mark
	// resumeEv is the resume event whose system call is in progress.
	resumeEv *workload.Event
	// own holds this thread's private ("unique…") rt-app timers.
	own []ownTimer
	// sy is its part in mutexes, conditions, barriers (sync.go).
	sy        syncState
	regroupTo *sched.Group

	// The padding makes a Task 576 bytes, nine cache lines, so that
	// every Task of a block (newTask1) starts on a line.
	_ [16]byte
}

// taskHotBytes is how much of a Task, from its start, a cycle of the
// task (wakeup, switch, work, program step) touches: through the hot
// part of st. warm reads these lines.
const taskHotBytes = unsafe.Offsetof(Task{}.st) + sched.HotBytes

// complete runs when t, on its CPU, has used up its CPU work: it performs
// the pending action and steps through the program until the task needs CPU
// time again, blocks, exits, or must first let the scheduler run (a fork or
// yield that set need_resched returns to user space through schedule()).
// c is t's CPU.
func (e *Engine) complete(c *CPU, t *Task) {
	// The bound and the error are tested before each further turn, not
	// before the first: the event was dispatched without an error.
	for n := 1; ; n++ {
		// Most work that ends is a run event's: the next step is
		// tested first, the system calls' returns apart (act).
		if t.action == actStep {
			t.deadline = 0
			e.step(t)
		} else if !e.act(c, t) {
			return
		}
		if t.state != stRunnable {
			return
		}
		if t.work > 0 || c.needResched {
			e.q.arm(&t.doneT, e.now+t.work)
			return
		}
		if n == 1_000_000 {
			e.err = &WorkloadError{Msg: fmt.Sprintf("task %s (pid %d) makes no progress at %d ns: a million of its events in a row took no time (the last %s); give one of them run or sleep time",
				t.st.Comm, t.st.PID, e.now, t.doing())}
			return
		}
		if e.err != nil { // a fork over the thread bound
			return
		}
	}
}

// act performs t's action other than a step, at the end of its system
// call's CPU work, and reports whether t goes on (not after an exit).
func (e *Engine) act(c *CPU, t *Task) bool {
	// A preemption that arrived during the system call's CPU work
	// takes effect on its return to user space (deferResched).
	pending := c.needResched
	switch t.action {
	case actFork:
		e.fork(t)
		t.action, t.work = actStep, 0
	case actYield:
		e.class.Yield(c, &t.st)
		c.schedNow()
		t.action, t.work = actStep, 0
	case actExit:
		e.exit(t)
		return false
	case actResume:
		e.resume(t, t.resumeEv)
		t.action, t.work, t.resumeEv = actStep, 0, nil
	case actKill:
		t.action, t.work = actStep, 0
		e.kill(t)
	case actBlock:
		ev := t.blockEv
		t.action, t.work, t.blockEv = actStep, 0, nil
		e.blockEvent(t, ev)
	default:
		e.syncAction(t) // sync.go
	}
	if pending {
		c.schedNow()
	}
	return true
}

// step executes the program's next event.
func (e *Engine) step(t *Task) {
	if !t.settled && e.settle(t) {
		return
	}
	if t.resumeMark.set {
		e.emitMark(t, markCallback, t.resumeMark, 0)
		t.resumeMark = mark{}
	}
	t.logStep()
	ev := t.next()
	if t.regroup {
		// A new phase's task group: pass through schedule() first
		// (moveGroup), then run the phase's first event.
		t.event--
		t.work, t.action = 0, actStep
		e.cpus[t.st.CPU].schedNow()
		return
	}
	if ev == nil {
		t.work, t.action = e.p.CostExit, actExit
		return
	}
	switch ev.Kind {
	case workload.Run:
		t.work, t.action = e.draw(&ev.Dur), actStep
		t.logEvent(ev, t.work)
	case workload.Runtime:
		d := e.draw(&ev.Dur)
		t.work, t.action, t.deadline = d, actStep, e.now+d
		t.logEvent(ev, d)
	case workload.Sleep, workload.Timer, workload.Suspend:
		// A suspend on a rendezvous (rt-app 1.0) is a condition wait:
		// no resume is remembered for it.
		if ev.Kind == workload.Suspend && ev.Cond < 0 && t.resumed {
			t.resumed = false
			t.work, t.action = 0, actStep
			return
		}
		// The system call's way into schedule() (cost_block_ns and the
		// reschedule noise), spent before the task blocks. An rt-app timer
		// already passed is charged too: rt-app reads the clock before it
		// decides not to sleep. A kernel thread's way is in its burst.
		if t.kernel {
			e.blockEvent(t, ev)
			return
		}
		if d := e.p.CostBlock + e.noise(e.p.NoiseResched); d > 0 {
			t.work, t.action, t.blockEv = d, actBlock, ev
			return
		}
		e.blockEvent(t, ev)
	case workload.Fork:
		t.work, t.action, t.forkDef = e.p.CostFork, actFork, ev.Fork
		if e.spec.Tasks[ev.Fork].Process {
			e.lockForFork(t) // threadstart.go
		}
	case workload.Yield:
		t.work, t.action = e.p.CostYield, actYield
	case workload.Resume:
		// The waker's system call and try_to_wake_up take CPU time
		// before the wakee is woken.
		t.work, t.action, t.resumeEv = e.p.CostWakeup, actResume, ev
		if t.kernel && ev.Key == killKey {
			t.resumeEv, t.action = nil, actKill
		}
	case workload.LatencyEnd:
		if t.token.set {
			e.emitMark(t, markCallback, t.token, 0)
			t.token = mark{}
		}
		t.work, t.action = 0, actStep
	default:
		e.syncStep(t, ev) // sync.go
	}
}

// settle is what a thread does at a step before its event until it has
// done it once: give back the fork-time locks after a process fork, run
// its setup and anchor its timers at its first step, set its own policy
// after a fork. It reports whether that ends the step (the setup, or a
// wait for another thread's fork-time locks). Then t is settled, and
// step tests one flag instead of three, the rarest in a cold line of
// the Task; lockForFork unsettles it.
func (e *Engine) settle(t *Task) bool {
	if t.forkLocked {
		e.unlockAfterFork(t) // threadstart.go
	}
	if !t.stepped {
		// The runner's per-thread setup comes before the clock read that
		// anchors the thread's timers (threadstart.go); a SIGEV_THREAD
		// callback marks its start before it (sigev_callback's first act).
		if d := e.threadStart(t); d > 0 && !t.startSpent {
			if e.waitForForkLock(t) {
				return true
			}
			t.startSpent = true
			if t.resumeMark.set {
				e.emitMark(t, markCallback, t.resumeMark, 0)
				t.resumeMark = mark{}
			}
			t.work, t.action = d, actStep
			return true
		}
		t.stepped, t.first = true, e.now
	}
	if t.ownSched {
		e.applyOwnSched(t)
	}
	t.settled = true
	return false
}

// blockEvent runs a sleep, a timer wait or a suspend: t blocks (or, for a
// timer already passed or a resume already arrived, goes on).
func (e *Engine) blockEvent(t *Task, ev *workload.Event) {
	switch ev.Kind {
	case workload.Sleep:
		d := e.draw(&ev.Dur)
		e.block(t)
		if e.p.IdleExit > 0 {
			// Whether the CPU is idle is known only when the timer fires.
			t.wakeT.phase = wakeSleepEnd
			e.q.arm(&t.wakeT, e.now+d)
		} else {
			t.wakeT.phase = wakeNow
			e.q.arm(&t.wakeT, e.now+d+e.p.timerWakeDelay()+e.noise(e.p.NoiseTimer))
		}
	case workload.Timer:
		e.timerEvent(t, ev)
	case workload.Suspend:
		if ev.Cond >= 0 {
			e.suspendOn(t, ev.Cond) // sync.go
			return
		}
		if t.resumed {
			t.resumed = false
			t.work, t.action = 0, actStep
			return
		}
		t.suspended = true
		e.block(t)
	}
}

// next advances t's program counter and returns the event to execute, or
// nil when the thread's loops are done. Every phase has at least one event
// (the parser guarantees it), so this terminates.
func (t *Task) next() *workload.Event {
	phases := t.def.Phases
	for {
		// phase is −1 before the first, else a valid index; the event
		// index is never negative. The unsigned tests say so to the
		// compiler, which then checks neither index again.
		if p := t.phase; uint(p) < uint(len(phases)) {
			ph := phases[p]
			if i := t.event; uint(i) < uint(len(ph.Events)) {
				if i == 0 {
					t.logLoopStart()
				}
				t.event = i + 1
				return &ph.Events[i]
			}
			t.logLoopEnd()
			t.event = 0
			if t.phaseLoops > 0 {
				t.phaseLoops--
			}
			if t.phaseLoops != 0 {
				continue
			}
		}
		t.phase++
		if t.phase == len(phases) {
			t.phase = 0
			if t.threadLoops > 0 {
				t.threadLoops--
			}
			if t.threadLoops == 0 {
				return nil
			}
		}
		t.enterPhase(phases[t.phase])
	}
}

// enterPhase applies a phase's properties: rt-app sets them when the phase
// begins and they stay for later phases.
func (t *Task) enterPhase(ph *workload.Phase) {
	t.phaseLoops = ph.Loop
	t.phaseAffinity(ph)
	t.phaseGroup(ph)
	if ph.Props.Nice != nil && *ph.Props.Nice != t.st.Nice {
		c := t.e.cpus[t.st.CPU]
		if t.onRQ {
			t.e.loadAdd(c, t, -1)
		}
		t.e.class.SetNice(c, &t.st, *ph.Props.Nice)
		if t.onRQ {
			t.e.loadAdd(c, t, 1)
		}
	}
}
