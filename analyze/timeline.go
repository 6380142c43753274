package analyze

import "schedlab/trace"

// Timeline is what ran on each CPU in the first moments of a stream: the
// raw material of a per-CPU timeline chart.
type Timeline struct {
	Start, End int64 // the window (ns, stream time)
	CPUs       int
	Slices     []Slice // tasks on CPUs; the idle task is left out
	Waits      []Wait  // wakeup to switch-in, per woken task
	Marks      []TimelineMark
	Truncated  bool // the window held more than MaxTimelineItems items
	// Unknown counts slices left out because their switch-in is missing
	// (a real trace may lack some): drawing them from the window's start
	// would show a task running where it did not.
	Unknown int
}

// Slice is a task's time on a CPU.
type Slice struct {
	CPU        int32
	Start, End int64
	PID        int32
	Comm       string
	// Preempted: the task left the CPU runnable (prev_state R).
	Preempted bool
}

// Wait is one wakeup's latency: the task was woken (sched_waking or
// sched_wakeup_new) at From and switched in on CPU at To.
type Wait struct {
	CPU      int32
	From, To int64
	PID      int32
	Comm     string
}

// TimelineMark is an application mark.
type TimelineMark struct {
	CPU      int32
	TS       int64
	Mark     trace.MarkKind
	PID      int32
	Comm     string
	Expected int64
}

// MaxTimelineItems caps slices, waits and marks each, so a dense stream
// keeps the chart drawable.
const MaxTimelineItems = 20000

// TimelineRecorder is a trace.Sink that keeps the first Window
// nanoseconds of a stream as a Timeline. Events after the window cost a
// comparison.
type TimelineRecorder struct {
	window  int64
	t       Timeline
	started bool
	done    bool
	cur     []openSlice // per CPU: the task running there
	woken   idTable     // PID → when its pending wakeup started
}

type openSlice struct {
	open     bool
	switched bool // the CPU has had a switch: a slice has a known start
	start    int64
	pid      int32
	comm     string
}

// NewTimelineRecorder records the first window ns after the first event.
func NewTimelineRecorder(window int64) *TimelineRecorder {
	return &TimelineRecorder{window: window}
}

// Event implements trace.Sink.
func (r *TimelineRecorder) Event(e *trace.Event) {
	if r.done {
		return
	}
	if e.Kind == trace.Begin {
		// Not an event in time: it says how many CPUs to draw.
		r.t.CPUs = max(r.t.CPUs, min(int(e.CPUs), 1<<12))
		return
	}
	if !r.started {
		r.started = true
		r.t.Start = e.TS
	}
	end := r.t.Start + r.window
	if e.TS > end {
		r.finish(end)
		return
	}
	if e.CPU >= 0 && int(e.CPU) < 1<<12 && int(e.CPU) >= r.t.CPUs && e.Kind != trace.Mark {
		r.t.CPUs = int(e.CPU) + 1
	}
	switch e.Kind {
	case trace.Switch:
		if e.CPU < 0 || e.CPU >= 1<<12 {
			return
		}
		for int(e.CPU) >= len(r.cur) {
			r.cur = append(r.cur, openSlice{})
		}
		c := &r.cur[e.CPU]
		switch {
		case e.PID == 0:
		case c.open && c.pid == e.PID:
			r.addSlice(Slice{CPU: e.CPU, Start: c.start, End: e.TS, PID: e.PID, Comm: e.Comm, Preempted: e.PrevState == trace.Running})
		case !c.switched:
			// The CPU's first switch: the task ran since before the window.
			r.addSlice(Slice{CPU: e.CPU, Start: r.t.Start, End: e.TS, PID: e.PID, Comm: e.Comm, Preempted: e.PrevState == trace.Running})
		default:
			// Its switch-in is missing from the trace: when the slice
			// began is unknown, so it is not drawn (the analysis counts
			// these as missed switch-ins).
			r.t.Unknown++
		}
		*c = openSlice{switched: true}
		if e.NextPID != 0 {
			*c = openSlice{open: true, switched: true, start: e.TS, pid: e.NextPID, comm: e.NextComm}
			if from, ok := r.woken.get(e.NextPID); ok {
				r.woken.del(e.NextPID)
				if len(r.t.Waits) < MaxTimelineItems {
					r.t.Waits = append(r.t.Waits, Wait{CPU: e.CPU, From: from, To: e.TS, PID: e.NextPID, Comm: e.NextComm})
				} else {
					r.t.Truncated = true
				}
			}
		}
	case trace.Waking, trace.WakeupNew, trace.Wakeup:
		// The first wakeup event of a task off its CPU starts the wait.
		if e.PID == 0 || r.onCPU(e.PID) {
			return
		}
		if _, ok := r.woken.get(e.PID); !ok {
			r.woken.set(e.PID, e.TS)
		}
	case trace.Mark:
		if len(r.t.Marks) < MaxTimelineItems {
			r.t.Marks = append(r.t.Marks, TimelineMark{CPU: e.CPU, TS: e.TS, Mark: e.Mark, PID: e.PID, Comm: e.Comm, Expected: e.Expected})
		} else {
			r.t.Truncated = true
		}
	case trace.Lost, trace.BufferStart:
		// What is pending may have ended unseen.
		r.woken.clear()
	}
}

func (r *TimelineRecorder) onCPU(pid int32) bool {
	for i := range r.cur {
		if r.cur[i].open && r.cur[i].pid == pid {
			return true
		}
	}
	return false
}

func (r *TimelineRecorder) addSlice(s Slice) {
	if len(r.t.Slices) < MaxTimelineItems {
		r.t.Slices = append(r.t.Slices, s)
	} else {
		r.t.Truncated = true
	}
}

func (r *TimelineRecorder) finish(end int64) {
	if r.done {
		return
	}
	r.done = true
	for cpu, c := range r.cur {
		if c.open && c.start < end {
			r.addSlice(Slice{CPU: int32(cpu), Start: c.start, End: end, PID: c.pid, Comm: c.comm})
		}
	}
	r.t.End = end
}

// Timeline returns what was recorded. end is when the stream ended (a
// simulation's end time, or the last event of a trace); the window is cut
// there if it is shorter.
func (r *TimelineRecorder) Timeline(end int64) *Timeline {
	if !r.done {
		r.finish(min(end, r.t.Start+r.window))
	}
	t := r.t
	return &t
}
