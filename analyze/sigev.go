package analyze

import "schedlab/trace"

// SigevNumbering gives each SIGEV_THREAD callback of a recording the
// expiry the kernel signalled for it, where the trace has the timer's
// signals (trace.TimerSignal).
//
// The host runner's callback cannot know which expiry it serves: glibc
// passes it neither the expiry nor the overrun count, and the count that
// timer_getoverrun reports is the last signal's, which under load is
// already the next one. A merge whose count is read as 0 so numbers every
// later callback a period early (host/worker.c's sigev_callback says so).
// The kernel knows: each expiry that fires queues one signal for glibc's
// helper thread (a timer whose signal is pending is not restarted, and
// the expiries merged into it never fire), and the helper creates one
// callback thread for each signal it takes, in order. So the k-th callback
// the helper forks serves the k-th signal, and its expiry is the point of
// the callback's grid (the mark's expected_ns and period_ns) that the
// signal follows. The grid points between two signals are the missed expiries; the
// worker's own timer_missed marks for such a timer are dropped.
//
// A trace without timer signals (the simulator's, an older recording)
// passes through unchanged.
type SigevNumbering struct {
	next trace.Sink
	// signals: each thread's timer signals not yet taken by a fork, in
	// order; child: a callback thread's signal.
	signals map[int32][]int64
	child   map[int32]int64
	// timers: the grid of each timer whose callbacks were renumbered.
	timers map[int32]*sigevGrid
	// helperOf: the helper thread that forked a callback not yet started.
	// helper: the timer whose callbacks a helper thread forks, once known
	// (-1: the helper serves more than one); waiting: its signals that
	// came before that.
	helperOf map[int32]int32
	helper   map[int32]int32
	waiting  map[int32][]int64
	ev       trace.Event
}

// maxGapMissed bounds the missed expiries counted between two signals.
const maxGapMissed = 1 << 20

// sigevGrid is a timer's grid: first expiry, period and the last grid
// point a signal fired at (first − period before any). gaps: its missed
// expiries are counted from its signals, which needs a helper thread of
// its own (glibc has one per process, so two SIGEV_THREAD timers of one
// process share it; then the worker's marks count them, as without
// signals).
type sigevGrid struct {
	first, period, last int64
	gaps                bool
}

// NewSigevNumbering returns the stage in front of next.
func NewSigevNumbering(next trace.Sink) *SigevNumbering {
	return &SigevNumbering{next: next}
}

// Event implements trace.Sink.
func (s *SigevNumbering) Event(e *trace.Event) {
	switch e.Kind {
	case trace.TimerSignal:
		if s.signals == nil {
			s.signals, s.child, s.timers = map[int32][]int64{}, map[int32]int64{}, map[int32]*sigevGrid{}
			s.helperOf, s.helper, s.waiting = map[int32]int32{}, map[int32]int32{}, map[int32][]int64{}
		}
		s.signals[e.PID] = append(s.signals[e.PID], e.TS)
		if id, ok := s.helper[e.PID]; ok {
			s.fired(e, id, e.TS)
		} else {
			s.waiting[e.PID] = append(s.waiting[e.PID], e.TS)
		}
		return // the analysis has no use for it
	case trace.Fork:
		if q := s.signals[e.PID]; len(q) > 0 {
			s.child[e.ChildPID], s.signals[e.PID] = q[0], q[1:]
			s.helperOf[e.ChildPID] = e.PID
		}
	case trace.Mark:
		if s.timers == nil {
			break
		}
		switch e.Mark {
		case trace.CallbackStart:
			sig, ok := s.child[e.PID]
			if !ok || e.Expected == 0 || e.Period <= 0 {
				break
			}
			delete(s.child, e.PID)
			g := s.timers[e.Timer]
			if g == nil {
				g = &sigevGrid{first: e.Expected - (e.Seq-1)*e.Period, period: e.Period, gaps: true}
				g.last = g.first - g.period
				s.timers[e.Timer] = g
			}
			m := *e
			m.Expected = g.point(sig)
			m.Seq = (m.Expected-g.first)/g.period + 1
			if h, ok := s.helperOf[e.PID]; ok {
				delete(s.helperOf, e.PID)
				switch id, known := s.helper[h]; {
				case !known:
					s.helper[h] = e.Timer
					for _, ts := range s.waiting[h] {
						s.fired(&m, e.Timer, ts)
					}
					delete(s.waiting, h)
				case id != e.Timer && id >= 0:
					// A second timer on the same helper: neither one's
					// gaps are its own any more.
					s.timers[id].gaps, g.gaps, s.helper[h] = false, false, -1
				case id < 0:
					g.gaps = false
				}
			}
			s.next.Event(&m)
			return
		case trace.TimerMissed:
			if g := s.timers[e.Timer]; g != nil && g.gaps {
				return // counted from the signals instead (fired)
			}
		}
	}
	s.next.Event(e)
}

// point is the expiry a signal at ts was sent for: the last grid point at
// or before it. The signal follows its expiry by the timer interrupt's
// delivery (µs on an idle CPU, more on a VM's host), so the point is the
// one before ts, not the nearest; it may be printed up to a microsecond
// before its ns-exact grid point (a tracefs text clock of 1 µs), which
// the slack allows.
func (g *sigevGrid) point(ts int64) int64 {
	slack := min(g.period/4, 10_000)
	d := ts - g.first + slack
	k := d / g.period
	if d < 0 && d%g.period != 0 {
		k-- // floor
	}
	return g.first + k*g.period
}

// fired notes timer id's signal at ts: each grid point between the last
// signal's and this one is a missed expiry, marked as the worker marks
// one (by e's writer, at e's time: the stream stays in order).
func (s *SigevNumbering) fired(e *trace.Event, id int32, ts int64) {
	g := s.timers[id]
	if g == nil || !g.gaps {
		return
	}
	p := g.point(ts)
	// At most maxGapMissed marks for one gap: a trace that is not a
	// real recording (a fuzzer's) may put a signal years after the last.
	for at, n := g.last+g.period, 0; at < p && n < maxGapMissed; at, n = at+g.period, n+1 {
		s.ev = trace.Event{TS: e.TS, CPU: e.CPU, Kind: trace.Mark, PID: e.PID, Comm: e.Comm, Mark: trace.TimerMissed,
			Timer: id, Seq: (at-g.first)/g.period + 1}
		s.next.Event(&s.ev)
	}
	g.last = max(g.last, p)
}
