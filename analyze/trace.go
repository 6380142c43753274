package analyze

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"schedlab/trace"
)

// TraceResult is what ReadTrace makes of a recorded trace.
type TraceResult struct {
	Report Report
	Parse  *trace.ParseStats
	// Start and End bound the statistics: the first event (or the last
	// restart) and the recording's end (a schedlab trace's end_ns, else
	// the last event).
	Start, End int64
	// Timer and Wakeup are the latency samples (ns), for CDFs.
	Timer, Wakeup []int64
}

// ReadTrace parses ftrace text (see trace.Parse for what it reads) and
// analyses it. extra, if not nil, receives every event too (a timeline
// recorder, say). Errors are I/O errors or a *trace.FormatError.
func ReadTrace(r io.Reader, extra trace.Sink) (*TraceResult, error) {
	return ReadTraceFiltered(r, nil, extra)
}

// A trace is read whole, so its analysis keeps what a run's may not: the
// samples (for CDFs) and a row per task.

// ReadTraceFiltered is ReadTrace with the analyzer (not extra) behind a
// filter: filter(next) returns the sink the parsed events go to, which
// passes on to next what the analysis should see. The host runner uses it
// to keep the host's own tasks out of the wakeup statistics. A filter
// must pass trace.Begin on.
func ReadTraceFiltered(r io.Reader, filter func(next trace.Sink) trace.Sink, extra trace.Sink) (*TraceResult, error) {
	a := NewWith(Options{Samples: true, PerTask: true})
	var to trace.Sink = NewSigevNumbering(a)
	if filter != nil {
		to = filter(to)
	}
	var sink trace.Sink = to
	if extra != nil {
		sink = trace.Tee{to, extra}
	}
	st, err := trace.Parse(r, sink)
	if err != nil {
		return nil, err
	}
	end := st.Last
	if v, ok := st.Meta["end_ns"]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= end {
			end = n
		}
	}
	res := &TraceResult{Report: a.Finish(end), Parse: st, Start: st.First, End: end}
	if res.Report.Restarts > 0 {
		res.Start = res.Report.RestartTS
	}
	res.Timer, res.Wakeup = a.Samples()
	return res, nil
}

// Notes describes, one sentence each, what the trace lacked or contained
// beyond the events used and how the analysis dealt with it. A clean trace
// has none.
func (t *TraceResult) Notes() []string {
	st, r := t.Parse, t.Report
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if st.Overwritten > 0 {
		add("the ring buffer overwrote %d events before the trace was read (entries-in-buffer/entries-written)", st.Overwritten)
	}
	if r.Restarts > 0 {
		add("%d CPU buffer(s) started late (\"##### CPU N buffer started ####\"): statistics start at the last, %.6f s, and leave out the %d events before it", r.Restarts, float64(r.RestartTS)/1e9, r.BeforeRestart)
	}
	if st.LostLines > 0 {
		what := fmt.Sprintf("%d events lost", st.LostEvents)
		if st.LostUnknown > 0 {
			what += fmt.Sprintf(", %d of the lines without a count", st.LostUnknown)
		}
		add("%d lost-events lines (%s): wakeups and preemptions pending at each were dropped, and the time slice then running on that CPU", st.LostLines, what)
	}
	if st.TruncatedLast {
		add("the last line has no newline (a truncated file) and was ignored")
	}
	if st.Unparsable > 0 {
		ex := ""
		if len(st.Examples) > 0 {
			ex = fmt.Sprintf(", first at line %d: %q", st.Examples[0].Line, st.Examples[0].Text)
		}
		add("%d lines could not be read and were skipped%s", st.Unparsable, ex)
	}
	if st.BadPayload > 0 {
		add("%d scheduler events lacked a needed field and were skipped", st.BadPayload)
	}
	if st.BadTimestamps > 0 {
		add("%d events had a negative or out-of-range timestamp and were skipped (first at line %d)", st.BadTimestamps, st.BadTimestampLine)
	}
	if st.Backwards > 0 {
		add("%d events had a timestamp before their CPU's previous event and were skipped (first at line %d)", st.Backwards, st.BackwardsLine)
	}
	if st.ForwardJumps > 0 {
		add("%d events had a timestamp ahead of their CPU's next events (a corrupted or misplaced line) and were skipped (first at line %d)", st.ForwardJumps, st.ForwardJumpLine)
	}
	if st.Late > 0 {
		add("%d events were further out of time order than the reorder window reaches and were skipped (first at line %d)", st.Late, st.LateLine)
	}
	if st.Reordered > 0 {
		add("%d events came after later events of other CPUs in the text and were put back in time order", st.Reordered)
	}
	if st.FailedWakeups > 0 {
		add("%d wakeups with success=0 (the task was already runnable) were skipped", st.FailedWakeups)
	}
	if st.BadMarks > 0 {
		add("%d schedlab marks lacked a field and were skipped", st.BadMarks)
	}
	if r.TimerUnmatched > 0 {
		add("%d callback_start marks had no timer_expiry before them (no timer-latency sample)", r.TimerUnmatched)
	}
	if r.UnknownStart > 0 {
		add("%d tasks were first seen leaving a CPU (running when the recording began): that time slice has no start and counts no runtime", r.UnknownStart)
	}
	if r.MissedSwitchIn > 0 {
		add("%d switch-ins were missing (a task left a CPU it was not seen entering): those slices count no runtime and their wakeups are not samples", r.MissedSwitchIn)
	}
	if r.PIDReuse > 0 {
		add("%d tasks reused the PID of an earlier task (each is its own row)", r.PIDReuse)
	}
	if st.RawClock {
		add("timestamps have no fraction (trace_clock counter or x86-tsc?): they were taken as nanoseconds")
	}
	if st.Marks == 0 {
		add("no schedlab timer marks (tracing_mark_write: I|pid|timer_expiry ...): no timer latency")
	}
	if st.Kinds[trace.Waking] == 0 && st.Kinds[trace.Wakeup] > 0 {
		add("no sched_waking events (kernels before 4.3): wakeup latency starts at sched_wakeup")
	}
	if len(st.Other) > 0 {
		var names []string
		for i, o := range st.Other {
			if i == 5 {
				names = append(names, "…")
				break
			}
			names = append(names, fmt.Sprintf("%s %d", o.Name, o.Count))
		}
		add("other events ignored: %s", strings.Join(names, ", "))
	}
	if st.OtherMarks > 0 {
		add("%d tracing_mark_write lines that are not schedlab marks were ignored", st.OtherMarks)
	}
	return out
}

// Counts are the trace's repair counts with stable keys, for JSON.
type Counts struct {
	Format            string `json:"format"`
	Lines             int    `json:"lines"`
	EventLines        int    `json:"event_lines"`
	SchedEvents       int    `json:"sched_events"`
	Marks             int    `json:"marks"`
	Unparsable        int    `json:"unparsable_lines"`
	TruncatedLast     bool   `json:"truncated_last_line"`
	LostLines         int    `json:"lost_lines"`
	LostEvents        int64  `json:"lost_events"`
	Overwritten       int64  `json:"overwritten_events"`
	BufferStarts      int    `json:"late_cpu_buffers"`
	BeforeRestart     int    `json:"events_before_restart"`
	BeforeFirstSwitch int    `json:"events_before_first_switch"`
	UnknownStart      int    `json:"tasks_running_at_start"`
	MissedSwitchIn    int    `json:"missed_switch_ins"`
	PIDReuse          int    `json:"pid_reuse"`
	Backwards         int    `json:"backwards_timestamps"`
	FailedWakeups     int    `json:"failed_wakeups"`
	BadPayload        int    `json:"bad_payloads"`
	BadMarks          int    `json:"bad_marks"`
	OtherMarks        int    `json:"other_marks"`
	OtherEvents       int    `json:"other_events"`
	TimerUnmatched    int    `json:"unmatched_callbacks"`
	StartNS           int64  `json:"start_ns"`
	EndNS             int64  `json:"end_ns"`

	// Timestamp damage and repair (docs/trace-format.md), present when
	// not zero: a clean trace's object keeps the keys it always had.
	// Damaged is the sum of the four kinds of damage; backwards_timestamps
	// above is the fourth.
	Damaged       int `json:"damaged_events,omitempty"`
	BadTimestamps int `json:"bad_timestamps,omitempty"`
	ForwardJumps  int `json:"forward_jumps,omitempty"`
	Late          int `json:"late_events,omitempty"`
	Reordered     int `json:"reordered_events,omitempty"`
}

// Counts returns the trace's counts.
func (t *TraceResult) Counts() Counts {
	st, r := t.Parse, t.Report
	c := Counts{Format: st.Format, Lines: st.Lines, EventLines: st.EventLines, SchedEvents: st.SchedEvents, Marks: st.Marks,
		Unparsable: st.Unparsable, TruncatedLast: st.TruncatedLast, LostLines: st.LostLines, LostEvents: st.LostEvents,
		Overwritten: st.Overwritten, BufferStarts: st.BufferStarts, BeforeRestart: r.BeforeRestart,
		BeforeFirstSwitch: r.BeforeFirstSwitch, UnknownStart: r.UnknownStart, MissedSwitchIn: r.MissedSwitchIn, PIDReuse: r.PIDReuse, Backwards: st.Backwards, FailedWakeups: st.FailedWakeups,
		BadPayload: st.BadPayload, BadMarks: st.BadMarks, OtherMarks: st.OtherMarks, TimerUnmatched: r.TimerUnmatched,
		StartNS: t.Start, EndNS: t.End,
		Damaged: st.Damaged(), BadTimestamps: st.BadTimestamps, ForwardJumps: st.ForwardJumps, Late: st.Late, Reordered: st.Reordered}
	for _, o := range st.Other {
		c.OtherEvents += o.Count
	}
	return c
}
