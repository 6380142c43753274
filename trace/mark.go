package trace

import (
	"strconv"
	"strings"
)

// Application marks travel in a trace as trace_marker writes, which tracefs
// prints as "tracing_mark_write: TEXT". schedlab's TEXT is an atrace
// instant event, so that the Perfetto UI shows each mark on its writer's
// thread track, with the mark in the event's name:
//
//	I|<pid>|timer_expiry timer=<id> seq=<n> expected_ns=<ns>
//	I|<pid>|callback_start timer=<id> seq=<n> [expected_ns=<ns>]
//	I|<pid>|timer_missed timer=<id> seq=<n>
//
// <pid> is the writer (atrace puts the process id there; the parser does
// not use it). <id> is the timer's identifier in the recording, <n> the
// expiry's number from 1, and expected_ns the time the expiry was
// programmed for, in nanoseconds of the trace clock (the clock of the
// line's timestamp: with trace_clock "mono", CLOCK_MONOTONIC). The parser
// also accepts the text without the "I|<pid>|" prefix, and keys in any
// order; other keys are ignored.
//
// A callback_start may carry expected_ns itself. The host runner writes its
// samples that way, in one write at the callback's first instruction: a
// SIGEV_THREAD callback runs in a thread nobody could have prepared an
// expiry mark for, and one write keeps the marker's own cost out of the
// sample.

// AppendMark appends e's mark payload to b.
func AppendMark(b []byte, e *Event) []byte {
	// atrace's instant event names the writer's process: a viewer such as
	// Perfetto files the mark under that pid's process.
	pid := e.PID
	if e.TGID != 0 {
		pid = e.TGID
	}
	b = append(b, "I|"...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, '|')
	b = append(b, e.Mark.String()...)
	b = append(b, " timer="...)
	b = strconv.AppendInt(b, int64(e.Timer), 10)
	b = append(b, " seq="...)
	b = strconv.AppendInt(b, e.Seq, 10)
	if e.Mark == TimerExpiry || (e.Mark == CallbackStart && e.Expected != 0) {
		b = append(b, " expected_ns="...)
		b = strconv.AppendInt(b, e.Expected, 10)
	}
	if e.Mark == CallbackStart && e.Period > 0 {
		b = append(b, " period_ns="...)
		b = strconv.AppendInt(b, e.Period, 10)
	}
	return b
}

// FormatMark returns e's mark payload, the text a workload writes to
// trace_marker.
func FormatMark(e *Event) string { return string(AppendMark(nil, e)) }

// markResult says what ParseMark made of a marker text.
type markResult uint8

const (
	markOther markResult = iota // not a schedlab mark
	markOK
	markBad // a schedlab mark name with missing or malformed fields
)

// ParseMark reads a schedlab mark payload into e's Mark, Timer, Seq and
// Expected. It reports whether the text is a schedlab mark at all (ok) and
// whether its fields were complete (valid).
func ParseMark(text string, e *Event) (ok, valid bool) {
	r := parseMark(text, e)
	return r != markOther, r == markOK
}

func parseMark(text string, e *Event) markResult {
	s := strings.TrimSpace(text)
	// Optional atrace instant prefix "I|<pid>|".
	if strings.HasPrefix(s, "I|") {
		rest := s[2:]
		i := strings.IndexByte(rest, '|')
		if i < 0 {
			return markOther
		}
		s = rest[i+1:]
	}
	name, args, _ := strings.Cut(s, " ")
	var m MarkKind
	switch name {
	case "timer_expiry":
		m = TimerExpiry
	case "callback_start":
		m = CallbackStart
	case "timer_missed":
		m = TimerMissed
	default:
		return markOther
	}
	var haveTimer, haveSeq, haveExp bool
	var timer, seq, exp, period int64
	for args != "" {
		var tok string
		tok, args, _ = strings.Cut(args, " ")
		k, v, found := strings.Cut(tok, "=")
		if !found {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		switch k {
		case "timer":
			if err != nil || n < -1<<31 || n >= 1<<31 {
				return markBad
			}
			timer, haveTimer = n, true
		case "seq":
			if err != nil {
				return markBad
			}
			seq, haveSeq = n, true
		case "expected_ns":
			if err != nil {
				return markBad
			}
			exp, haveExp = n, true
		case "period_ns":
			if err != nil || n <= 0 {
				return markBad
			}
			period = n
		}
	}
	if !haveTimer || !haveSeq || (m == TimerExpiry && !haveExp) {
		return markBad
	}
	e.Mark, e.Timer, e.Seq, e.Expected, e.Period = m, int32(timer), seq, exp, 0
	if m == TimerMissed {
		e.Expected = 0
	}
	if m == CallbackStart && exp != 0 {
		e.Period = period
	}
	return markOK
}
