package analyze

import "schedlab/trace"

// WorkloadFilter passes the events of a recording on a real kernel to the
// analysis, except the wakeups of tasks that are not the workload's: the
// machine's own threads (kernel workers, the runner) run and preempt, and
// so stay in the CPU accounting, but their wakeups are not samples of the
// workload. The workload is the root process and everything forked from
// it.
type WorkloadFilter struct {
	next trace.Sink
	pids pidSet
}

// NewWorkloadFilter passes to next the events of the workload whose first
// process is root.
func NewWorkloadFilter(root int, next trace.Sink) *WorkloadFilter {
	f := &WorkloadFilter{next: next}
	f.pids.add(int32(root))
	return f
}

// Event implements trace.Sink.
func (f *WorkloadFilter) Event(e *trace.Event) {
	switch e.Kind {
	case trace.Fork:
		if f.pids.has(e.PID) {
			f.pids.add(e.ChildPID)
		}
	case trace.Waking, trace.Wakeup, trace.WakeupNew:
		if !f.pids.has(e.PID) {
			return
		}
	}
	f.next.Event(e)
}

// Has says whether pid is one of the workload's (seen so far).
func (f *WorkloadFilter) Has(pid int32) bool { return f.pids.has(pid) }

// maxDelivery bounds a plausible timer delivery (1 ms: ten times the
// slowest seen on this host, an idle vCPU's ~120 µs).
const maxDelivery = 1_000_000

// DeliveryMeter measures how late a kernel delivers a timer: from a timer
// sample's expected expiry to the sched_waking of the task that then
// writes the sample (an rt-app or signal timer's waiter; a SIGEV_THREAD
// callback is a new thread and has none). The simulator's counterpart is
// cost_wakeup_ns + cost_timer_irq_ns.
type DeliveryMeter struct {
	waking  idTable // PID → its last sched_waking
	samples []int64
}

// NewDeliveryMeter returns an empty meter.
func NewDeliveryMeter() *DeliveryMeter { return &DeliveryMeter{} }

// Event implements trace.Sink.
func (d *DeliveryMeter) Event(e *trace.Event) {
	switch e.Kind {
	case trace.Waking:
		d.waking.set(e.PID, e.TS)
	case trace.Mark:
		w, ok := d.waking.get(e.PID)
		if e.Mark != trace.CallbackStart || e.Expected == 0 || !ok {
			return
		}
		d.waking.del(e.PID)
		// A waking before the expiry, or more than maxDelivery after it,
		// is another wakeup's: a chain's sample (an input token) ends in a
		// task woken by a resume, and a SIGEV_THREAD callback's last waking
		// may be a preemption's.
		if dt := w - e.Expected; dt >= 0 && dt <= maxDelivery && w <= e.TS {
			d.samples = append(d.samples, dt)
		}
	}
}

// Stats summarises the delivery delays measured.
func (d *DeliveryMeter) Stats() Stats { return Summarise(d.samples) }
