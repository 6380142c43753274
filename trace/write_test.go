package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sample is one event of every kind the Writer prints, on two CPUs.
func sample() []Event {
	return []Event{
		{TS: 0, CPU: 0, Kind: Fork, PID: 1000, Comm: "rt-app", ChildPID: 1001, ChildComm: "make"},
		{TS: 0, CPU: 0, Kind: WakeupNew, PID: 1001, Comm: "make", Prio: 120, TargetCPU: 0},
		{TS: 5, CPU: 0, Kind: Switch, PID: 0, Comm: "swapper", Prio: 120, NextPID: 1001, NextComm: "make", NextPrio: 120},
		{TS: 1_000_123, CPU: 0, Kind: Waking, PID: 1002, Comm: "Web Content-1", Prio: 139, TargetCPU: 1},
		{TS: 1_000_200, CPU: 0, Kind: Wakeup, PID: 1002, Comm: "Web Content-1", Prio: 139, TargetCPU: 1},
		{TS: 1_000_300, CPU: 1, Kind: Switch, PID: 0, Comm: "swapper", Prio: 120, NextPID: 1002, NextComm: "Web Content-1", NextPrio: 139},
		{TS: 2_500_000, CPU: 1, Kind: Mark, PID: 1002, Comm: "Web Content-1", Mark: TimerExpiry, Timer: 3, Seq: 17, Expected: 2_400_000},
		{TS: 2_600_000, CPU: 1, Kind: Mark, PID: 1002, Comm: "Web Content-1", Mark: CallbackStart, Timer: 3, Seq: 17},
		{TS: 2_700_000, CPU: 1, Kind: Mark, PID: 1002, Comm: "Web Content-1", Mark: TimerMissed, Timer: 3, Seq: 18},
		{TS: 4_000_000, CPU: 0, Kind: Switch, PID: 1001, Comm: "make", Prio: 120, PrevState: Running, NextPID: 0, NextComm: "swapper", NextPrio: 120},
		{TS: 4_000_001, CPU: 0, Kind: Migrate, PID: 1001, Comm: "make", Prio: 120, OrigCPU: 0, DestCPU: 1},
		{TS: 5_000_000, CPU: 1, Kind: Exit, PID: 1002, Comm: "Web Content-1", Prio: 139},
		{TS: 5_000_010, CPU: 1, Kind: Switch, PID: 1002, Comm: "Web Content-1", Prio: 139, PrevState: Dead, NextPID: 1001, NextComm: "make", NextPrio: 120},
		{TS: 61_000_000_000, CPU: 1, Kind: Switch, PID: 1001, Comm: "make", Prio: 120, PrevState: Sleeping, NextPID: 0, NextComm: "swapper", NextPrio: 120},
		{TS: 61_000_000_000, CPU: 1, Kind: Lost, Seq: 42},
		{TS: 61_000_000_001, CPU: 0, Kind: BufferStart},
	}
}

func write(t *testing.T, events []Event, o WriterOptions) string {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, o)
	for i := range events {
		w.Event(&events[i])
	}
	if err := w.Close(62_000_000_000); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWriterLayout pins the 6.x tracefs layout (docs/trace-format.md): comm
// right-aligned in 16, '-', pid left-aligned in 7, space, [CPU] in 3 digits,
// space, 5 flags, space, seconds right-aligned in 5, the fraction, ": ",
// event, ": ", payload.
func TestWriterLayout(t *testing.T) {
	got := write(t, sample(), WriterOptions{CPUs: 2, Meta: [][2]string{{"scenario", "two hogs"}, {"seed", "1"}}})
	want := `# tracer: nop
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
# schedlab: scenario=two_hogs seed=1
          rt-app-1000    [000] .....     0.000000000: sched_process_fork: comm=rt-app pid=1000 child_comm=make child_pid=1001
          <idle>-0       [000] d..2.     0.000000000: sched_wakeup_new: comm=make pid=1001 prio=120 target_cpu=000
          <idle>-0       [000] d..2.     0.000000005: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=make next_pid=1001 next_prio=120
            make-1001    [000] d..2.     0.001000123: sched_waking: comm=Web Content-1 pid=1002 prio=139 target_cpu=001
            make-1001    [000] d..2.     0.001000200: sched_wakeup: comm=Web Content-1 pid=1002 prio=139 target_cpu=001
          <idle>-0       [001] d..2.     0.001000300: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=Web Content-1 next_pid=1002 next_prio=139
   Web Content-1-1002    [001] ...1.     0.002500000: tracing_mark_write: I|1002|timer_expiry timer=3 seq=17 expected_ns=2400000
   Web Content-1-1002    [001] ...1.     0.002600000: tracing_mark_write: I|1002|callback_start timer=3 seq=17
   Web Content-1-1002    [001] ...1.     0.002700000: tracing_mark_write: I|1002|timer_missed timer=3 seq=18
            make-1001    [000] d..2.     0.004000000: sched_switch: prev_comm=make prev_pid=1001 prev_prio=120 prev_state=R+ ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       [000] d..2.     0.004000001: sched_migrate_task: comm=make pid=1001 prio=120 orig_cpu=0 dest_cpu=1
   Web Content-1-1002    [001] .....     0.005000000: sched_process_exit: comm=Web Content-1 pid=1002 prio=139 group_dead=false
   Web Content-1-1002    [001] d..2.     0.005000010: sched_switch: prev_comm=Web Content-1 prev_pid=1002 prev_prio=139 prev_state=X ==> next_comm=make next_pid=1001 next_prio=120
            make-1001    [001] d..2.    61.000000000: sched_switch: prev_comm=make prev_pid=1001 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
CPU:1 [LOST 42 EVENTS]
##### CPU 0 buffer started ####
# schedlab: end_ns=62000000000 events=14
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}

	// A control character in a comm would break the line.
	nl := write(t, []Event{{TS: 1, Kind: Exit, PID: 5, Comm: "a\nb\x7f"}}, WriterOptions{})
	if !strings.Contains(nl, "           a?b?-5       [000] .....     0.000000001: sched_process_exit: comm=a?b? pid=5") {
		t.Errorf("control characters:\n%s", nl)
	}

	// Micro: the tracefs timestamp exactly, truncated to the microsecond.
	micro := write(t, sample()[3:4], WriterOptions{Micro: true})
	if !strings.Contains(micro, "          <idle>-0       [000] d..2.     0.001000: sched_waking: ") {
		t.Errorf("micro layout:\n%s", micro)
	}
}

// TestWriterEntries: a file gets the entries line with the real count
// (patched at Close), a stream gets none.
func TestWriterEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f, WriterOptions{CPUs: 2})
	ev := sample()
	for i := range ev {
		w.Event(&ev[i])
	}
	if err := w.Close(1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	if got := strings.TrimRight(lines[2], " "); got != "# entries-in-buffer/entries-written: 14/14   #P:2" {
		t.Errorf("entries line %q", lines[2])
	}
	if lines[3] != "#" || lines[4] != "#                                _-----=> irqs-off/BH-disabled" {
		t.Errorf("header after the entries line: %q", lines[3:5])
	}
	st, err := Parse(bytes.NewReader(b), &Recorder{})
	if err != nil || st.HeaderCPUs != 2 || st.Overwritten != 0 {
		t.Errorf("parse: %v, %+v", err, st)
	}
}

// TestPerfettoLayout checks every event line against what Perfetto's
// systrace text importer requires of a line (its tokenizer, in our words):
// a '-', the pid and whitespace; the CPU in brackets; optionally flags made
// of three letters or dots followed by one or two hex digits or dots, and
// whitespace; a decimal timestamp with a fraction; ": "; the event name
// and ':'. Its sched_switch parser then needs prev_pid, prev_prio,
// next_pid and next_prio as integers, splitting the payload on spaces.
func TestPerfettoLayout(t *testing.T) {
	out := write(t, sample(), WriterOptions{CPUs: 2})
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if line == "" || line[0] == '#' || strings.HasPrefix(line, "CPU:") {
			continue
		}
		n++
		open := strings.Index(line, " [")
		closeB := strings.Index(line, "] ")
		if open < 0 || closeB < open {
			t.Fatalf("no [CPU]: %q", line)
		}
		task := strings.TrimRight(line[:open], " ")
		dash := strings.LastIndexByte(task, '-')
		if dash < 0 || !allDigits(task[dash+1:]) || line[open] != ' ' {
			t.Errorf("task-pid %q", task)
		}
		if !allDigits(line[open+2 : closeB]) {
			t.Errorf("cpu in %q", line)
		}
		rest := line[closeB+2:]
		flags, rest, _ := strings.Cut(rest, " ")
		if len(flags) != 5 || !flagsOK(flags) {
			t.Errorf("flags %q in %q", flags, line)
		}
		rest = strings.TrimLeft(rest, " ")
		ts, rest, ok := strings.Cut(rest, ": ")
		if !ok || !isTimestamp(ts) || !strings.Contains(ts, ".") {
			t.Errorf("timestamp %q in %q", ts, line)
		}
		name, payload, ok := strings.Cut(rest, ": ")
		if !ok || strings.ContainsAny(name, " :") {
			t.Errorf("event name %q in %q", name, line)
		}
		if name == "sched_switch" {
			args := map[string]string{}
			for _, tok := range strings.Split(payload, " ") {
				if k, v, ok := strings.Cut(tok, "="); ok {
					args[k] = v
				}
			}
			for _, k := range []string{"prev_pid", "prev_prio", "next_pid", "next_prio"} {
				if !allDigits(args[k]) {
					t.Errorf("%s=%q in %q", k, args[k], line)
				}
			}
		}
		if name == "tracing_mark_write" && !strings.HasPrefix(payload, "I|") {
			t.Errorf("mark is not an atrace instant: %q", payload)
		}
	}
	if n != 14 {
		t.Errorf("%d event lines", n)
	}
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func flagsOK(f string) bool {
	for i, c := range f {
		letterOrDot := c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		hexOrDot := c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
		if (i < 3 && !letterOrDot) || (i >= 3 && !hexOrDot) {
			return false
		}
	}
	return true
}

// TestRoundTrip: Parse gives back what the Writer was given, field by
// field, except that the idle task's comm is spelled per CPU.
func TestRoundTrip(t *testing.T) {
	in := sample()
	for _, micro := range []bool{false, true} {
		var rec Recorder
		st, err := Parse(strings.NewReader(write(t, in, WriterOptions{CPUs: 2, Micro: micro})), &rec)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Events) != len(in) {
			t.Fatalf("micro=%v: %d events back, want %d", micro, len(rec.Events), len(in))
		}
		for i, e := range in {
			want := e
			if want.Kind == Switch {
				if want.PID == 0 {
					want.Comm = "swapper/" + string(rune('0'+want.CPU))
				}
				if want.NextPID == 0 {
					want.NextComm = "swapper/" + string(rune('0'+want.CPU))
				}
			}
			if micro {
				want.TS = want.TS / 1000 * 1000
			}
			if want.Kind == Lost || want.Kind == BufferStart {
				want.TS = rec.Events[i].TS // they take the next event's (or the last) timestamp
			}
			if !reflect.DeepEqual(rec.Events[i], want) {
				t.Errorf("micro=%v event %d:\n got %+v\nwant %+v", micro, i, rec.Events[i], want)
			}
		}
		if st.Meta["end_ns"] != "62000000000" || st.Marks != 3 || st.SchedEvents != 11 || st.LostLines != 1 || st.BufferStarts != 1 {
			t.Errorf("stats %+v", st)
		}
	}
}

// A callback_start may carry its expiry (the host runner's one-write
// sample); a timer_missed never does.
func TestMarkExpectedOnCallback(t *testing.T) {
	var e Event
	if ok, valid := ParseMark("I|5|callback_start timer=1 seq=2 expected_ns=300", &e); !ok || !valid || e.Mark != CallbackStart || e.Expected != 300 {
		t.Fatalf("parsed %+v (ok %v valid %v)", e, ok, valid)
	}
	e.PID = 5
	if got := FormatMark(&e); got != "I|5|callback_start timer=1 seq=2 expected_ns=300" {
		t.Errorf("FormatMark = %q", got)
	}
	e.Expected = 0
	if got := FormatMark(&e); got != "I|5|callback_start timer=1 seq=2" {
		t.Errorf("FormatMark without expiry = %q", got)
	}
	var m Event
	if ParseMark("timer_missed timer=1 seq=3 expected_ns=9", &m); m.Expected != 0 {
		t.Errorf("timer_missed kept expected_ns: %+v", m)
	}
}

// With TGID the writer prints tracefs's record-tgid column from the
// thread groups the forks give, and the parser reads the lines back.
func TestWriterTGID(t *testing.T) {
	evs := []Event{
		{TS: 0, CPU: 0, Kind: Fork, PID: 1000, Comm: "rt-app", TGID: 1000, ChildPID: 1001, ChildComm: "make", ChildTGID: 1000},
		{TS: 10, CPU: 0, Kind: Fork, PID: 1001, Comm: "make", TGID: 1000, ChildPID: 1002, ChildComm: "sh", ChildTGID: 1002},
		{TS: 20, CPU: 0, Kind: Switch, PID: 0, Comm: "swapper", Prio: 120, NextPID: 1002, NextComm: "sh", NextPrio: 120},
		{TS: 30, CPU: 0, Kind: Exit, PID: 1002, Comm: "sh", Prio: 120},
		{TS: 40, CPU: 1, Kind: Switch, PID: 7, Comm: "other", Prio: 120, NextPID: 0, NextComm: "swapper", NextPrio: 120},
		{TS: 45, CPU: 0, Kind: Mark, Mark: CallbackStart, PID: 1001, Comm: "make", Timer: 1, Seq: 1},
	}
	var b bytes.Buffer
	w := NewWriter(&b, WriterOptions{CPUs: 2, TGID: true})
	for i := range evs {
		w.Event(&evs[i])
	}
	if err := w.Close(50); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"          rt-app-1000    (   1000) [000] .....",
		"            make-1001    (   1000) [000] .....",
		"              sh-1002    (   1002) [000] .....     0.000000030: sched_process_exit: comm=sh pid=1002 prio=120 group_dead=true",
		"           other-7       (-------) [001]",
		"          <idle>-0       (      0) [000]",
		"TASK-PID     TGID     CPU#",
		// atrace's instant names the process, not the thread.
		"tracing_mark_write: I|1000|callback_start timer=1 seq=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	var rec Recorder
	st, err := Parse(bytes.NewReader(b.Bytes()), &rec)
	if err != nil || st.SchedEvents+st.Marks != len(evs) {
		t.Fatalf("read back %d events (%v), want %d:\n%s", st.SchedEvents, err, len(evs), out)
	}
}
