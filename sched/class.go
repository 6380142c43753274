// Package sched is the contract between the simulation engine and the
// scheduling policies it runs.
//
// A policy is a kernel scheduling class: it owns its run-queue state and
// answers the hooks the kernel's core scheduler calls (enqueue, dequeue, pick
// next, put prev, wakeup preemption, tick, fork, yield, migration, exit),
// each given the run queues it acts on. The engine owns time, CPUs, tasks
// and timers, and reaches a policy only through Class. A kernel generation
// is a Profile: a constructor plus the features and tunables that
// generation had, with their defaults. Profiles register themselves with
// Register, so adding one touches no engine code.
//
// The package also holds what every fair class shares: the nice-to-weight
// tables and the kernel's fixed-point arithmetic.
package sched

import "schedlab/uapi"

// Task is what a scheduling class sees of a task. The engine creates it and
// keeps its identity fields current; Sched belongs to the class.
//
// The fields are ordered by use: what a task's wakeups, switches and
// trace events read (the CPU, the policy, weight and group the load sums
// read, the wakeup's cause, the PID and comm the tracepoints print,
// EEVDF's slice, the class's record) is in the first 96 bytes, and what
// only setup, a policy change and the real-time classes read follows.
// The engine's Task ends its own hot fields with this one (sim/task.go),
// so that with 10,000 tasks asleep, each a cache miss when it wakes, a
// wakeup reaches as few lines as can hold what it reads.
type Task struct {
	CPU    int // the CPU whose run queue the task is (or was last) on
	Policy uapi.Policy
	Nice   int    // the weight the class uses; may differ from the workload's nice while a feature renices
	Group  *Group // nil: the root task group
	// Wake marks why the task was last woken, for classes that follow
	// wakeup chains (the 2010 INTERACTIVE/TIMER features). The engine sets
	// it before the class's enqueue on every wakeup.
	Wake WakeInfo
	PID  int
	Comm string
	// Slice is the task's custom slice (sched_attr.sched_runtime, ns), 0
	// for the default; classes that predate custom slices ignore it.
	Slice int64
	// Sched is the class's per-task state (its sched_entity).
	Sched any

	TGID int
	UID  int
	// RTPrio is a SCHED_FIFO or SCHED_RR task's rt_priority, 1 (lowest)
	// to 99; 0 for every other policy.
	RTPrio int
	// DL is a SCHED_DEADLINE task's reservation (sched_attr's runtime,
	// deadline and period, ns); zero for every other policy.
	DL struct{ Runtime, Deadline, Period int64 }
}

// HotBytes is how much of a Task, from its start, a task's wakeups,
// switches and trace events read: the fields up to Sched.
const HotBytes = 96

// Prio is the kernel priority the tracepoints print: 120 + nice for a fair
// task, 99 − rt_priority for a real-time one (MAX_RT_PRIO−1 − rt_priority),
// −1 for a deadline one (MAX_DL_PRIO−1), so that a lower number always
// runs first.
func (t *Task) Prio() int {
	if t.Policy == uapi.SchedDeadline {
		return -1
	}
	if t.Policy.RealTime() {
		return MaxRTPrio - 1 - t.RTPrio
	}
	return DefaultPrio + t.Nice
}

// Group is a task group (a cgroup of the cpu controller). The root group is
// represented by nil. Shares is cpu.shares (weight 1024 by default).
type Group struct {
	Path   string // "/a/b"
	Parent *Group // nil for a child of the root
	Shares uint64
	Depth  int // 1 for a child of the root

	// Sched is the class's per-group state (group entities and queues).
	Sched any
}

// WakeSource says what caused a wakeup.
type WakeSource uint8

const (
	WakeTask  WakeSource = iota // another task woke it (signal, futex, pipe)
	WakeTimer                   // an hrtimer expired (sleep, POSIX timer, timerfd)
	WakeInput                   // an input device event
	WakeFork                    // a new task's first wakeup
)

// WakeInfo describes one wakeup.
type WakeInfo struct {
	Source WakeSource
	Waker  *Task // the running task that woke it; nil from interrupts and timers
}

// Enqueue and dequeue flags, as the kernel spells them.
const (
	EnqueueWakeup = 1 << iota // the task wakes from sleep
	EnqueueWaking             // SMP: its vruntime was made relative at wakeup
)

const (
	DequeueSleep = 1 << iota // the task blocks (else: migration, nice change)
)

// Wake flags passed to CheckPreempt.
const (
	WFSync = 1 << iota
	WFFork
)

// RQ is the engine's side of one CPU's run queue: what a class may ask of
// the core scheduler. The engine passes it to every hook that acts on that
// CPU. A handle is good for the call it is passed to: a class never keeps
// one for a later call (the engine may hand it a different value next time),
// so whatever a hook does to a CPU it does through an RQ it was given.
type RQ interface {
	CPU() int
	// Now is the current time in ns (the kernel's freshly updated rq->clock).
	Now() int64
	// Curr is the task running on this CPU, nil when idle.
	Curr() *Task
	// Resched sets need_resched on the running task; the engine calls
	// schedule() for this CPU before time advances.
	Resched()
	// NeedResched reports whether the running task is already marked.
	NeedResched() bool
	// StartHRTick arms this CPU's high-resolution tick to fire after delay
	// ns (replacing an armed one); the engine then calls Tick with
	// queued=true. HRTickActive reports whether it is armed.
	StartHRTick(delay int64)
	HRTickActive() bool
}

// Class is a scheduling class: the kernel's struct sched_class, restricted to
// the hooks a fair class needs. All calls for one run come from one goroutine
// in time order. Every hook that acts on a CPU's run queue is given that
// CPU's RQ; the task it names is on (or moving between) the RQs it is given.
// "Queued" below is the engine's view: a task is queued on a CPU from its
// Enqueue there to its Dequeue, running or waiting. A class may keep an
// entity in its own queues after Dequeue (EEVDF's delayed dequeue) as long
// as PickNext does not return the task before its next Enqueue.
type Class interface {
	// TaskNew attaches the class's per-task state (t.Sched) to a task
	// being created (__sched_fork). It is called once per task, before
	// Fork; t.CPU already names the CPU the engine chose for it, and t is
	// on no queue. parent is nil for the workload's initial tasks.
	TaskNew(t, parent *Task)
	// Fork places a new task before its first enqueue (task_fork; 2.6.24's
	// task_new). rq is the CPU the parent runs on (this_rq(); parent is
	// rq.Curr()), dst the CPU the engine chose for the child (child.CPU ==
	// dst.CPU()); for a task without a parent both are the child's CPU.
	// The child is not queued: the engine's next calls for it are
	// Enqueue(dst, child, 0) and, if dst is busy, CheckPreempt(dst, child,
	// WFFork).
	Fork(rq, dst RQ, parent, child *Task)
	// Enqueue makes t runnable on rq (enqueue_task): t is not queued and
	// t.CPU == rq.CPU(); afterwards it is queued on rq, and on no other
	// CPU, until its Dequeue. flags is 0 for a new task or one moved by
	// the engine, EnqueueWakeup for a wakeup on its own CPU, and
	// EnqueueWakeup|EnqueueWaking for a wakeup that MigrateTask moved.
	Enqueue(rq RQ, t *Task, flags int)
	// Dequeue takes t, queued on rq, off it (dequeue_task). DequeueSleep:
	// t blocks or exits; it is rq.Curr(), inside schedule(), and PutPrev(rq,
	// t) follows. Flags 0: the engine moves the waiting task t to another
	// CPU; MigrateTask(rq, dst, t, false) and Enqueue(dst, t, 0) follow.
	Dequeue(rq RQ, t *Task, flags int)
	// CheckPreempt decides whether t, just enqueued on rq by a wakeup or
	// a fork (WFFork) or a move, should preempt rq.Curr(), which is not
	// nil (check_preempt_curr), and calls rq.Resched if so. t's Enqueue
	// is the hook on rq just before, at the same instant (the kernel's
	// wakeup updates rq->clock once for both), so a class may keep the
	// clock that Enqueue read.
	CheckPreempt(rq RQ, t *Task, wakeFlags int)
	// PutPrev returns rq's running task prev (prev == rq.Curr()) to the
	// class before a pick (put_prev_task): prev is still queued if it is
	// runnable, or has just been dequeued with DequeueSleep. PickNext(rq)
	// always follows, before any other hook on rq.
	PutPrev(rq RQ, prev *Task)
	// PickNext chooses and sets the next task to run on rq, one queued on
	// rq (possibly the previous task again), or nil to leave rq idle
	// (pick_next_task, set_next_entity included). rq.Curr() still returns
	// the previous task during the call; the engine switches afterwards.
	PickNext(rq RQ) *Task
	// Tick is the scheduler tick for rq's running task curr (task_tick;
	// curr == rq.Curr()): the periodic tick, or with queued true the
	// hrtick the class armed through rq.StartHRTick.
	Tick(rq RQ, curr *Task, queued bool)
	// Yield is sched_yield() from rq's running task curr (yield_task);
	// the engine reschedules rq after it.
	Yield(rq RQ, curr *Task)
	// SetNice changes t's weight (set_user_nice); t.CPU == rq.CPU(), and
	// t may be running, waiting or asleep. The class dequeues and
	// re-enqueues a queued task itself and may call rq.Resched.
	SetNice(rq RQ, t *Task, nice int)
	// TaskDead releases an exited task (task_dead). t was dequeued with
	// DequeueSleep on rq, its last CPU (t.CPU == rq.CPU()), and rq has
	// switched away from it; no hook names t again.
	TaskDead(rq RQ, t *Task)
	// MigrateTask moves t's state from src to dst (set_task_cpu →
	// migrate_task_rq). t is not queued, and t.CPU == src.CPU() !=
	// dst.CPU() during the call. With wakeup, t is asleep on src and
	// being woken onto dst: Enqueue(dst, t, EnqueueWakeup|EnqueueWaking)
	// follows. Otherwise the engine has just dequeued the waiting t from
	// src with flags 0 (load balancing), and Enqueue(dst, t, 0) follows.
	// A move between task groups (sched_move_task: a phase's taskgroup)
	// is MigrateTask(rq, rq, t, false) with src == dst: t dequeued with
	// flags 0 and t.Group already the new group; Enqueue(rq, t, 0)
	// follows. The class binds t to the new group's queue.
	MigrateTask(src, dst RQ, t *Task, wakeup bool)
}

// Clocked is implemented by a class that reads the time from the engine's
// clock instead of calling RQ.Now on every hook (an interface call each).
// The engine calls SetClock once, before any other hook, with the address
// of its current time, which is what every RQ's Now returns for the whole
// run. A class must still work with RQ.Now when no one calls SetClock (a
// test's RQ, a wrapper between the engine and the class).
type Clocked interface {
	SetClock(now *int64)
}

// Warmer is implemented by a class that can read ahead the state a task's
// wakeup will touch. The engine calls Warm for sleeping tasks whose wakeup
// has come near (with thousands of tasks their state has long left the
// CPU's caches, and a wakeup's misses, one after another, were most of
// its cost), several tasks in a row, so that the processor's loads for all
// of them are in flight at once. Warm changes nothing; it returns a value
// computed from what it read, which the caller keeps so that the reads are
// not dropped as dead code.
type Warmer interface {
	Warm(t *Task) uint64
}

// Unchecked is implemented by a class that keeps state only its Checker
// reads (EEVDF's account of the lag each queue's joins and leaves
// impose). The engine calls SkipChecks once, before any other hook, on a
// run whose invariants it will not check, and the class may then stop
// keeping that state. A class that is never told keeps it.
type Unchecked interface {
	SkipChecks()
}

// Checker is implemented by classes that can verify their own invariants
// (monotonic min_vruntime, load sums, tree membership). The engine calls it
// after every event when checking is on.
type Checker interface {
	// CheckInvariants returns an error describing the first broken
	// invariant. now is the current time (every CPU's clock); runnable
	// lists, per CPU, the tasks the engine believes are runnable there
	// (running or waiting).
	CheckInvariants(now int64, runnable [][]*Task) error
}
