package host

import (
	"bytes"
	"context"
	"fmt"

	"schedlab/analyze"
	"schedlab/report"
	"schedlab/trace"
)

// workloadFilter passes the events of a host recording to the analysis,
// except the wakeups of tasks that are not the workload's: the host's own
// threads (kernel workers, this program) run and preempt, and so stay in
// the CPU accounting, but their wakeups are not samples of the workload.
// The workload is the root process and everything forked from it.
type workloadFilter struct {
	next trace.Sink
	pids map[int32]bool
}

func newWorkloadFilter(root int) *workloadFilter {
	return &workloadFilter{pids: map[int32]bool{int32(root): true}}
}

func (f *workloadFilter) Event(e *trace.Event) {
	switch e.Kind {
	case trace.Fork:
		if f.pids[e.PID] {
			f.pids[e.ChildPID] = true
		}
	case trace.Waking, trace.Wakeup, trace.WakeupNew:
		if !f.pids[e.PID] {
			return
		}
	}
	f.next.Event(e)
}

// deliveryMeter measures how late the host delivers a timer: from a timer
// sample's expected expiry to the sched_waking of the task that then writes
// the sample (an rt-app or signal timer's waiter; a SIGEV_THREAD callback is
// a new thread and has none). The simulator's counterpart is
// cost_wakeup_ns + cost_timer_irq_ns.
// maxDelivery bounds a plausible timer delivery (1 ms: ten times the
// slowest seen on this host, an idle vCPU's ~120 µs).
const maxDelivery = 1_000_000

type deliveryMeter struct {
	waking  map[int32]int64
	samples []int64
}

func (d *deliveryMeter) Event(e *trace.Event) {
	switch e.Kind {
	case trace.Waking:
		d.waking[e.PID] = e.TS
	case trace.Mark:
		w, ok := d.waking[e.PID]
		if e.Mark != trace.CallbackStart || e.Expected == 0 || !ok {
			return
		}
		delete(d.waking, e.PID)
		// A waking before the expiry, or more than maxDelivery after it,
		// is another wakeup's: a chain's sample (an input token) ends in a
		// task woken by a resume, and a SIGEV_THREAD callback's last waking
		// may be a preemption's.
		if dt := w - e.Expected; dt >= 0 && dt <= maxDelivery && w <= e.TS {
			d.samples = append(d.samples, dt)
		}
	}
}

// Report analyses a host recording into a run report, as run reports a
// simulation: the same analysis, with the statistics of the workload's
// tasks. extra, if not nil, sees every event (an HTML timeline).
func Report(res *Result, scenario string, extra trace.Sink) (*analyze.TraceResult, *report.Run, error) {
	var f *workloadFilter
	dm := &deliveryMeter{waking: map[int32]int64{}}
	var sinks trace.Tee = trace.Tee{dm}
	if extra != nil {
		sinks = append(sinks, extra)
	}
	tr, err := analyze.ReadTraceFiltered(bytes.NewReader(res.Trace), func(next trace.Sink) trace.Sink {
		f = newWorkloadFilter(res.RootPID)
		f.next = next
		return f
	}, sinks)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the recording: %w", err)
	}
	res.TimerDelivery = analyze.Summarise(dm.samples)
	res.Facts.TimerDeliveryUS = float64(res.TimerDelivery.P50) / 1e3
	res.Facts.TimerDeliveryN = res.TimerDelivery.Count
	r := &report.Run{
		Scenario: scenario,
		Policy:   "host " + res.Facts.Kernel,
		CPUs:     max(tr.Parse.HeaderCPUs, tr.Parse.CPUs),
		Features: map[string]bool{},
		Tunables: map[string]int64{},
		SimNS:    res.End - res.Start,
		Warnings: tr.Notes(),
	}
	// The table shows the workload; the host's other tasks are summed.
	rep := tr.Report
	var rows []analyze.TaskRow
	var others int
	var otherNS int64
	for _, row := range rep.Tasks {
		if f.pids[row.PID] {
			rows = append(rows, row)
		} else {
			others++
			otherNS += row.Runtime
		}
	}
	rep.Tasks = rows
	r.FromAnalysis(rep)
	r.WastedCapacityMS = float64(rep.Wasted) / 1e6
	if others > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d other host task(s) were on a CPU for %.1f ms by the trace's switches (not in the table; their wakeups are not samples; a task whose switch-outs the trace lacks, such as this host's sandbox agent, shows too much)", others, float64(otherNS)/1e6))
	}
	if res.Overrun > 0 || res.Dropped > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the ring buffer lost events (overrun %d, dropped %d): rerun with a bigger --buffer-kb", res.Overrun, res.Dropped))
	}
	if res.Facts.StealPct > 1 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("steal time was %.1f%% of the run (host.md §10 advises discarding runs above 1%%)", res.Facts.StealPct))
	}
	for _, e := range res.WorkerErrors {
		r.Warnings = append(r.Warnings, "worker: "+e)
	}
	return tr, r, nil
}

// Measurement is one host run and its report.
type Measurement struct {
	Result *Result
	Trace  *analyze.TraceResult
	Run    *report.Run
}

// Measure runs o on the host and analyses the recording; scenario names
// the workload in the report.
func Measure(ctx context.Context, o Options, scenario string, extra trace.Sink) (*Measurement, error) {
	res, err := Run(ctx, o)
	if err != nil {
		return &Measurement{Result: res}, err
	}
	tr, r, err := Report(res, scenario, extra)
	if err != nil {
		return &Measurement{Result: res}, err
	}
	r.Seed = o.Seed
	return &Measurement{Result: res, Trace: tr, Run: r}, nil
}
