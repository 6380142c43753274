// Package workload reads workloads written in rt-app's JSON and turns them
// into task programs the simulator (and the host runner) execute.
//
// The language is a compatible subset of rt-app (its doc/tutorial.txt): a
// "global" object, and "tasks" whose events run in the order their keys
// appear. schedlab's extensions (a task's uid, task-group shares, POSIX,
// SIGEV_THREAD and input timers, random durations and periods, latency_end)
// are documented in docs/workload.md; none of them changes what an rt-app
// file means. Built-in scenarios, some of them parametric templates, are in
// scenario.go.
package workload

import (
	"slices"

	"schedlab/uapi"
)

// Spec is a parsed workload.
type Spec struct {
	Name string
	// Duration is global.duration in ns; 0 means the file sets none (rt-app's
	// −1: run until every task ends).
	Duration      int64
	DefaultPolicy uapi.Policy
	Tasks         []*Task // in file order
	// Groups lists every task group the tasks use, parents before
	// children, with the shares of the "taskgroups" extension.
	Groups []*Group
	// Timers lists the timer resources by first use; Event.Timer indexes it.
	Timers []*TimerRes
	// Mutexes, Conds, Barriers and Sems list the sync objects by first
	// use; events index them. rt-app creates one per name and kind.
	Mutexes  []string
	Conds    []string
	Barriers []*BarrierRes
	Sems     []string
	Global   Global
	// Warnings are non-fatal findings (e.g. collapsed duplicate keys).
	Warnings []string
}

// Task is one entry of "tasks": a thread definition with Instances copies
// started at time Delay, or a template (Instances == 0) that only "fork"
// events instantiate.
type Task struct {
	Name      string
	Instances int
	Delay     int64 // ns
	// Loop is how many times the phase list runs; −1 forever.
	Loop   int
	Props  Props
	Phases []*Phase
	// Process is the extension "process": on the host, a fork of this
	// definition creates a process (fork + exec), not a thread. The
	// simulator does not distinguish them: both are tasks.
	Process bool
	// Runner marks a task that the measuring runner itself adds to a
	// simulation of a recorded run (validate.WithRunner's root and watch
	// thread). Neither runs host/worker.c's run_thread, so neither pays
	// the engine's cost_thread_start_ns. Never set by a workload file.
	Runner bool
}

// Props are the scheduling properties a thread (or, from that phase on, a
// phase) sets. Nil or empty fields are "not set here".
type Props struct {
	Policy    *uapi.Policy
	Nice      *int
	CPUs      []int
	TaskGroup *string
	UID       *int // extension: the task's user id
	// Slice is rt-app's dl-runtime on a fair task: the custom slice (ns)
	// that EEVDF 6.12+ honours; 0 means the default.
	Slice int64
	// RTPrio is rt-app's priority on a SCHED_FIFO or SCHED_RR task (its
	// sched_priority, 1 to 99; rt-app's default 10); 0 on other tasks,
	// whose priority is their Nice.
	RTPrio int
	// DL is a SCHED_DEADLINE task's reservation (dl-runtime, dl-period,
	// dl-deadline, ns); zero on every other task.
	DL Deadline
}

// Deadline is a SCHED_DEADLINE reservation as sched_setattr takes it.
// rt-app defaults the period to the runtime and the deadline to the
// period.
type Deadline struct {
	Runtime, Period, Deadline int64
}

// Phase is one element of "phases" (or the whole event list of a thread
// without phases).
type Phase struct {
	Name   string
	Loop   int // −1 forever
	Props  Props
	Events []Event
}

// EventKind is an rt-app event type.
type EventKind uint8

const (
	Run        EventKind = iota + 1 // busy for an amount of CPU time
	Runtime                         // busy until an amount of wall time has passed
	Sleep                           // relative sleep
	Timer                           // wait for the next expiry of a periodic timer
	Fork                            // create a thread from a task definition
	Yield                           // sched_yield()
	Suspend                         // block until another task resumes this one
	Resume                          // wake a suspended task (task-to-task wakeup)
	LatencyEnd                      // extension: end the timer-latency sample the task carries
	Lock                            // lock a mutex (Res indexes Spec.Mutexes)
	Unlock                          // unlock a mutex
	Wait                            // pthread_cond_wait on Spec.Conds[Res] with Spec.Mutexes[Mutex]
	Signal                          // pthread_cond_signal: wake the first waiter of a condition
	Broadcast                       // pthread_cond_broadcast: wake every waiter
	SigAndWait                      // rt-app's "sync": signal, then wait on the same condition
	Barrier                         // wait until every user of Spec.Barriers[Res] has arrived
	Mem                             // write Bytes to the thread's memory buffer: CPU work
	IORun                           // write Bytes to global.io_device: blocking I/O
	MemRun                          // rt-app HEAD's memrun: read, write or pointer-chase: CPU work
	SemPost                         // sem_post on Spec.Sems[Res]
	SemWait                         // sem_wait on Spec.Sems[Res]
)

var eventKindNames = [...]string{Run: "run", Runtime: "runtime", Sleep: "sleep", Timer: "timer", Fork: "fork", Yield: "yield",
	Suspend: "suspend", Resume: "resume", LatencyEnd: "latency_end", Lock: "lock", Unlock: "unlock", Wait: "wait",
	Signal: "signal", Broadcast: "broad", SigAndWait: "sync", Barrier: "barrier", Mem: "mem", IORun: "iorun",
	MemRun: "memrun", SemPost: "sem_post", SemWait: "sem_wait"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "?"
}

// Event is one step of a phase.
type Event struct {
	Kind EventKind
	Key  string // the JSON key, e.g. "run0"
	// Dur is the length of Run, Runtime and Sleep (ns).
	Dur Duration
	// Timer indexes Spec.Timers. PeriodDur is this event's period, fixed
	// or drawn anew at each use (extension); Period (ns) is its nominal
	// value: the fixed period, or the distribution's median (lognormal),
	// mean (exponential) or midpoint (uniform). Period is always positive.
	Timer     int
	Period    int64
	PeriodDur Duration
	// Fork indexes Spec.Tasks: the definition the new thread runs.
	Fork int
	// Target is the thread name a Resume wakes, as written; TargetDef
	// indexes Spec.Tasks: the definition that name belongs to (the task
	// of that name, or the task whose instance name it is). The engine
	// wakes the first live thread whose comm is Target, else the first
	// live thread of TargetDef.
	Target    string
	TargetDef int
	// Cond, for a Resume, indexes Spec.Conds: the rendezvous of that name
	// that suspends with a value other than their own thread's name wait
	// on (rt-app 1.0); −1 if none does. For a Suspend, Cond is the
	// rendezvous it waits on, −1 for its own thread's (rt-app HEAD).
	Cond int
	// Res indexes the event's sync object: Spec.Mutexes (Lock, Unlock),
	// Spec.Conds (Wait, Signal, Broadcast, SigAndWait), Spec.Barriers or
	// Spec.Sems. Mutex is the mutex a Wait or SigAndWait releases and
	// takes again.
	Res, Mutex int
	// Bytes is the size of a Mem, IORun or MemRun event (a chase's count
	// of pointer hops); Mem is a MemRun's access pattern.
	Bytes int64
	Mem   MemAccess
}

// MemAccess is a memrun's access pattern (rt-app HEAD).
type MemAccess uint8

const (
	MemWrite MemAccess = iota // "mem", and memrun "write": sequential stores
	MemRead                   // memrun "read": sequential loads
	MemChase                  // memrun "chase": one dependent load per hop
)

// BarrierRes is a barrier: Users threads must reach it before any goes
// on. As rt-app counts them, every barrier event adds its task's
// instances (forked templates add none).
type BarrierRes struct {
	Name  string
	Users int
}

// Global holds rt-app's global keys other than duration and
// default_policy, with rt-app's defaults (doc/tutorial.txt).
type Global struct {
	// PIEnabled makes every mutex a priority-inheritance mutex.
	PIEnabled bool
	// CumulativeSlack: the log's slack sums every timer of a phase.
	CumulativeSlack bool
	// NsPerLoop is an integer "calibration": the ns one loop of rt-app's
	// busy loop takes, which the log's perf column divides by; 0 when the
	// file names a CPU to calibrate on (or none).
	NsPerLoop int64
	// MemBufferSize is the per-thread buffer mem and iorun write through
	// (bytes, default 4 MiB).
	MemBufferSize int64
	IODevice      string
	// LogDir and LogBasename name rt-app's per-thread logs
	// (LogDir/LogBasename-THREAD.log); LogDisabled is log_size "disable".
	LogDir, LogBasename string
	LogDisabled         bool
}

// DefaultGlobal is rt-app's default global object.
func DefaultGlobal() Global {
	return Global{MemBufferSize: 4 << 20, IODevice: "/dev/null", LogDir: "./", LogBasename: "rt-app"}
}

// Duration is a fixed length, or one drawn from a distribution each time
// the event runs (extension: see DistKind).
type Duration struct {
	Fixed int64 // ns, when Dist == Fixed
	Dist  DistKind
	// Parameters in ns: Median/Sigma for lognormal (Sigma is unitless),
	// Mean for exponential, Min/Max for uniform.
	Median, Mean, Min, Max int64
	Sigma                  float64
}

// Nominal is a representative length in ns: the fixed value, or the
// distribution's median (lognormal), mean (exponential) or midpoint
// (uniform).
func (d Duration) Nominal() int64 {
	switch d.Dist {
	case LogNormal:
		return d.Median
	case Exponential:
		return d.Mean
	case Uniform:
		return d.Min + (d.Max-d.Min)/2
	}
	return d.Fixed
}

// DistKind selects how a Duration is drawn.
type DistKind uint8

const (
	Fixed DistKind = iota
	LogNormal
	Exponential
	Uniform
)

// distNames are the "dist" values of the language; Fixed, a plain number
// in a file, has none there.
var distNames = [...]string{Fixed: "fixed", LogNormal: "lognormal", Exponential: "exponential", Uniform: "uniform"}

func (d DistKind) String() string {
	if int(d) < len(distNames) {
		return distNames[d]
	}
	return "?"
}

// TimerRes is a timer resource: rt-app shares one timer between all threads
// that name it, unless the name starts with "unique".
type TimerRes struct {
	Name     string
	Absolute bool // mode "absolute": keep the grid after a late expiry
	// PerThread is rt-app's "unique…" timer: each thread gets its own.
	PerThread bool
	// Notify is the extension "notify": "" for an rt-app timer (the waiter
	// wakes at the expiry, as rt-app's wu_lat measures), "signal" for a
	// POSIX timer that keeps firing whether or not anybody waits (an expiry
	// that finds the previous one undelivered is a missed timer event), or
	// "thread" for a POSIX timer with SIGEV_THREAD: as "signal", and the
	// timer-latency sample ends when the thread the waiter forks next
	// first runs, as glibc runs the callback in a new thread; or "input"
	// for an input device (evdev key repeat): as "signal", but the wakeup
	// is an input wakeup and the sample is a token the waiter carries,
	// hands on with "resume", and ends with "latency_end".
	Notify string
}

// Group is a task group (cgroup of the cpu controller).
type Group struct {
	Path   string
	Parent string // "" for a child of the root
	Shares uint64
}

// HasTimer says whether any task of the spec waits on a timer, so that
// its timer latency can have samples at all.
func (s *Spec) HasTimer() bool { return len(s.Timers) > 0 }

// Policies lists the policies the workload's tasks run under, each once,
// in the order of the task definitions.
func (s *Spec) Policies() []uapi.Policy {
	var out []uapi.Policy
	for _, t := range s.Tasks {
		p := s.DefaultPolicy
		if t.Props.Policy != nil {
			p = *t.Props.Policy
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
