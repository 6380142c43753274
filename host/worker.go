package host

// #cgo CFLAGS: -O2 -Wall -Werror=switch -Wno-format-truncation
// #cgo LDFLAGS: -lm -lpthread
// #include "worker.h"
import "C"

import "schedlab/workload"

// workerEnv is the environment variable that turns a start of this binary
// into a worker (worker.h): a C constructor runs the job before the Go
// runtime starts, so a worker process never runs Go code.
const workerEnv = C.SL_ENV

// exitSetup is a worker's exit status when it could not start its program.
const exitSetup = C.SL_EXIT_SETUP

// The undo list's verbs and the first process's job (worker.h).
const (
	undoOff   = C.SL_UNDO_OFF
	undoLeave = C.SL_UNDO_LEAVE
	undoRmdir = C.SL_UNDO_RMDIR
	jobRoot   = C.SL_JOB_ROOT
)

// The program's frame, codes and limits are the worker's (worker.h). The
// workload's own enums are Go's to renumber; these tables are the one place
// where the two meet, and worker_test.go holds them to worker.h's names.
const (
	programMagic   = C.SL_PROGRAM_MAGIC
	programVersion = C.SL_PROGRAM_VERSION
	unset          = C.SL_UNSET
	maxCPU         = C.SL_MAXCPU
	maxTimers      = C.SL_MAXTIMERS
	maxSync        = C.SL_MAXSYNC
	maxSignalTimer = C.SL_MAX_SIGNAL_TIMER
)

var eventCode = map[workload.EventKind]int{
	workload.Run:        C.SL_EV_RUN,
	workload.Runtime:    C.SL_EV_RUNTIME,
	workload.Sleep:      C.SL_EV_SLEEP,
	workload.Timer:      C.SL_EV_TIMER,
	workload.Fork:       C.SL_EV_FORK,
	workload.Yield:      C.SL_EV_YIELD,
	workload.Suspend:    C.SL_EV_SUSPEND,
	workload.Resume:     C.SL_EV_RESUME,
	workload.LatencyEnd: C.SL_EV_LATENCY_END,
	workload.Lock:       C.SL_EV_LOCK,
	workload.Unlock:     C.SL_EV_UNLOCK,
	workload.Wait:       C.SL_EV_WAIT,
	workload.Signal:     C.SL_EV_SIGNAL,
	workload.Broadcast:  C.SL_EV_BROAD,
	workload.SigAndWait: C.SL_EV_SYNC,
	workload.Barrier:    C.SL_EV_BARRIER,
	workload.Mem:        C.SL_EV_MEM,
	workload.IORun:      C.SL_EV_IORUN,
	workload.SemPost:    C.SL_EV_SEM_POST,
	workload.SemWait:    C.SL_EV_SEM_WAIT,
}

var distCode = map[workload.DistKind]int{
	workload.Fixed:       C.SL_DIST_FIXED,
	workload.LogNormal:   C.SL_DIST_LOGNORMAL,
	workload.Exponential: C.SL_DIST_EXPONENTIAL,
	workload.Uniform:     C.SL_DIST_UNIFORM,
}

// notifyCode is keyed by workload.TimerRes.Notify.
var notifyCode = map[string]int{
	"":       C.SL_NOTIFY_NONE,
	"signal": C.SL_NOTIFY_SIGNAL,
	"thread": C.SL_NOTIFY_THREAD,
	"input":  C.SL_NOTIFY_INPUT,
}
