package trace

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// parseString parses s and returns its events but Begin (whose CPU count
// checkBegin checks against the header's).
func parseString(t *testing.T, s string) ([]Event, *ParseStats) {
	t.Helper()
	var rec Recorder
	st, err := Parse(strings.NewReader(s), &rec)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, s)
	}
	return checkBegin(t, rec.Events, st), st
}

// checkBegin checks that the Begin events say the header's CPU count, come
// first when the header does, and never shrink; it returns the other
// events.
func checkBegin(t *testing.T, events []Event, st *ParseStats) []Event {
	t.Helper()
	var out []Event
	var cpus int32
	for _, e := range events {
		if e.Kind != Begin {
			out = append(out, e)
			continue
		}
		if e.CPUs < cpus || e.CPUs < 1 {
			t.Errorf("Begin %+v after %d CPUs", e, cpus)
		}
		cpus = e.CPUs
	}
	if int(cpus) != st.HeaderCPUs {
		t.Errorf("Begin says %d CPUs, the header %d", cpus, st.HeaderCPUs)
	}
	return out
}

func parseFile(t *testing.T, name string) ([]Event, *ParseStats) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rec Recorder
	st, err := Parse(f, &rec)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return checkBegin(t, rec.Events, st), st
}

// TestOldLayouts: the same scenario in the 2.6.35 layout, the positional
// payloads of 2.6.31 and trace-cmd report's sched plugin gives the same
// events (prev_state letters, idle comms and the dropped-events line aside).
func TestOldLayouts(t *testing.T) {
	want := []Event{
		{TS: 100000100000, CPU: 0, Kind: Switch, PID: 0, Comm: "swapper", Prio: 120, PrevState: Running, NextPID: 100, NextComm: "a", NextPrio: 120},
		{TS: 100000200000, CPU: 0, Kind: Wakeup, PID: 200, Comm: "b", Prio: 120, TargetCPU: 0},
		{TS: 100000500000, CPU: 0, Kind: Switch, PID: 100, Comm: "a", Prio: 120, PrevState: Running, NextPID: 200, NextComm: "b", NextPrio: 120},
		{TS: 100001000000, CPU: 0, Kind: Fork, PID: 200, Comm: "b", ChildPID: 300, ChildComm: "c"},
		{TS: 100001010000, CPU: 0, Kind: WakeupNew, PID: 300, Comm: "c", Prio: 120, TargetCPU: 1},
		{TS: 100001200000, CPU: 1, Kind: Switch, PID: 0, Comm: "swapper", Prio: 120, PrevState: Running, NextPID: 300, NextComm: "c", NextPrio: 120},
		{TS: 100002000000, CPU: 0, Kind: Switch, PID: 200, Comm: "b", Prio: 120, PrevState: Sleeping, NextPID: 100, NextComm: "a", NextPrio: 120},
		{TS: 100003000000, CPU: 1, Kind: Exit, PID: 300, Comm: "c", Prio: 120},
		{TS: 100003010000, CPU: 1, Kind: Switch, PID: 300, Comm: "c", Prio: 120, PrevState: Dead, NextPID: 0, NextComm: "swapper", NextPrio: 120},
		{TS: 100004000000, CPU: 0, Kind: Migrate, PID: 100, Comm: "a", Prio: 120, OrigCPU: 0, DestCPU: 1},
	}
	for _, name := range []string{"linux-2.6.35.txt", "linux-2.6.31.txt", "trace-cmd-report.txt"} {
		got, st := parseFile(t, name)
		if name == "trace-cmd-report.txt" {
			// The plugin names idle per CPU, and a dropped-events line
			// comes before the exit.
			if len(got) != len(want)+1 || got[7].Kind != Lost || got[7].CPU != 1 || got[7].Seq != 12 || got[7].TS != 100003000000 {
				t.Fatalf("%s: %d events, lost %+v", name, len(got), got[7])
			}
			got = append(got[:7:7], got[8:]...)
			for i := range got {
				got[i].Comm = strings.TrimSuffix(strings.TrimSuffix(got[i].Comm, "/0"), "/1")
				got[i].NextComm = strings.TrimSuffix(strings.TrimSuffix(got[i].NextComm, "/0"), "/1")
			}
			if !st.traceCmd || st.HeaderCPUs != 2 || st.LostLines != 1 || st.LostEvents != 12 {
				t.Errorf("%s: stats %+v", name, st)
			}
		}
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("%s: event %d\n got %+v\nwant %+v", name, i, got[i], want[i])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d events, want %d", name, len(got), len(want))
			}
		}
		if st.Unparsable != 0 || st.SchedEvents != 10 || st.CPUs != 2 {
			t.Errorf("%s: %+v", name, st)
		}
		if name == "linux-2.6.31.txt" && st.positional != 10 {
			t.Errorf("%s: %d positional payloads", name, st.positional)
		}
		t.Logf("%s: %s", name, st.Format)
	}
}

// TestHostFixtures reads traces recorded on the host (testdata/README.md)
// and checks what each is known to contain.
func TestHostFixtures(t *testing.T) {
	t.Run("trace", func(t *testing.T) {
		ev, st := parseFile(t, "host-6.18-trace.txt")
		if st.Unparsable != 0 || st.Marks != 16 || st.BadMarks != 0 || st.HeaderCPUs != 2 || st.CPUs != 2 ||
			st.flags[5] != st.EventLines || st.tracer != "nop" || st.LostLines != 0 || st.TruncatedLast {
			t.Errorf("stats %+v", st)
		}
		if st.SchedEvents+st.Marks != len(ev) {
			t.Errorf("%d events for %d sched + %d marks", len(ev), st.SchedEvents, st.Marks)
		}
		var exp, cb int
		for _, e := range ev {
			if e.Kind == Mark && e.Mark == TimerExpiry {
				exp++
				if e.PID != 19960 || e.Comm != "python3" || e.Expected <= 3850e9 || e.Expected > e.TS {
					t.Errorf("expiry %+v", e)
				}
			}
			if e.Kind == Mark && e.Mark == CallbackStart {
				cb++
			}
		}
		if exp != 8 || cb != 8 {
			t.Errorf("%d expiries, %d callbacks", exp, cb)
		}
	})
	t.Run("overrun", func(t *testing.T) {
		ev, st := parseFile(t, "host-6.18-overrun.txt")
		if st.Overwritten != 13794-396 || st.BufferStarts != 1 || st.Unparsable != 0 {
			t.Errorf("stats %+v", st)
		}
		n := 0
		for i, e := range ev {
			if e.Kind == BufferStart {
				n++
				if e.CPU != 0 || e.TS != ev[i+1].TS || ev[i+1].CPU != 0 {
					t.Errorf("buffer start %+v before %+v", e, ev[i+1])
				}
			}
		}
		if n != 1 {
			t.Errorf("%d BufferStart events", n)
		}
	})
	t.Run("trace_pipe", func(t *testing.T) {
		ev, st := parseFile(t, "host-6.18-trace_pipe.txt")
		if st.LostLines != 5 || st.LostEvents != 4795+2863+1292+3244+717 || !st.TruncatedLast || st.Unparsable != 0 || st.HeaderCPUs != 0 {
			t.Errorf("stats %+v", st)
		}
		lost := 0
		for _, e := range ev {
			if e.Kind == Lost {
				lost++
			}
		}
		if lost != 5 || ev[0].Kind != Lost || ev[0].CPU != 1 || ev[0].Seq != 4795 || ev[0].TS != ev[1].TS {
			t.Errorf("%d Lost events, first %+v", lost, ev[0])
		}
	})
	t.Run("trace-cmd report", func(t *testing.T) {
		ev, st := parseFile(t, "trace-cmd-3.1-report.txt")
		if !st.traceCmd || st.HeaderCPUs != 2 || st.Unparsable != 0 || st.Marks != 8 || st.positional == 0 || st.BadPayload != 0 {
			t.Errorf("stats %+v", st)
		}
		for _, e := range ev {
			if e.Kind == Mark && (e.PID != 3147 || e.Comm != "python3") {
				t.Errorf("mark %+v", e)
			}
			if e.Kind == Switch && e.PID != 0 && (e.Comm == "" || strings.HasPrefix(e.Comm, "schedlab-tcx")) {
				t.Errorf("switch %+v", e)
			}
		}
	})
	t.Run("perf script", func(t *testing.T) {
		ev, st := parseFile(t, "perf-6.1-script.txt")
		if !st.perfStyle || st.Unparsable != 0 || len(st.Other) != 1 || st.Other[0].Name != "sched_stat_runtime" || st.Kinds[Waking] == 0 || st.Kinds[Switch] == 0 {
			t.Errorf("stats %+v", st)
		}
		if ev[0].Kind != Waking && ev[0].Kind != Switch && ev[0].Kind != Fork {
			t.Logf("first event %+v", ev[0])
		}
		if !strings.HasPrefix(st.Format, "perf script text") {
			t.Errorf("format %q", st.Format)
		}
	})
}

// TestLines covers line shapes one at a time.
func TestLines(t *testing.T) {
	const sw = "sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b b next_pid=2 next_prio=120"
	for _, c := range []struct {
		name, line string
		want       Event
	}{
		{"record-tgid", "          bash-1234    (   1200) [001] d..2.   812.004512: " + sw,
			Event{TS: 812004512000, CPU: 1, Kind: Switch, PID: 1, Comm: "a", Prio: 120, PrevState: Sleeping, NextPID: 2, NextComm: "b b", NextPrio: 120}},
		{"tgid unknown", "          bash-1234    (-------) [001] d..2.   812.004512: " + sw,
			Event{TS: 812004512000, CPU: 1, Kind: Switch, PID: 1, Comm: "a", Prio: 120, PrevState: Sleeping, NextPID: 2, NextComm: "b b", NextPrio: 120}},
		{"four flags", "  kworker/u4:1-[x]-77 [003] d.h2   316.196720: sched_waking: comm=foo-bar [1] pid=88 prio=100 target_cpu=002",
			Event{TS: 316196720000, CPU: 3, Kind: Waking, PID: 88, Comm: "foo-bar [1]", Prio: 100, TargetCPU: 2}},
		{"raw clock", "<...>-5 [000] 123456789: sched_wakeup: comm=x pid=5 prio=120 target_cpu=000",
			Event{TS: 123456789, CPU: 0, Kind: Wakeup, PID: 5, Comm: "x", Prio: 120}},
		{"ts-diff", "x-5 [000] 1.5: (+100) sched_wakeup: comm=x pid=5 prio=120 target_cpu=000",
			Event{TS: 1500000000, CPU: 0, Kind: Wakeup, PID: 5, Comm: "x", Prio: 120}},
		{"nanoseconds", "x-5 [000] 1.000000007: sched_wakeup: comm=x pid=5 prio=120 target_cpu=000",
			Event{TS: 1000000007, CPU: 0, Kind: Wakeup, PID: 5, Comm: "x", Prio: 120}},
		{"6.x preempted", "x-5 [000] ..... 2.0: sched_switch: prev_comm=x prev_pid=5 prev_prio=120 prev_state=R+ ==> next_comm=y next_pid=6 next_prio=120",
			Event{TS: 2e9, Kind: Switch, PID: 5, Comm: "x", Prio: 120, PrevState: Running, NextPID: 6, NextComm: "y", NextPrio: 120}},
		{"6.x zombie", "x-5 [000] ..... 2.0: sched_switch: prev_comm=x prev_pid=5 prev_prio=120 prev_state=Z ==> next_comm=y next_pid=6 next_prio=120",
			Event{TS: 2e9, Kind: Switch, PID: 5, Comm: "x", Prio: 120, PrevState: Dead, NextPID: 6, NextComm: "y", NextPrio: 120}},
		{"D|K state", "x-5 [000] ..... 2.0: sched_switch: prev_comm=x prev_pid=5 prev_prio=120 prev_state=D|K ==> next_comm=<...> next_pid=6 next_prio=120",
			Event{TS: 2e9, Kind: Switch, PID: 5, Comm: "x", Prio: 120, PrevState: Uninterruptible, NextPID: 6, NextPrio: 120}},
		{"trace-cmd print", "x-5 [000] 3.0: print:                tracing_mark_write: I|5|callback_start timer=2 seq=3",
			Event{TS: 3e9, Kind: Mark, PID: 5, Comm: "x", Mark: CallbackStart, Timer: 2, Seq: 3}},
		{"old print event", "<...>-5 [000] 3.0: 0: timer_expiry seq=3 timer=2 expected_ns=2999999000 extra=1",
			Event{TS: 3e9, Kind: Mark, PID: 5, Mark: TimerExpiry, Timer: 2, Seq: 3, Expected: 2999999000}},
		{"CRLF", "x-5 [000] 1.5: sched_wakeup: comm=x pid=5 prio=120 target_cpu=000\r",
			Event{TS: 1500000000, CPU: 0, Kind: Wakeup, PID: 5, Comm: "x", Prio: 120}},
		{"fork, parent_ keys", "x-5 [000] 1.5: sched_process_fork: parent_comm=x parent_pid=5 child_comm=y child_pid=6",
			Event{TS: 1500000000, Kind: Fork, PID: 5, Comm: "x", ChildPID: 6, ChildComm: "y"}},
	} {
		ev, st := parseString(t, c.line+"\n")
		if len(ev) != 1 || ev[0] != c.want {
			t.Errorf("%s: got %+v (stats %+v)\nwant %+v", c.name, ev, st, c.want)
		}
	}
}

// TestRepairs: what Parse drops and counts instead of failing.
func TestRepairs(t *testing.T) {
	text := strings.Join([]string{
		"# tracer: nop",
		"# entries-in-buffer/entries-written: 5/9   #P:4",
		"x-5 [000] 2.0: sched_wakeup: comm=x pid=5 prio=120 success=1 target_cpu=000",
		"x-5 [000] 1.0: sched_wakeup: comm=x pid=5 prio=120 target_cpu=000",                 // backwards: dropped
		"x-5 [000] 2.2: sched_waking: comm=x pid=5 prio=120 target_cpu=000",                 // (what says the line before is the bad one)
		"x-5 [000] 2.5: sched_wakeup: comm=x pid=5 prio=120 success=0 target_cpu=000",       // failed wakeup
		"x-5 [000] 2.6: sched_switch: prev_comm=x prev_pid=oops ==> next_comm=y next_pid=6", // bad payload
		"x-5 [000] 2.7: irq_handler_entry: irq=1 name=x",
		"x-5 [000] 2.8: irq_handler_entry: irq=1 name=x",
		"x-5 [000] 2.9: tracing_mark_write: hello",
		"x-5 [000] 2.9: tracing_mark_write: I|5|timer_expiry timer=1 seq=1",
		"garbage line",
		strings.Repeat("z", 100000),
		"CPU:3 [LOST 7 EVENTS]",
		"x-5 [002] 3.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000",
		"x-5 [002] 3.1: sched_waking: comm=x pid=5 prio=",
	}, "\n")
	ev, st := parseString(t, text)
	want := ParseStats{Lines: 16, EventLines: 10, SchedEvents: 3, Unparsable: 2, BadPayload: 1, TruncatedLast: true,
		LostLines: 1, LostEvents: 7, Overwritten: 4, Backwards: 1, BackwardsLine: 4, FailedWakeups: 1, BadMarks: 1, OtherMarks: 1,
		HeaderCPUs: 4, CPUs: 3, First: 2e9, Last: 3e9}
	got := *st
	got.Format, got.Kinds, got.Other, got.Examples, got.Meta = "", [16]int{}, nil, nil, nil
	got.flags, got.kv, got.positional, got.tracer, got.entriesIn, got.entriesAll, got.haveEntries, got.other = [8]int{}, 0, 0, "", 0, 0, false, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stats\n got %+v\nwant %+v", got, want)
	}
	if len(st.Other) != 1 || st.Other[0] != (NameCount{"irq_handler_entry", 2}) {
		t.Errorf("other %+v", st.Other)
	}
	if len(st.Examples) != 2 || st.Examples[0].Line != 12 || st.Examples[1].Line != 13 || len(st.Examples[1].Text) > 110 {
		t.Errorf("examples %+v", st.Examples)
	}
	if len(ev) != 4 || ev[2].Kind != Lost || ev[2].CPU != 3 || ev[2].TS != 3e9 || ev[3].Kind != Waking {
		t.Errorf("events %+v", ev)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "is empty"},
		{"NUL", "abc\x00def", "not text"},
		{"binary", string([]byte{1, 2, 3, 4, 5, 6, 7, 8, 200, 201, 14, 15, 16}), "not text"},
		{"trace.dat", "\x17\x08\x44tracing6\x00", "trace-cmd report"},
		{"perf.data", "PERFILE2\x00\x00", "perf script"},
		{"gzip", "\x1f\x8b\x08\x00", "gzip"},
		{"not a trace", "{\"tasks\": {}}\n", `line 1 reads "{\"tasks\": {}}"`},
		{"blank", "\n\n  \n", "no ftrace event lines"},
		{"one line, no newline", "x-5 [000] 1.0: sched_wakeup: comm=x pid=5 prio=120 target_cpu=000", "has no complete line"},
		{"header only", "# tracer: nop\n#\n", "no ftrace event lines"},
		{"no sched events", "x-5 [000] 2.7: irq_handler_entry: irq=1 name=x\n", "no sched_switch"},
	} {
		_, err := Parse(strings.NewReader(c.in), &Recorder{})
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want a FormatError with %q", c.name, err, c.want)
		}
	}
}

func TestParseMark(t *testing.T) {
	for _, e := range sample() {
		if e.Kind != Mark {
			continue
		}
		var got Event
		ok, valid := ParseMark(FormatMark(&e), &got)
		if !ok || !valid || got.Mark != e.Mark || got.Timer != e.Timer || got.Seq != e.Seq || got.Expected != e.Expected {
			t.Errorf("%q → %+v", FormatMark(&e), got)
		}
	}
	for _, c := range []struct {
		text      string
		ok, valid bool
	}{
		{"I|1|timer_expiry timer=1 seq=2", true, false},
		{"timer_missed timer=x seq=2", true, false},
		{"callback_start timer=1", true, false},
		{"B|1|callback_start", false, false},
		{"I|1callback_start timer=1 seq=1", false, false},
		{"callback_started timer=1 seq=1", false, false},
		{"timer_missed timer=99999999999 seq=1", true, false},
	} {
		var e Event
		if ok, valid := ParseMark(c.text, &e); ok != c.ok || valid != c.valid {
			t.Errorf("%q: ok %v valid %v", c.text, ok, valid)
		}
	}
}

func TestTimerSignals(t *testing.T) {
	evs, st := parseString(t, `# tracer: nop
          <idle>-0       [000] dNh3.    29.322483: signal_generate: sig=32 errno=0 code=-2 comm=sigev helper pid=910 grp=0 res=0
          <idle>-0       [000] dNh3.    29.332483: signal_generate: sig=32 errno=0 code=-2 comm=sigev-helper pid=910 grp=0 res=2
       schedlab-1    [000] d..1.    29.342483: signal_generate: sig=9 errno=0 code=0 comm=hog pid=911 grp=1 res=0
        callback-911 [000] ...1.    29.352768: tracing_mark_write: I|907|callback_start timer=0 seq=1 expected_ns=29322360564 period_ns=10000000
`)
	if len(evs) != 2 || evs[0].Kind != TimerSignal || evs[0].PID != 910 || evs[0].Comm != "sigev helper" || evs[0].TS != 29322483000 {
		t.Fatalf("events %+v, want the timer signal and the mark", evs)
	}
	if st.OtherSignals != 2 {
		t.Errorf("%d other signals, want 2 (one already pending, one a kill)", st.OtherSignals)
	}
	if m := evs[1]; m.Kind != Mark || m.Period != 10e6 || m.Expected != 29322360564 {
		t.Errorf("mark %+v, want period 10 ms", m)
	}
	if got := FormatMark(&evs[1]); got != "I|911|callback_start timer=0 seq=1 expected_ns=29322360564 period_ns=10000000" {
		t.Errorf("the mark writes back as %q", got)
	}
}
