package host

import (
	"fmt"
	"io"
	"strings"
	"time"

	"schedlab/workload"
)

// Options are one host run.
type Options struct {
	Spec *workload.Spec
	// CPUs is every thread's affinity unless it sets its own (nil: all).
	CPUs     []int
	Duration time.Duration
	Seed     uint64
	// BufferKB is the ring buffer per CPU (0: sized from the duration).
	BufferKB int
	// Limits bound the workload's processes and memory.
	Limits Limits
	// Beside is a command (argv, argv[0] an absolute path) that runs for
	// the whole run beside the workload, in its cgroup, and is killed
	// with its process group at the end: a real load for the workload to
	// meet (the VM's make -jN). Its tasks are in the trace but not in the
	// workload's figures. Nil: none.
	Beside []string
	// Log receives progress and what cleanup did (nil: discarded).
	Log io.Writer
	// RtappLogDir, if set, is an absolute directory where the worker
	// writes rt-app's per-thread logs, as rt-app computes them.
	RtappLogDir string
}

// Recording is what one host run recorded, for the analysis (lab) to read
// as it reads a simulation's events.
type Recording struct {
	Trace []byte // the instance's trace file, ftrace text
	// RootPID is the workload's first process; its descendants are the
	// workload.
	RootPID    int
	Start, End int64 // CLOCK_MONOTONIC ns: the go signal and the kill
	// Spec, CPUs and Seed are what the run was asked for (nil CPUs: all).
	Spec *workload.Spec
	CPUs []int
	Seed uint64
	// Overrun and Dropped are events the ring buffer lost.
	Overrun, Dropped int64
	Facts            Facts
	// WorkerErrors are the first lines the worker wrote to stderr.
	WorkerErrors []string
	Cleanup      []string
}

// InterruptedError is a run stopped by its context (a signal, a timeout)
// before its end. Cleanup says what was undone; the Recording returned
// with it holds what was recorded until then.
type InterruptedError struct {
	Cause   error
	Cleanup []string
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted (%v); cleaned up: %s", e.Cause, strings.Join(e.Cleanup, "; "))
}

func (e *InterruptedError) Unwrap() error { return e.Cause }

// Costs are what a machine's kernel paths cost, measured by Probe: the
// machine-side counterparts of the simulator's engine parameters
// (sim.Params). Medians, ns.
type Costs struct {
	// CPU is where the probe ran.
	CPU int `json:"cpu"`
	// ContextSwitchNS is a thread-to-thread switch on one CPU (a pipe
	// ping-pong, with PipeNS of pipe work per step taken off): the
	// counterpart of cost_context_switch_ns.
	ContextSwitchNS int64 `json:"context_switch_ns"`
	PipeNS          int64 `json:"pipe_ns"`
	// CloneNS is the parent's CPU time in pthread_create: cost_fork_ns.
	CloneNS int64 `json:"thread_create_ns"`
	// ForkExecNS is fork + exec of the schedlab binary (as a workload's
	// "process" task starts) + its exit + the parent's wait, wall time.
	ForkExecNS int64 `json:"fork_exec_exit_ns"`
	// TimerNS is an hrtimer sleep's expiry to the sleeper's user code on
	// an idle CPU: the sum of cost_wakeup_ns, cost_timer_irq_ns,
	// cost_idle_exit_ns and a context switch.
	TimerNS int64 `json:"timer_idle_ns"`
}
