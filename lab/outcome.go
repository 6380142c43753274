package lab

import (
	"fmt"
	"math"
	"slices"
	"time"

	"schedlab/analyze"
	"schedlab/host"
	"schedlab/report"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/vm"
)

// Outcome is what one run came to, whatever produced its events.
type Outcome struct {
	// Report is the run's report: the design's JSON keys, and the text.
	Report *report.Run
	// Analysis is what the report rounds, with the analysis's counts of
	// what the stream lacked.
	Analysis analyze.Report
	// Timer and Wakeup are the latency samples in ns: kept when asked
	// (Keep.Samples), and always for a trace or a recording, which are
	// read whole anyway.
	Timer, Wakeup []int64
	// Timeline is the first moments on each CPU (Keep.Timeline).
	Timeline *analyze.Timeline
	// RtappLogs are rt-app's per-thread logs of a simulation
	// (Keep.RtappLog).
	RtappLogs []*sim.RtappLog
	// End is when the stream ended (ns).
	End    int64
	Source Source
}

// Origin says what produced an outcome's events.
type Origin uint8

const (
	Simulation Origin = iota + 1 // the simulator
	HostKernel                   // the host runner, on this machine's kernel
	VMKernel                     // the host runner as init of a kernel in a VM
	TraceFile                    // a trace a user brought
)

// Source is where an outcome came from, with the facts of that origin:
// exactly one of the pointers is set, the one Origin names (Host for
// both real-kernel origins).
type Source struct {
	Origin Origin
	Sim    *Simulated
	Host   *Measured
	Trace  *Traced
}

// Simulated is a simulation's configuration.
type Simulated struct{ Config *Config }

// Measured is a run on a real kernel.
type Measured struct {
	Recording *host.Recording
	// Facts are the recording's, with the timer delivery this analysis
	// measured (the recording itself is left as it was).
	Facts host.Facts
	// TimerDelivery is how late the kernel delivered the workload's
	// timers: expected expiry to the waiter's sched_waking.
	TimerDelivery analyze.Stats
	// Trace is what reading the recording found.
	Trace *analyze.TraceResult
	// VM is the virtual machine the kernel ran in (nil: the host's own).
	VM *vm.Result
}

// Traced is a trace file's reading.
type Traced struct {
	Path  string
	Trace *analyze.TraceResult
}

// attach is the analysis attached to a stream: the analyzer, and what Keep
// asks besides (a timeline of the first moments, another sink).
type attach struct {
	an   *analyze.Analyzer
	tl   *analyze.TimelineRecorder
	keep Keep
}

func newAttach(keep Keep) *attach {
	a := &attach{an: analyze.NewWith(analyze.Options{Samples: keep.Samples, PerTask: keep.PerTask}), keep: keep}
	if keep.Timeline > 0 {
		a.tl = analyze.NewTimelineRecorder(int64(keep.Timeline))
	}
	return a
}

// extra is what sees every event besides the analysis (nil: nothing).
func (a *attach) extra() trace.Sink {
	var t trace.Tee
	if a.tl != nil {
		t = append(t, a.tl)
	}
	if a.keep.Sink != nil {
		t = append(t, a.keep.Sink)
	}
	switch len(t) {
	case 0:
		return nil
	case 1:
		return t[0]
	}
	return t
}

// sink is the analysis and the extras, for a producer that feeds one sink.
func (a *attach) sink() trace.Sink {
	if x := a.extra(); x != nil {
		return trace.Tee{a.an, x}
	}
	return a.an
}

// outcome completes the report whose head (what ran, and how) the
// producer filled in, from the analysis of the stream that ended at end:
// the one place where an analysis becomes a report.
func outcome(head *report.Run, rep analyze.Report, timer, wakeup []int64, tl *analyze.TimelineRecorder, end int64) *Outcome {
	head.FromAnalysis(rep)
	o := &Outcome{Report: head, Analysis: rep, Timer: timer, Wakeup: wakeup, End: end}
	if tl != nil {
		o.Timeline = tl.Timeline(end)
	}
	return o
}

// engineCost fills the engine figures of a run that took wall time.
func engineCost(events, traceEvents uint64, wall time.Duration) report.Engine {
	e := report.Engine{Events: events, TraceEvents: traceEvents, WallMS: float64(wall.Microseconds()) / 1000}
	if wall > 0 {
		e.EventsPerS = math.Round(float64(events) / wall.Seconds())
	}
	return e
}

// sinkWithout is sink with the wakeups of the tasks other says are not
// the workload's kept from the analysis, as a recording's other tasks'
// are (analyze.WorkloadFilter): they run and preempt, so their switches
// stay, but their wakeups are not samples. With started, neither are the
// first runs of the tasks the run starts with (sim.IsInitialFork), as
// for a recording that begins after they were forked. The extras see
// every event.
func (a *attach) sinkWithout(other func(pid int32) bool, started bool) trace.Sink {
	f := &otherFilter{next: a.an, other: other}
	if started {
		f.initial = map[int32]bool{}
	}
	if x := a.extra(); x != nil {
		return trace.Tee{f, x}
	}
	return f
}

type otherFilter struct {
	next    trace.Sink
	other   func(pid int32) bool
	initial map[int32]bool // started: the initial tasks whose first run is to come
}

func (f *otherFilter) Event(e *trace.Event) {
	switch e.Kind {
	case trace.Fork:
		if f.initial != nil && sim.IsInitialFork(e) {
			f.initial[e.ChildPID] = true
		}
	case trace.WakeupNew:
		if f.initial[e.PID] {
			delete(f.initial, e.PID)
			return
		}
		if f.other(e.PID) {
			return
		}
	case trace.Waking, trace.Wakeup:
		if f.other(e.PID) {
			return
		}
	}
	f.next.Event(e)
}

// withoutKernelRows takes the tasks other names out of the analysis's
// task tables, as a recording's table leaves out the machine's other
// tasks, and says so in the report's warnings.
func withoutKernelRows(r *report.Run, rep analyze.Report, other func(pid int32) bool) analyze.Report {
	comms := map[string]bool{}
	var n int
	var ns int64
	keep := func(rows []analyze.TaskRow, count bool) []analyze.TaskRow {
		if rows == nil {
			return nil
		}
		out := rows[:0:0]
		for _, row := range rows {
			if other(row.PID) || (!count && comms[row.Comm]) {
				if count {
					n++
					ns += row.Runtime
				}
				comms[row.Comm] = true
				continue
			}
			out = append(out, row)
		}
		return out
	}
	rep.Tasks = keep(rep.Tasks, true)
	rep.ByComm = keep(rep.ByComm, rep.Tasks == nil)
	if n > 0 {
		// The warnings so far are the workload's, shared by its runs.
		r.Warnings = append(slices.Clip(r.Warnings), fmt.Sprintf("%d task(s) of the simulated machine (kernel threads, a launcher) were on a CPU for %.2f ms (not in the table; their wakeups are not samples)", n, float64(ns)/1e6))
	}
	return rep
}
