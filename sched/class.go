// Package sched is the contract between the simulation engine and the
// scheduling policies it runs.
//
// A policy is a kernel scheduling class: it owns its run-queue state and
// answers the hooks the kernel's core scheduler calls (enqueue, dequeue, pick
// next, put prev, wakeup preemption, tick, fork, yield). The engine owns
// time, CPUs, tasks and timers, and reaches a policy only through Class. A
// kernel generation is a Profile: a constructor plus the features and
// tunables that generation had, with their defaults. Profiles register
// themselves with Register, so adding one touches no engine code.
//
// The package also holds what every fair class shares: the nice-to-weight
// tables and the kernel's fixed-point arithmetic.
package sched

import "fmt"

// Policy is a task's scheduling policy (SCHED_*).
type Policy uint8

const (
	Normal Policy = iota // SCHED_NORMAL / SCHED_OTHER
	Batch                // SCHED_BATCH: never preempts on wakeup
	Idle                 // SCHED_IDLE: weight 3, yields to any normal wakee
	FIFO                 // SCHED_FIFO (real time)
	RR                   // SCHED_RR (real time)
)

var policyNames = [...]string{"SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE", "SCHED_FIFO", "SCHED_RR"}

func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("policy(%d)", p)
}

// ParsePolicy accepts rt-app's spellings (SCHED_OTHER or SCHED_NORMAL, …).
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "SCHED_OTHER", "SCHED_NORMAL":
		return Normal, nil
	case "SCHED_BATCH":
		return Batch, nil
	case "SCHED_IDLE":
		return Idle, nil
	case "SCHED_FIFO":
		return FIFO, nil
	case "SCHED_RR":
		return RR, nil
	}
	return 0, fmt.Errorf("unknown policy %q (valid: SCHED_OTHER, SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR)", s)
}

// Task is what a scheduling class sees of a task. The engine creates it and
// keeps its identity fields current; Sched belongs to the class.
type Task struct {
	PID, TGID int
	Comm      string
	UID       int
	Nice      int // the weight the class uses; may differ from the workload's nice while a feature renices
	Policy    Policy
	Group     *Group // nil: the root task group
	CPU       int    // the CPU whose run queue the task is (or was last) on
	// Slice is the task's custom slice (sched_attr.sched_runtime, ns), 0
	// for the default; classes that predate custom slices ignore it.
	Slice int64

	// Wake marks why the task was last woken, for classes that follow
	// wakeup chains (the 2010 INTERACTIVE/TIMER features). The engine sets
	// it before the class's enqueue on every wakeup.
	Wake WakeInfo

	// Sched is the class's per-task state (its sched_entity).
	Sched any
	// Engine is the engine's own record of the task; classes leave it be.
	Engine any
}

// Prio is the kernel priority the tracepoints print (120 + nice).
func (t *Task) Prio() int { return DefaultPrio + t.Nice }

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
// the core scheduler.
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
// in time order.
type Class interface {
	// TaskNew is called once when a task is created, before Fork, so the
	// class can attach its per-task state. parent is nil for the workload's
	// initial tasks.
	TaskNew(t, parent *Task)
	// Fork places a new task (task_fork). rq is the CPU the parent runs
	// on; the child is not queued yet. parent may be nil.
	Fork(rq RQ, parent, child *Task)
	// Enqueue makes t runnable on rq (enqueue_task).
	Enqueue(rq RQ, t *Task, flags int)
	// Dequeue removes t from rq (dequeue_task).
	Dequeue(rq RQ, t *Task, flags int)
	// CheckPreempt decides whether the woken or new task t should preempt
	// rq's running task (check_preempt_curr), calling rq.Resched if so.
	CheckPreempt(rq RQ, t *Task, wakeFlags int)
	// PutPrev returns the running task prev to the queue before a pick
	// (put_prev_task); prev may have been dequeued already.
	PutPrev(rq RQ, prev *Task)
	// PickNext chooses and sets the next task to run, nil if none
	// (pick_next_task; includes set_next_entity).
	PickNext(rq RQ) *Task
	// Tick is the periodic scheduler tick for rq's running task
	// (task_tick); queued is true when it comes from the hrtick timer.
	Tick(rq RQ, curr *Task, queued bool)
	// Yield is sched_yield() from the running task.
	Yield(rq RQ, curr *Task)
	// SetNice changes t's weight (set_user_nice): the class dequeues and
	// re-enqueues a queued task itself and may call rq.Resched.
	SetNice(rq RQ, t *Task, nice int)
	// TaskDead is called after an exiting task's final dequeue.
	TaskDead(t *Task)
	// MigrateTask moves t's state to CPU to (migrate_task_rq). t is not
	// queued: either it is asleep and being woken onto another CPU
	// (wakeup true; the engine then enqueues it there with
	// EnqueueWakeup|EnqueueWaking), or the engine has just dequeued it
	// with flags 0 to move it (load balancing) and will enqueue it there
	// with flags 0. t.CPU still names the old CPU during the call.
	MigrateTask(t *Task, to int, wakeup bool)
}

// Checker is implemented by classes that can verify their own invariants
// (monotonic min_vruntime, load sums, tree membership). The engine calls it
// after every event when checking is on.
type Checker interface {
	// CheckInvariants returns an error describing the first broken
	// invariant. runnable lists, per CPU, the tasks the engine believes
	// are runnable there (running or waiting).
	CheckInvariants(runnable [][]*Task) error
}
