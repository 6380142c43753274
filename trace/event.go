// Package trace defines the scheduler event stream that is schedlab's
// interface between producers (the simulator, the host recorder, a trace file
// a user brings) and consumers (latency analysis, trace writers).
//
// The events mirror the kernel's sched tracepoints (sched_waking,
// sched_wakeup, sched_wakeup_new, sched_switch, sched_process_fork,
// sched_process_exit, sched_migrate_task) plus application marks that a
// workload writes (a timer's expiry, the start of its callback). A consumer
// never asks where an event came from.
//
// Event is a plain value with no pointers to producer state, so a producer can
// hand the same stack variable to a Sink for every event without allocating.
package trace

// Kind says which tracepoint an Event stands for.
type Kind uint8

const (
	Waking    Kind = iota + 1 // sched_waking: a wakeup starts (PID is the wakee)
	Wakeup                    // sched_wakeup: the wakee is on a run queue
	WakeupNew                 // sched_wakeup_new: a new task is on a run queue
	Switch                    // sched_switch: PID leaves the CPU, NextPID takes it
	Fork                      // sched_process_fork: PID created ChildPID
	Exit                      // sched_process_exit: PID is gone
	Migrate                   // sched_migrate_task: PID moves OrigCPU → DestCPU
	Mark                      // an application mark (see MarkKind)

	// Lost: the recording lost events on CPU before TS (a ring-buffer
	// overrun, or a reader of trace_pipe that fell behind). Seq is how
	// many were lost, 0 when the recording does not say. No tracepoint
	// emits it: a trace's "CPU:N [LOST M EVENTS]" line does.
	Lost
	// BufferStart: CPU's part of the recording starts at TS, later than
	// the trace's start (its ring buffer overwrote its oldest events), so
	// what ran anywhere before TS is not fully known. A trace's
	// "##### CPU N buffer started ####" line.
	BufferStart
	// Begin: what the recording covers, before any other event: CPUs is
	// its number of CPUs, counting those that never show an event (an idle
	// CPU still counts for wasted capacity). The simulator emits it when a
	// run starts; a trace's header gives it (tracefs's #P:, trace-cmd's
	// cpus=, schedlab's cpus=), and a header may come more than once, the
	// largest count winning. TS is 0; no tracepoint emits it.
	Begin
	// TimerSignal: a POSIX timer's signal (si_code SI_TIMER) queued for
	// thread PID (signal_generate, res=0). A periodic timer whose signal
	// is pending is not restarted until the signal is taken, so each is
	// one expiry that fired, and expiries merged into it never show.
	// glibc's SIGEV_THREAD helper takes each and creates one callback
	// thread for it (analyze's SigevNumbering uses that).
	TimerSignal
)

var kindNames = [...]string{
	Waking:    "sched_waking",
	Wakeup:    "sched_wakeup",
	WakeupNew: "sched_wakeup_new",
	Switch:    "sched_switch",
	Fork:      "sched_process_fork",
	Exit:      "sched_process_exit",
	Migrate:   "sched_migrate_task",
	Mark:      "mark",

	Lost:        "lost_events",
	BufferStart: "buffer_started",
	Begin:       "begin",
	TimerSignal: "signal_generate",
}

// String returns the tracepoint name.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// MarkKind says what an application mark records.
type MarkKind uint8

const (
	// TimerExpiry: timer Timer expired for the Seq-th time; Expected is the
	// expiry the timer was programmed for. On the simulator TS == Expected.
	TimerExpiry MarkKind = iota + 1
	// CallbackStart: the code that expiry Seq of Timer notifies starts
	// running (the SIGEV_THREAD callback, or the task that waited on the
	// timer). TS minus the expiry's Expected is one timer-latency sample;
	// a CallbackStart that carries Expected itself (the host runner's) is a
	// sample on its own.
	CallbackStart
	// TimerMissed: expiry Seq of Timer found the previous one undelivered
	// (a POSIX timer overrun, or an rt-app timer reached after its expiry).
	TimerMissed
)

var markNames = [...]string{
	TimerExpiry:   "timer_expiry",
	CallbackStart: "callback_start",
	TimerMissed:   "timer_missed",
}

// String returns the mark's name as it appears in ftrace text.
func (m MarkKind) String() string {
	if int(m) < len(markNames) && markNames[m] != "" {
		return markNames[m]
	}
	return "unknown"
}

// TaskState is a task's state as sched_switch reports prev_state.
type TaskState uint8

const (
	Running         TaskState = iota // R: runnable (preempted when it leaves a CPU)
	Sleeping                         // S: interruptible sleep
	Uninterruptible                  // D
	Dead                             // X: exiting
)

// Letter returns the state's prev_state letter.
func (s TaskState) Letter() string {
	switch s {
	case Running:
		return "R"
	case Sleeping:
		return "S"
	case Uninterruptible:
		return "D"
	case Dead:
		return "X"
	}
	return "?"
}

// Event is one scheduler event. Which fields are meaningful depends on Kind;
// the rest are zero. PID 0 is the idle task ("swapper"). Times are
// nanoseconds since the start of the recording.
type Event struct {
	TS   int64
	CPU  int32
	Kind Kind

	PID  int32 // wakee, prev, parent, exiting or migrating task, marker writer
	Comm string
	// TGID is PID's thread group where the producer knows it (0: not
	// said); a Fork's child's is ChildTGID.
	TGID int32
	Prio int32 // kernel priority: 120+nice for fair tasks

	// Waking, Wakeup, WakeupNew: the CPU the task is queued on.
	TargetCPU int32

	// Switch: the previous task's state and the next task.
	PrevState TaskState
	NextPID   int32
	NextComm  string
	NextPrio  int32

	// Fork: the child, and its thread group: its own PID for a new
	// process, the parent's group for a new thread (0: unknown).
	ChildPID  int32
	ChildComm string
	ChildTGID int32

	// Migrate.
	OrigCPU, DestCPU int32

	// Begin.
	CPUs int32

	// Mark.
	Mark     MarkKind
	Timer    int32 // timer identifier, unique in one recording
	Seq      int64 // expiry number of that timer, from 1
	Expected int64 // TimerExpiry (and optionally CallbackStart): the programmed expiry time (ns)
	// Period is a CallbackStart's timer period (ns) where the mark gives
	// it (the host runner's SIGEV_THREAD callbacks), 0 otherwise.
	Period int64
}

// Sink consumes events in time order. The Event is only valid during the
// call: a Sink that keeps it must copy it. A Sink may also take the most
// frequent kinds as arguments (FastSink).
type Sink interface {
	Event(e *Event)
}

// Tee is a Sink that hands every event to each of its sinks in order.
type Tee []Sink

// Event implements Sink.
func (t Tee) Event(e *Event) {
	for _, s := range t {
		s.Event(e)
	}
}

// Recorder is a Sink that keeps a copy of every event, for tests and for
// writers that need the whole stream.
type Recorder struct{ Events []Event }

// Event implements Sink.
func (r *Recorder) Event(e *Event) { r.Events = append(r.Events, *e) }
