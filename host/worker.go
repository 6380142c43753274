package host

// #cgo CFLAGS: -O2 -Wall -Wno-format-truncation
// #cgo LDFLAGS: -lm -lpthread
// #include "worker.h"
import "C"

// workerEnv is the environment variable that turns a start of this binary
// into a worker (worker.h): a C constructor runs the job before the Go
// runtime starts, so a worker process never runs Go code.
const workerEnv = C.SL_ENV

// exitSetup is a worker's exit status when it could not start its program.
const exitSetup = C.SL_EXIT_SETUP
