package sim

import (
	"fmt"
	"io"
	"math"
	"slices"

	"schedlab/workload"
)

// rt-app's per-thread log (rt-app.c thread_body and log_timing): one line
// per phase loop executed, in µs, rounded as rt-app rounds
// (lround(ns/1000)):
//
//	idx        the thread's index (creation order)
//	perf       loops of rt-app's busy loop run by run events: µs/ns_per_loop
//	           per run (rt-app HEAD's loadwait), ns_per_loop being an integer
//	           global.calibration, else 1 (reconstruction: a simulated CPU
//	           has no loop to calibrate)
//	run        wall time spent in run and runtime events
//	period     wall time of the phase loop, first event to last
//	start, end the phase loop's start and end, on the simulation clock
//	rel_st     start relative to the use case's start (the simulation's 0)
//	slack      timer expiry minus the time the timer event began (the last
//	           timer's, or their sum with global.cumulative_slack); negative
//	           when late
//	c_duration configured µs of the run and runtime events
//	c_period   configured µs of the timer periods
//	wu_lat     the thread's running again minus the timer's expiry, summed
//	           over the phase's timers; rt-app resets it to 0 when a timer
//	           finds its expiry already past
//
// Only completed phase loops are logged: rt-app drops the one the end of
// the run interrupts.

// RtappRecord is one line of an rt-app log.
type RtappRecord struct {
	Idx                                 int
	Perf, Run, Period                   int64
	Start, End, RelStart                int64
	Slack                               int64
	CDuration, CPeriod, WuLat           int64
	runStart, startNS, wakeFrom, pendWu int64 // ns bookkeeping of the loop in progress
	running, waking                     bool
}

// RtappLog is one thread's log.
type RtappLog struct {
	Name string // rt-app's thread name: the task's name, "-", its index
	// Policy heads the log as rt-app 1.0 writes it: "# Policy : SCHED_OTHER
	// priority : 0" (the nice value of a fair task at its start).
	Policy  string
	Records []RtappRecord
	cur     RtappRecord
	open    bool
}

// RecordRtappLog makes the run keep rt-app's per-thread logs; call it
// before Run.
func (e *Engine) RecordRtappLog() { e.rtLogOn = true }

// RtappLogs returns the log of every thread that ran, by thread index.
func (e *Engine) RtappLogs() []*RtappLog {
	slices.SortFunc(e.rtLogs, func(a, b *RtappLog) int { return a.cur.Idx - b.cur.Idx })
	return e.rtLogs
}

func usRound(ns int64) int64 { return int64(math.Round(float64(ns) / 1000)) }

// The hooks below (logLoopStart to logTimer) run at every step of every
// task, and nearly no run keeps the logs: each is the flag's test, which
// inlines at the call, before the call of its body (the bodies' calls
// and rtLog's were 3 % of the busy engine's instructions).

// rtLog is t's log, made at its first use.
func (t *Task) rtLog() *RtappLog {
	if t.rl == nil {
		idx := t.st.PID - pidBase - 1
		t.rl = &RtappLog{Name: fmt.Sprintf("%s-%d", t.def.Name, idx), Policy: fmt.Sprintf("# Policy : %v priority : %d", t.st.Policy, t.st.Nice)}
		t.rl.cur.Idx = idx
		t.e.rtLogs = append(t.e.rtLogs, t.rl)
	}
	return t.rl
}

// logLoopStart and logLoopEnd bracket a phase loop (task.go's next).
func (t *Task) logLoopStart() {
	if t.e.rtLogOn {
		t.logLoopStartOn()
	}
}

func (t *Task) logLoopStartOn() {
	l := t.rtLog()
	idx := l.cur.Idx
	l.cur = RtappRecord{Idx: idx, startNS: t.e.now}
	l.open = true
}

func (t *Task) logLoopEnd() {
	if t.e.rtLogOn {
		t.logLoopEndOn()
	}
}

func (t *Task) logLoopEndOn() {
	l := t.rtLog()
	if !l.open {
		return
	}
	t.logStepOn()
	r := l.cur
	now := t.e.now
	r.Start, r.End, r.RelStart = usRound(r.startNS), usRound(now), usRound(r.startNS)
	r.Period = usRound(now - r.startNS)
	l.Records = append(l.Records, r)
	l.open = false
}

// logStep runs as the task steps to its next event: a run event, or a
// timer's wait, that was in progress has ended.
func (t *Task) logStep() {
	if t.e.rtLogOn {
		t.logStepOn()
	}
}

func (t *Task) logStepOn() {
	l := t.rtLog()
	if !l.open {
		return
	}
	r := &l.cur
	if r.running {
		r.Run += usRound(t.e.now - r.runStart) // rt-app rounds each run event
		r.running = false
	}
	if r.waking {
		r.WuLat += usRound(t.e.now - r.wakeFrom)
		r.waking = false
	}
}

// logEvent notes an event as it begins; d is a run's drawn length.
func (t *Task) logEvent(ev *workload.Event, d int64) {
	if t.e.rtLogOn {
		t.logEventOn(ev, d)
	}
}

func (t *Task) logEventOn(ev *workload.Event, d int64) {
	l := t.rtLog()
	if !l.open {
		return
	}
	r := &l.cur
	switch ev.Kind {
	case workload.Run, workload.Runtime:
		r.CDuration += usRound(d)
		r.Perf += usRound(d) / t.e.nsPerLoop()
		r.running, r.runStart = true, t.e.now
	}
}

// logTimer notes a timer event: its period, slack and, if the task
// sleeps, the expiry its wakeup latency counts from.
func (t *Task) logTimer(period, next int64, sleeps bool) {
	if t.e.rtLogOn {
		t.logTimerOn(period, next, sleeps)
	}
}

func (t *Task) logTimerOn(period, next int64, sleeps bool) {
	l := t.rtLog()
	if !l.open {
		return
	}
	r := &l.cur
	r.CPeriod += usRound(period)
	slack := usRound(next - t.e.now)
	if t.e.spec.Global.CumulativeSlack {
		r.Slack += slack
	} else {
		r.Slack = slack
	}
	if sleeps {
		r.waking, r.wakeFrom = true, next
	} else {
		r.WuLat = 0
	}
}

func (e *Engine) nsPerLoop() int64 {
	if n := e.spec.Global.NsPerLoop; n > 0 {
		return n
	}
	return 1
}

// WriteTo writes the log as rt-app 1.0 does: the policy line, the column
// header, then a line per loop.
func (l *RtappLog) WriteTo(w io.Writer) (int64, error) {
	var n int64
	k, err := fmt.Fprintf(w, "%s\n%s %8s %8s %8s %15s %15s %15s %10s %10s %10s %10s\n", l.Policy,
		"#idx", "perf", "run", "period", "start", "end", "rel_st", "slack", "c_duration", "c_period", "wu_lat")
	n += int64(k)
	for _, r := range l.Records {
		if err != nil {
			break
		}
		k, err = fmt.Fprintf(w, "%4d %8d %8d %8d %15d %15d %15d %10d %10d %10d %10d\n",
			r.Idx, r.Perf, r.Run, r.Period, r.Start, r.End, r.RelStart, r.Slack, r.CDuration, r.CPeriod, r.WuLat)
		n += int64(k)
	}
	return n, err
}
