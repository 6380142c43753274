package trace

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// cleanTrace is n events in time order over two CPUs, 1 ms apart: a
// waking and a switch per step, so that each CPU's stream is dense.
func cleanTrace(n int) []string {
	var lines []string
	for i := range n {
		cpu := i % 2
		ts := fmt.Sprintf("%d.%09d", 1+i/1000, (i%1000)*1e6)
		if i%3 == 0 {
			lines = append(lines, fmt.Sprintf("x-5 [%03d] d..2. %s: sched_waking: comm=x pid=%d prio=120 target_cpu=%03d", cpu, ts, 100+i, cpu))
		} else {
			lines = append(lines, fmt.Sprintf("x-5 [%03d] d..2. %s: sched_switch: prev_comm=a prev_pid=%d prev_prio=120 prev_state=S ==> next_comm=b next_pid=%d next_prio=120", cpu, ts, 100+i, 101+i))
		}
	}
	return lines
}

// withTS replaces the timestamp of an event line.
func withTS(line, ts string) string {
	i := strings.Index(line, "d..2. ") + len("d..2. ")
	j := strings.Index(line[i:], ": ")
	return line[:i] + ts + line[i+j:]
}

// damage is what a test needs to see of the stats.
func damageOf(st *ParseStats) string {
	return fmt.Sprintf("sched %d, bad %d@%d, backwards %d@%d, forward %d@%d, late %d@%d, reordered %d", st.SchedEvents,
		st.BadTimestamps, st.BadTimestampLine, st.Backwards, st.BackwardsLine, st.ForwardJumps, st.ForwardJumpLine, st.Late, st.LateLine, st.Reordered)
}

func parseLines(t *testing.T, lines []string) ([]Event, *ParseStats) {
	t.Helper()
	return parseString(t, strings.Join(lines, "\n")+"\n")
}

// TestOneBadTimestamp: one corrupted timestamp costs that one event,
// wherever it is and whichever way it jumped, and is counted with its
// line; every other event comes out as from the clean text.
func TestOneBadTimestamp(t *testing.T) {
	clean := cleanTrace(3000)
	want, _ := parseLines(t, clean)
	for _, c := range []struct {
		name     string
		at       int
		ts       string
		backward bool
	}{
		{"years ahead", 1200, "9000000000.000000000", false},
		{"a second ahead", 1200, "3.100000000", false},
		{"just past the next few", 1200, "2.210000000", false},
		{"the first line, ahead", 0, "8000.0", false},
		{"the last line, years ahead", 2999, "9000000000.0", false},
		{"back to the start", 1200, "0.000000001", true},
		{"a little back", 1200, "2.150000000", true},
	} {
		lines := append([]string(nil), clean...)
		lines[c.at] = withTS(lines[c.at], c.ts)
		got, st := parseLines(t, lines)
		w := append(append([]Event(nil), want[:c.at]...), want[c.at+1:]...)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %d events, want the %d of the clean text but line %d", c.name, len(got), len(w), c.at+1)
		}
		damage, line := st.ForwardJumps, st.ForwardJumpLine
		if c.backward {
			damage, line = st.Backwards, st.BackwardsLine
		}
		if st.Damaged() != 1 || damage != 1 || line != c.at+1 || st.Reordered != 0 || st.SchedEvents != len(w) {
			t.Errorf("%s: %s", c.name, damageOf(st))
		}
	}
}

// TestReorder: CPUs interleaved out of time order are put back in order
// (each CPU's own order intact), and nothing is damage.
func TestReorder(t *testing.T) {
	split := func(l []string) []string { // one CPU after the other
		var a, b []string
		for i, s := range l {
			if i%2 == 0 {
				a = append(a, s)
			} else {
				b = append(b, s)
			}
		}
		return append(a, b...)
	}
	clean := cleanTrace(600)
	want, _ := parseLines(t, clean)
	for _, c := range []struct {
		name string
		mix  func([]string) []string
	}{
		{"neighbours swapped (trace_pipe)", func(l []string) []string {
			for i := 0; i+1 < len(l); i += 5 {
				l[i], l[i+1] = l[i+1], l[i]
			}
			return l
		}},
		{"one CPU after the other", split},
	} {
		got, st := parseLines(t, c.mix(append([]string(nil), clean...)))
		if !reflect.DeepEqual(got, want) || st.Damaged() != 0 || st.Reordered == 0 {
			t.Errorf("%s: %d events, %s", c.name, len(got), damageOf(st))
		}
	}
	// One CPU after the other over more than crossSlack: the first CPU's
	// last event has no later event of its own to vouch for it, and the
	// other CPU's, all more than a second earlier, say it jumped. That one
	// event is the price; the rest is merged.
	clean = cleanTrace(2400)
	want, _ = parseLines(t, clean)
	got, st := parseLines(t, split(append([]string(nil), clean...)))
	if w := append(append([]Event(nil), want[:2398]...), want[2399]); !reflect.DeepEqual(got, w) || st.ForwardJumps != 1 || st.Damaged() != 1 || st.ForwardJumpLine != 1200 {
		t.Errorf("split over 2.4 s: %d events, %s", len(got), damageOf(st))
	}
}

// TestLate: an event further out of place than the window reaches is
// damage, counted as such, and the rest stays in order.
func TestLate(t *testing.T) {
	clean := cleanTrace(window + lookahead + 1000)
	want, _ := parseLines(t, clean)
	// CPU 2's only event, in order on its CPU, comes far too late in the
	// text.
	at := window + lookahead + 500
	lines := append(append(clean[:at:at], "x-5 [002] d..2. 1.000500000: sched_waking: comm=x pid=5 prio=120 target_cpu=002"), clean[at:]...)
	got, st := parseLines(t, lines)
	if !reflect.DeepEqual(got, want) || st.Late != 1 || st.Damaged() != 1 || st.LateLine != at+1 {
		t.Errorf("%s, %d events", damageOf(st), len(got))
	}
	// Within the window, it is put in its place.
	at = window / 2
	lines = append(append(clean[:at:at], "x-5 [002] d..2. 1.000500000: sched_waking: comm=x pid=5 prio=120 target_cpu=002"), clean[at:]...)
	if got, st := parseLines(t, lines); len(got) != len(want)+1 || got[1].CPU != 2 || st.Damaged() != 0 || st.Reordered != 1 {
		t.Errorf("within the window: %s", damageOf(st))
	}
}

// TestAnnotationsInOrder: a lost-events line keeps its place before the
// event printed after it, when that event is put back in time order.
func TestAnnotationsInOrder(t *testing.T) {
	lines := []string{
		"x-5 [000] d..2. 1.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000",
		"x-5 [000] d..2. 1.2: sched_waking: comm=x pid=6 prio=120 target_cpu=000",
		"CPU:1 [LOST 3 EVENTS]",
		"x-5 [001] d..2. 1.1: sched_waking: comm=x pid=7 prio=120 target_cpu=001",
		"x-5 [001] d..2. 1.3: sched_waking: comm=x pid=8 prio=120 target_cpu=001",
		"CPU:0 [LOST 1 EVENTS]",
	}
	got, st := parseLines(t, lines)
	var order []string
	for _, e := range got {
		order = append(order, fmt.Sprintf("%v@%d", e.Kind, e.TS/1e8))
	}
	want := "sched_waking@10 lost_events@11 sched_waking@11 sched_waking@12 sched_waking@13 lost_events@13"
	if strings.Join(order, " ") != want || st.Reordered != 1 {
		t.Errorf("order %v, want %s; %s", order, want, damageOf(st))
	}
}

// TestMostlyDamaged: when most scheduler events are unusable, Parse says
// so and why, in one line, instead of reporting what is left as the trace.
func TestMostlyDamaged(t *testing.T) {
	clean := cleanTrace(2000)
	r := rand.New(rand.NewPCG(1, 2))
	garbage := append([]string(nil), clean...)
	for i := range garbage {
		if r.IntN(10) < 6 {
			garbage[i] = withTS(garbage[i], fmt.Sprintf("%d.%09d", r.IntN(4), r.IntN(1e9)))
		}
	}
	negative := append([]string(nil), clean[:10]...)
	for i := range negative {
		negative[i] = withTS(negative[i], "-1.5")
	}
	huge := []string{withTS(clean[0], "99999999999.000000"), withTS(clean[1], "1234567890123456789012")}
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"garbage timestamps", garbage, []string{"is too damaged to analyse", "of its 2000 scheduler events and marks are unusable", "earlier than their CPU's previous event (first at line"}},
		{"negative timestamps", negative, []string{"10 of its 10 scheduler events and marks are unusable (10 with a negative or out-of-range timestamp (first at line 1: \"x-5 [000] d..2. -1.5: sched_waking"}},
		{"huge timestamps", huge, []string{"2 of its 2 scheduler events and marks are unusable (2 with a negative or out-of-range timestamp"}},
	} {
		st, err := Parse(strings.NewReader(strings.Join(c.lines, "\n")+"\n"), &Recorder{})
		var fe *FormatError
		if !errors.As(err, &fe) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want a one-line FormatError", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
		if st.EventLines != len(c.lines) {
			t.Errorf("%s: %d event lines of %d", c.name, st.EventLines, len(c.lines))
		}
	}
	// Half is not most: the trace is analysed, its damage reported.
	half := append([]string(nil), clean[:10]...)
	for i := 0; i < 5; i++ {
		half[i] = withTS(half[i], "-1.0")
	}
	if _, st := parseLines(t, half); st.BadTimestamps != 5 || st.BadTimestampLine != 1 || st.SchedEvents != 5 {
		t.Errorf("half: %s", damageOf(st))
	}
}

// TestUnconfirmedLastJump: the trace's last event, which nothing after it
// can vouch for, is damage when it jumps more than maxJump after a trace
// of short steps, and not when the trace was that sparse all along (so
// that reading schedlab's own text of the result drops nothing more).
func TestUnconfirmedLastJump(t *testing.T) {
	line := func(cpu int, ts string) string {
		return fmt.Sprintf("x-5 [%03d] d..2. %s: sched_waking: comm=x pid=5 prio=120 target_cpu=000", cpu, ts)
	}
	for _, c := range []struct {
		name string
		ts   []string
		want int // events kept
	}{
		{"a jump of two days after steps of a second", []string{"1.0", "2.0", "3.0", "172803.0"}, 3},
		{"a jump of an hour", []string{"1.0", "2.0", "3.0", "3603.0"}, 4},
		{"steps of two days throughout", []string{"1.0", "172801.0", "345601.0"}, 3},
	} {
		var lines []string
		for i, ts := range c.ts {
			lines = append(lines, line(i%2, ts))
		}
		if got, st := parseLines(t, lines); len(got) != c.want || st.ForwardJumps != len(c.ts)-c.want {
			t.Errorf("%s: %d events, %s", c.name, len(got), damageOf(st))
		}
	}
}
