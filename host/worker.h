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

#endif
