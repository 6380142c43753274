// The host worker: the C half of the host executor. It runs a workload
// program (compiled from a workload.Spec by program.go) as real threads and
// processes. It is C, not Go, so that what the kernel schedules is only the
// workload: no Go runtime threads, no garbage collector, no goroutine
// scheduler between a wakeup and the thread that was woken.
//
// A process becomes a worker before the Go runtime starts: a constructor
// (worker.c) looks for SCHEDLAB_HOST_WORKER in the environment, runs the
// program and exits. So "fork + exec of a worker" is fork + exec of the
// schedlab binary itself.

#ifndef SCHEDLAB_HOST_WORKER_H
#define SCHEDLAB_HOST_WORKER_H

// The environment variable naming the worker's job:
// "ROOT <program fd> <marker fd> <go fd> <undo fd>" for the workload's first
// process (it starts when a byte arrives on the go pipe; the undo list is
// what it undoes if the runner dies first),
// "CHILD <program fd> <marker fd> <shm fd> <task> <slot> <instance>" for a process
// created by a fork event.
#define SL_ENV "SCHEDLAB_HOST_WORKER"

// Exit status of a worker that could not run its program (bad program text,
// a failed system call during setup). Its message is on stderr.
#define SL_EXIT_SETUP 97

// The verbs of the runner's undo list (run.go's undoList, worker.c's
// janitor): each is followed by a path, both NUL-terminated.
#define SL_UNDO_OFF "off"     // write 0 to this tracing_on, at once
#define SL_UNDO_LEAVE "leave" // move the janitor to this cgroup.procs
#define SL_UNDO_RMDIR "rmdir" // remove this directory, retrying

// The job of the workload's first process (SL_ENV's first word).
#define SL_JOB_ROOT "ROOT"

// ---- the program ----
//
// program.go compiles a workload into a program: text, whitespace-separated
// integers and hex strings, that read_program (worker.c) reads. Its codes
// and limits are defined here, once (a policy is the kernel's own number,
// passed to sched_setattr as it is); Go takes them through
// cgo (worker.go), and worker_test.go checks that each event kind,
// distribution and notify of the workload language has the code named
// after it. read_program refuses a code outside its enum's first and last
// enumerators, so a new one goes last.

// The program's first line. The version changes with the layout, so that a
// worker never reads a program written for another.
#define SL_PROGRAM_MAGIC "schedlab-host-program"
#define SL_PROGRAM_VERSION 3

// An event's kind. No kind is 0, so that an event whose kind was never set
// is refused instead of skipped.
enum sl_event_kind {
	SL_EV_RUN = 1,
	SL_EV_RUNTIME,
	SL_EV_SLEEP,
	SL_EV_TIMER,
	SL_EV_FORK,
	SL_EV_YIELD,
	SL_EV_SUSPEND,
	SL_EV_RESUME,
	SL_EV_LATENCY_END,
	SL_EV_LOCK,
	SL_EV_UNLOCK,
	SL_EV_WAIT,
	SL_EV_SIGNAL,
	SL_EV_BROAD,
	SL_EV_SYNC,
	SL_EV_BARRIER,
	SL_EV_MEM,
	SL_EV_IORUN,
	SL_EV_SEM_POST,
	SL_EV_SEM_WAIT,
};

// How a duration (an event's length, a timer's period) is drawn each time
// it is used. Every duration carries all the parameters, used or not, so
// that it reads the same whatever its distribution.
enum sl_dist {
	SL_DIST_FIXED,
	SL_DIST_LOGNORMAL,
	SL_DIST_EXPONENTIAL,
	SL_DIST_UNIFORM,
};

// How a timer's expiry reaches its waiter (the workload's "notify"). Only
// SL_NOTIFY_NONE is rt-app's own timer; the others are POSIX timers, which
// keep firing whether or not anybody waits, so that an expiry can be missed.
enum sl_notify {
	SL_NOTIFY_NONE,
	SL_NOTIFY_SIGNAL,
	SL_NOTIFY_THREAD,
	SL_NOTIFY_INPUT,
};

// A thread property the program does not set (policy, task group, uid):
// the thread keeps the program's default policy, its creator's cgroup, its
// uid. Nice has a flag of its own instead, since -1 is a nice value.
#define SL_UNSET (-1)

// The sizes of the worker's fixed tables. The Go side refuses what would
// not fit (ParseCPUs, checkHost), naming the part of the workload, before
// anything starts.
#define SL_MAXCPU 256
#define SL_MAXTIMERS 64
// Mutexes, conditions, barriers and semaphores of each kind.
#define SL_MAXSYNC 256
// A "signal" or "input" timer i signals SIGRTMIN+1+i, and SIGRTMAX is
// SIGRTMIN+30 on Linux.
#define SL_MAX_SIGNAL_TIMER 29

#endif
