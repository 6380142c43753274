package trace_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"schedlab/analyze"
	"schedlab/trace"
)

// FuzzParse feeds arbitrary text to the parser and the analysis behind it.
// Nothing may panic; the events come out in time order and add up to the
// counts; and the text schedlab writes for them reads back as the same
// events once written (write∘parse is idempotent from the second round)
// when no comm holds a '[' or runs over 512 bytes.
//
//	go test ./trace -run '^$' -fuzz FuzzParse -fuzztime 10m
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if len(b) > 2000 {
			f.Add(b[:2000]) // a truncated copy
		}
	}
	for _, s := range []string{
		"",
		"# tracer: nop\n",
		"x-5 [000] 1.0: sched_wakeup: comm=x pid=5 prio=120 target_cpu=000\n",
		"x-5 [000] ..... 1.0: sched_switch: prev_comm=a b prev_pid=1 prev_prio=1 prev_state=R+ ==> next_comm=c next_pid=2 next_prio=3\n",
		"CPU:1 [LOST 3 EVENTS]\n##### CPU 1 buffer started ####\nx-5 [001] 1.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000\n",
		"x-5 [000] 1.0: tracing_mark_write: I|5|timer_expiry timer=1 seq=1 expected_ns=5\n",
		"x-0 [000] 1.0: signal_generate: sig=32 errno=0 code=-2 comm=a b pid=7 grp=0 res=0\nx-7 [000] 1.1: tracing_mark_write: I|7|callback_start timer=1 seq=1 expected_ns=5 period_ns=9\n",
		"x-5 (  5) [000] d..2 1.0: sched_switch: task a:1 [120] (R) ==> b:2 [120]\n",
		"perf 5 [000] 1.0: sched:sched_process_fork: comm=a pid=1 child_comm=b child_pid=2\n",
		// Timestamps out of place: one years ahead, one back, CPUs interleaved out of order, one negative.
		"x-5 [000] 1.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000\nx-5 [000] 9000000000.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000\n" +
			"x-5 [001] 1.5: sched_waking: comm=x pid=5 prio=120 target_cpu=000\nx-5 [000] 0.5: sched_waking: comm=x pid=5 prio=120 target_cpu=000\n" +
			"x-5 [001] 1.2: sched_waking: comm=x pid=5 prio=120 target_cpu=000\nx-5 [000] -2.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000\n" +
			"x-5 [000] 2.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events, st, err := parse(data)
		if err != nil {
			var fe *trace.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a FormatError: %v", err)
			}
			return
		}
		// Begin events say the header's CPU count, growing, and are no lines.
		begins, cpus := 0, int32(0)
		for _, e := range events {
			if e.Kind == trace.Begin {
				if e.CPUs < cpus || e.CPUs < 1 {
					t.Fatalf("Begin with %d CPUs after %d", e.CPUs, cpus)
				}
				begins, cpus = begins+1, e.CPUs
			}
		}
		if int(cpus) != st.HeaderCPUs {
			t.Fatalf("Begin says %d CPUs, the header %d", cpus, st.HeaderCPUs)
		}
		if len(events)-begins != st.SchedEvents+st.Marks+st.LostLines+st.BufferStarts {
			t.Fatalf("%d events for %+v", len(events), st)
		}
		if st.EventLines > st.Lines || st.SchedEvents+st.Marks > st.EventLines {
			t.Fatalf("counts %+v", st)
		}
		for i := 1; i < len(events); i++ {
			if events[i].TS < events[i-1].TS {
				t.Fatalf("event %d goes back in time: %+v after %+v", i, events[i], events[i-1])
			}
		}
		a := analyze.NewWith(analyze.Options{PerTask: true})
		for i := range events {
			a.Event(&events[i])
		}
		r := a.Finish(st.Last)
		if r.WakeupLatency.Count > 0 && r.WakeupLatency.Min < 0 {
			t.Fatalf("negative wakeup latency %+v", r.WakeupLatency)
		}
		for _, row := range append(r.Tasks, r.ByComm...) {
			if row.Runtime < 0 || row.MaxDelay < 0 || row.Switches < 0 {
				t.Fatalf("row %+v", row)
			}
		}

		// The line is anchored on its "[CPU]" column, looked for in the
		// first KiB, so a comm that holds a bracketed number can be taken
		// for it (in the kernel's format as in ours), and one of more than
		// about a KiB hides it: the round trip is checked for other comms.
		for _, e := range events {
			if c := e.Comm + e.NextComm + e.ChildComm; strings.Contains(c, "[") || len(e.Comm) > 512 || len(e.NextComm) > 512 ||
				(len(e.Comm) >= 16 && e.Comm[0] == '#') { // fills the TASK column: a comment
				return
			}
		}
		once, _, err := parse(writeEvents(t, events))
		if err != nil {
			if len(events) == st.LostLines+st.BufferStarts { // nothing but annotations
				return
			}
			t.Fatalf("schedlab's own text does not parse: %v", err)
		}
		twice, _, err := parse(writeEvents(t, once))
		if err != nil || !reflect.DeepEqual(once, twice) {
			t.Fatalf("write∘parse is not idempotent (%v):\n%+v\n%+v", err, once, twice)
		}
	})
}

func parse(data []byte) ([]trace.Event, *trace.ParseStats, error) {
	var rec trace.Recorder
	st, err := trace.Parse(bytes.NewReader(data), &rec)
	return rec.Events, st, err
}

func writeEvents(t *testing.T, events []trace.Event) []byte {
	var b bytes.Buffer
	w := trace.NewWriter(&b, trace.WriterOptions{CPUs: 2})
	for i := range events {
		w.Event(&events[i])
	}
	if err := w.Close(0); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
