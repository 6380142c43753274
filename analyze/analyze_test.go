package analyze

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"schedlab/trace"
)

func TestSummarise(t *testing.T) {
	// 1..1000 µs, shuffled: nearest rank of p is the ceil(p*1000)-th value,
	// reported as the midpoint of its Hist bucket. 500 000 ns has 19 bits:
	// its bucket keeps the top 11, [499 968, 500 223], midpoint 500 095;
	// 900 000, 990 000 and 999 000 have 20: buckets of 512 from 899 584,
	// 989 696 and 998 912.
	samples := make([]int64, 1000)
	for i := range samples {
		samples[i] = int64(i+1) * 1000
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(samples), func(i, j int) {
		samples[i], samples[j] = samples[j], samples[i]
	})
	got := Summarise(samples)
	want := Stats{
		Count: 1000, Sum: 500500 * 1000, Min: 1000, Max: 1000000,
		P50: 500095, P90: 899584 + 255, P99: 989696 + 255, P999: 998912 + 255,
		// 1 | 2,3 | 4..7 | … | 256..511 | 512..1000
		Hist: Log2Hist{[]int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 489}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summarise(1..1000µs) =\n%+v\nwant\n%+v", got, want)
	}
	if got.Avg() != 500500 {
		t.Errorf("Avg = %v, want 500500", got.Avg())
	}

	// Small n, where ceil matters: ranks ceil(1.5)=2, ceil(2.7)=3.
	got = Summarise([]int64{30, 10, 20})
	if got.P50 != 20 || got.P90 != 30 || got.P99 != 30 || got.P999 != 30 || got.Min != 10 {
		t.Errorf("Summarise(10,20,30) = %+v", got)
	}
	got = Summarise([]int64{7})
	if got.P50 != 7 || got.P999 != 7 || got.Avg() != 7 {
		t.Errorf("Summarise(7) = %+v", got)
	}

	if got := Summarise(nil); !reflect.DeepEqual(got, Stats{}) || got.Avg() != 0 {
		t.Errorf("Summarise(nil) = %+v, avg %v", got, got.Avg())
	}
}

func TestLog2HistBuckets(t *testing.T) {
	for _, c := range []struct {
		ns     int64
		bucket int
	}{
		{0, 0}, {999, 0}, {1000, 0}, {1999, 0},
		{2000, 1}, {3999, 1},
		{4000, 2}, {7999, 2},
		{8000, 3},
		{1023000, 9}, {1023999, 9},
		{1024000, 10},
		{-5000, 0},
	} {
		var h Log2Hist
		h.Add(c.ns)
		if len(h.Buckets) != c.bucket+1 || h.Buckets[c.bucket] != 1 {
			t.Errorf("Add(%dns): buckets %v, want a 1 in bucket %d", c.ns, h.Buckets, c.bucket)
		}
	}
}

func TestLog2HistWrite(t *testing.T) {
	h := Log2Hist{[]int64{0, 3, 6, 0, 1, 0, 0}}
	var b strings.Builder
	if err := h.Write(&b, "usecs"); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"     usecs               : count    distribution\n" +
		"         2 -> 3          : 3        |********************                    |\n" +
		"         4 -> 7          : 6        |****************************************|\n" +
		"         8 -> 15         : 0        |                                        |\n" +
		"        16 -> 31         : 1        |******                                  |\n"
	if b.String() != want {
		t.Errorf("Write:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	h = Log2Hist{[]int64{5}}
	h.Write(&b, "usecs")
	want = "" +
		"     usecs               : count    distribution\n" +
		"         0 -> 1          : 5        |****************************************|\n"
	if b.String() != want {
		t.Errorf("Write:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	Log2Hist{[]int64{0, 0}}.Write(&b, "usecs")
	if b.Len() != 0 {
		t.Errorf("empty histogram wrote %q", b.String())
	}
}

// Event builders keep the hand-written streams readable.
func waking(ts int64, pid int32) trace.Event {
	return trace.Event{TS: ts, Kind: trace.Waking, PID: pid}
}

func wakeup(ts int64, pid int32) trace.Event {
	return trace.Event{TS: ts, Kind: trace.Wakeup, PID: pid}
}

func wakeupNew(ts int64, pid int32) trace.Event {
	return trace.Event{TS: ts, Kind: trace.WakeupNew, PID: pid}
}

func switchTo(ts int64, prev int32, state trace.TaskState, next int32, nextComm string) trace.Event {
	return trace.Event{TS: ts, Kind: trace.Switch, PID: prev, PrevState: state, NextPID: next, NextComm: nextComm}
}

func fork(ts int64, parent, child int32, comm string) trace.Event {
	return trace.Event{TS: ts, Kind: trace.Fork, PID: parent, ChildPID: child, ChildComm: comm}
}

func exit(ts int64, pid int32) trace.Event {
	return trace.Event{TS: ts, Kind: trace.Exit, PID: pid}
}

func mark(ts int64, m trace.MarkKind, timer int32, seq, expected int64) trace.Event {
	return trace.Event{TS: ts, Kind: trace.Mark, PID: 5, Mark: m, Timer: timer, Seq: seq, Expected: expected}
}

func run(events []trace.Event, end int64) Report {
	a := NewWith(Options{Samples: true, PerTask: true})
	for i := range events {
		a.Event(&events[i])
	}
	return a.Finish(end)
}

func TestTwoTasks(t *testing.T) {
	const A, B = 10, 20
	R, S := trace.Running, trace.Sleeping
	events := []trace.Event{
		switchTo(0, 0, R, A, "a"),    // A in, never seen waking: no delay
		waking(100, B),               // B's wakeup starts
		wakeup(150, B),               // ignored: B's Waking is pending
		switchTo(1000, A, R, B, "b"), // A preempted after 1000; B in: delay and sample 900
		waking(1200, B),              // ignored: B is running
		switchTo(3000, B, S, A, "a"), // B ran 2000; A in: delay 2000 from preemption, no sample
		switchTo(3500, A, S, 0, ""),  // A ran 500
		wakeup(4000, B),              // no Waking pending: starts at Wakeup
		switchTo(4300, 0, R, B, "b"), // B in: delay and sample 300
		waking(5000, A),
		switchTo(5100, B, R, A, "a"), // B ran 800, preempted; A in: delay and sample 100
	}
	got := run(events, 6000) // A runs 900 more; B's preemption stays open
	want := []TaskRow{
		{Comm: "a", PID: A, Tasks: 1, Runtime: 2400, Switches: 3, Delays: 2, DelaySum: 2100, AvgDelay: 1050,
			MaxDelay: 2000, MaxDelayStart: 1000, MaxDelayEnd: 3000},
		{Comm: "b", PID: B, Tasks: 1, Runtime: 2800, Switches: 2, Delays: 2, DelaySum: 1200, AvgDelay: 600,
			MaxDelay: 900, MaxDelayStart: 100, MaxDelayEnd: 1000},
	}
	if !reflect.DeepEqual(got.Tasks, want) {
		t.Errorf("Tasks =\n%+v\nwant\n%+v", got.Tasks, want)
	}
	wantWake := Stats{Count: 3, Sum: 1300, Min: 100, Max: 900,
		P50: 300, P90: 900, P99: 900, P999: 900, Hist: Log2Hist{[]int64{3}}}
	if !reflect.DeepEqual(got.WakeupLatency, wantWake) {
		t.Errorf("WakeupLatency = %+v, want %+v", got.WakeupLatency, wantWake)
	}
	if got.Events != len(events) {
		t.Errorf("Events = %d, want %d", got.Events, len(events))
	}
}

func TestTimers(t *testing.T) {
	events := []trace.Event{
		mark(1000, trace.TimerExpiry, 1, 1, 1000),
		mark(1500, trace.CallbackStart, 1, 1, 0), // 500
		mark(2000, trace.TimerExpiry, 2, 1, 1990),
		mark(2100, trace.TimerExpiry, 1, 2, 2000),
		mark(3100, trace.TimerMissed, 1, 3, 0),
		mark(3150, trace.CallbackStart, 1, 3, 0), // no expiry 3: unmatched
		mark(3250, trace.CallbackStart, 1, 2, 0), // 1250
		mark(3300, trace.CallbackStart, 1, 1, 0), // expiry 1 already used: unmatched
		mark(4990, trace.CallbackStart, 2, 1, 0), // 3000
		// Marks from PID 0 count as well: 3500.
		{TS: 5000, Kind: trace.Mark, Mark: trace.TimerExpiry, Timer: 3, Seq: 1, Expected: 5000},
		{TS: 8500, Kind: trace.Mark, Mark: trace.CallbackStart, Timer: 3, Seq: 1},
	}
	got := run(events, 10000)
	want := Stats{Count: 4, Sum: 8250, Min: 500, Max: 3500,
		P50: 1250, P90: 3500, P99: 3500, P999: 3500, Hist: Log2Hist{[]int64{2, 2}}}
	if !reflect.DeepEqual(got.TimerLatency, want) {
		t.Errorf("TimerLatency = %+v, want %+v", got.TimerLatency, want)
	}
	if got.TimerMissed != 1 || got.TimerUnmatched != 2 {
		t.Errorf("missed %d, unmatched %d; want 1, 2", got.TimerMissed, got.TimerUnmatched)
	}
	if len(got.Tasks) != 0 {
		t.Errorf("marks made task rows: %+v", got.Tasks)
	}
}

func TestPIDReuse(t *testing.T) {
	R, S, X := trace.Running, trace.Sleeping, trace.Dead
	t.Run("fork", func(t *testing.T) {
		got := run([]trace.Event{
			fork(0, 1, 42, "old"),
			wakeupNew(10, 42),
			switchTo(20, 0, R, 42, "old"), // delay 10
			exit(50, 42),
			switchTo(60, 42, X, 0, ""), // runtime 40
			fork(100, 1, 42, "new"),
			wakeupNew(110, 42),
			switchTo(130, 0, R, 42, "new"), // delay 20; runs to the end
		}, 200)
		want := []TaskRow{
			{Comm: "new", PID: 42, Tasks: 1, Runtime: 70, Switches: 1, Delays: 1, DelaySum: 20, AvgDelay: 20,
				MaxDelay: 20, MaxDelayStart: 110, MaxDelayEnd: 130},
			{Comm: "old", PID: 42, Tasks: 1, Runtime: 40, Switches: 1, Delays: 1, DelaySum: 10, AvgDelay: 10,
				MaxDelay: 10, MaxDelayStart: 10, MaxDelayEnd: 20},
		}
		if !reflect.DeepEqual(got.Tasks, want) {
			t.Errorf("Tasks =\n%+v\nwant\n%+v", got.Tasks, want)
		}
		if got.WakeupLatency.Count != 2 || got.WakeupLatency.Sum != 30 {
			t.Errorf("WakeupLatency = %+v, want samples 10 and 20", got.WakeupLatency)
		}
	})
	t.Run("no fork, no dead switch", func(t *testing.T) {
		// The exiting task is preempted after its Exit and comes back: still
		// the same task. Its dead switch-out is lost, then the PID wakes.
		got := run([]trace.Event{
			switchTo(0, 0, R, 42, "old"),
			exit(10, 42),
			switchTo(20, 42, R, 7, "other"),
			switchTo(30, 7, S, 42, "old"),
			switchTo(40, 42, S, 0, ""),
			waking(100, 42),
			switchTo(150, 0, R, 42, "new"),
			switchTo(170, 42, S, 0, ""),
		}, 200)
		var rows []string
		for _, r := range got.Tasks {
			if r.PID == 42 {
				rows = append(rows, r.Comm)
			}
		}
		if !reflect.DeepEqual(rows, []string{"new", "old"}) {
			t.Errorf("rows for PID 42: %q, want [new old]; all %+v", rows, got.Tasks)
		}
		for _, r := range got.Tasks {
			if r.Comm == "old" && (r.Switches != 2 || r.Runtime != 30) {
				t.Errorf("old task = %+v, want 2 switches, runtime 30", r)
			}
		}
	})
}

func TestRobustness(t *testing.T) {
	R, S := trace.Running, trace.Sleeping
	events := []trace.Event{
		{TS: 0, Kind: trace.Migrate, PID: 7, Comm: "seven", OrigCPU: 1, DestCPU: 0},
		waking(0, 0),                    // idle: ignored
		switchTo(50, 0, R, 0, ""),       // idle to idle: ignored
		switchTo(100, 7, R, 8, "eight"), // 7 was running since before the trace: no runtime
		waking(150, 8),                  // 8 is running: ignored
		wakeup(160, 8),                  // ditto
		switchTo(300, 8, S, 7, "seven"), // 7 in after its preemption: delay 200, no sample
		switchTo(400, 7, S, 8, "eight"), // 8 never woke: no delay
		{TS: 450, Kind: trace.Exit, PID: 0},
		switchTo(460, 99, trace.Dead, 0, ""), // unknown task leaves dead
	}
	a := NewWith(Options{PerTask: true})
	for i := range events {
		a.Event(&events[i])
	}
	got := a.Finish(500)
	want := []TaskRow{
		{Comm: "seven", PID: 7, Tasks: 1, Runtime: 100, Switches: 1, Delays: 1, DelaySum: 200, AvgDelay: 200,
			MaxDelay: 200, MaxDelayStart: 100, MaxDelayEnd: 300},
		{Comm: "eight", PID: 8, Tasks: 1, Runtime: 300, Switches: 2},
		{PID: 99, Tasks: 1},
	}
	if !reflect.DeepEqual(got.Tasks, want) {
		t.Errorf("Tasks =\n%+v\nwant\n%+v", got.Tasks, want)
	}
	if !reflect.DeepEqual(got.WakeupLatency, Stats{}) {
		t.Errorf("WakeupLatency = %+v, want none", got.WakeupLatency)
	}
	if again := a.Finish(500); !reflect.DeepEqual(again, got) {
		t.Errorf("second Finish differs:\n%+v\n%+v", again, got)
	}
}

func TestSortRows(t *testing.T) {
	rows := []TaskRow{
		{PID: 6, Comm: "b"},
		{PID: 6, Comm: "a"},
		{PID: 5},
		{PID: 4, Runtime: 1},
		{PID: 3, Switches: 1},
		{PID: 2, MaxDelay: 1},
		{PID: 1, AvgDelay: 1},
	}
	sortRows(rows)
	var got []int32
	for _, r := range rows {
		got = append(got, r.PID)
	}
	if !reflect.DeepEqual(got, []int32{1, 2, 3, 4, 5, 6, 6}) || rows[5].Comm != "a" {
		t.Errorf("order %v (%+v)", got, rows)
	}
}

// BenchmarkAnalyzer feeds one event per op, so ns/op and allocs/op are per
// event. The stream cycles 32 tasks on each of 8 CPUs through Waking,
// Wakeup and Switch, with a timer expiry and its callback per cycle.
func BenchmarkAnalyzer(b *testing.B) {
	const cpus, perCPU = 8, 32
	comms := make([]string, cpus*perCPU+1)
	for i := range comms {
		comms[i] = "task" + string(rune('a'+i%26))
	}
	var cur [cpus]int32
	a := New()
	var e trace.Event
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g := i / 5
		cpu := int32(g % cpus)
		pid := 1 + cpu + int32(g/cpus%perCPU)*cpus
		e = trace.Event{TS: int64(i) * 1000, CPU: cpu}
		switch i % 5 {
		case 0:
			e.Kind, e.PID, e.Comm = trace.Waking, pid, comms[pid]
		case 1:
			e.Kind, e.PID, e.Comm = trace.Wakeup, pid, comms[pid]
		case 2:
			e.Kind, e.PID, e.NextPID, e.NextComm = trace.Switch, cur[cpu], pid, comms[pid]
			e.Comm = comms[cur[cpu]]
			if g%3 == 0 {
				e.PrevState = trace.Sleeping
			}
			cur[cpu] = pid
		case 3:
			e.Kind, e.PID, e.Mark, e.Timer, e.Seq, e.Expected = trace.Mark, pid, trace.TimerExpiry, cpu, int64(g), e.TS
		case 4:
			e.Kind, e.PID, e.Mark, e.Timer, e.Seq = trace.Mark, pid, trace.CallbackStart, cpu, int64(g)
		}
		a.Event(&e)
	}
}

// TestRecordingRepairs: lost events and late CPU buffers (trace.Lost and
// trace.BufferStart, from a trace's annotations), tasks already running
// when the recording starts, and PID reuse.
func TestRecordingRepairs(t *testing.T) {
	R, S := trace.Running, trace.Sleeping
	sw := func(ts int64, cpu int32, prev int32, st trace.TaskState, next int32) trace.Event {
		e := switchTo(ts, prev, st, next, "")
		e.CPU = cpu
		return e
	}
	t.Run("lost", func(t *testing.T) {
		got := run([]trace.Event{
			sw(0, 0, 0, R, 1),
			sw(0, 1, 0, R, 2),
			waking(100, 3),
			sw(200, 0, 1, R, 0), // 1 preempted
			{TS: 300, CPU: 1, Kind: trace.Lost, Seq: 40}, // 3's wakeup and 1's preemption may have ended unseen; 2's slice too
			sw(400, 1, 2, S, 3),                          // no sample for 3, no runtime for 2
			sw(500, 0, 0, R, 1),                          // no delay for 1
			{TS: 600, CPU: 0, Kind: trace.Lost},          // count unknown
			waking(700, 2),
			sw(800, 1, 3, S, 2), // a sample: 100
		}, 1000)
		if got.Gaps != 2 || got.LostEvents != 40 || got.WakeupLatency.Count != 1 || got.WakeupLatency.Max != 100 {
			t.Errorf("report %+v", got)
		}
		for _, r := range got.Tasks {
			switch r.PID {
			case 1:
				if r.Runtime != 200 || r.Delays != 0 { // its slice from 500 ended in the loss on CPU 0
					t.Errorf("task 1 %+v", r)
				}
			case 2:
				if r.Runtime != 200 || r.Delays != 1 { // only after its wakeup at 700
					t.Errorf("task 2 %+v", r)
				}
			}
		}
	})
	t.Run("late buffer", func(t *testing.T) {
		got := run([]trace.Event{
			sw(0, 1, 0, R, 5),
			waking(10, 6),
			sw(20, 1, 5, R, 6), // a sample before the restart: forgotten
			mark(30, trace.TimerExpiry, 1, 1, 30),
			{TS: 50, CPU: 0, Kind: trace.BufferStart},
			sw(50, 0, 7, S, 0), // 7 was running: unknown start
			mark(60, trace.CallbackStart, 1, 1, 0),
			waking(70, 7),
			sw(90, 0, 0, R, 7), // sample 20
		}, 100)
		if got.Restarts != 1 || got.RestartTS != 50 || got.BeforeRestart != 4 || got.Events != 9 {
			t.Errorf("restart counts %+v", got)
		}
		if got.WakeupLatency.Count != 1 || got.WakeupLatency.Max != 20 || got.TimerLatency.Count != 0 || got.TimerUnmatched != 1 {
			t.Errorf("statistics %+v", got)
		}
		if got.UnknownStart != 1 || len(got.Tasks) != 1 { // 7 only: 5 and 6 were forgotten
			t.Errorf("tasks %+v, unknown start %d", got.Tasks, got.UnknownStart)
		}
	})
	t.Run("counts", func(t *testing.T) {
		got := run([]trace.Event{
			waking(0, 1),    // before CPU 0's first switch
			wakeupNew(0, 2), // ditto
			sw(10, 0, 9, S, 1),
			fork(20, 1, 3, "c"),
			exit(30, 3),
			fork(40, 1, 3, "c2"), // PID 3 again
		}, 50)
		if got.BeforeFirstSwitch != 2 || got.PIDReuse != 1 || got.UnknownStart != 1 {
			t.Errorf("counts %+v", got)
		}
	})
}

func TestSamples(t *testing.T) {
	a := NewWith(Options{Samples: true})
	for _, e := range []trace.Event{waking(0, 1), switchTo(30, 0, trace.Running, 1, "a"), mark(40, trace.TimerExpiry, 1, 1, 35), mark(50, trace.CallbackStart, 1, 1, 0)} {
		a.Event(&e)
	}
	timer, wakeup := a.Samples()
	a.Finish(60)
	if !reflect.DeepEqual(timer, []int64{15}) || !reflect.DeepEqual(wakeup, []int64{30}) {
		t.Errorf("samples %v %v", timer, wakeup)
	}
}

// A trace may lack a switch-in (the host's kernel often leaves the switch
// away from the idle task out): the task is next seen leaving the CPU. That
// slice has no runtime, the wakeup pending then is no sample, and the next
// wakeup is measured normally.
func TestMissedSwitchIn(t *testing.T) {
	const A = 10
	R, S := trace.Running, trace.Sleeping
	events := []trace.Event{
		switchTo(0, 0, R, A, "a"),
		switchTo(100, A, S, 0, ""), // A ran 100
		waking(1000, A),
		// A's switch-in at ~1050 is missing; it writes a mark and sleeps.
		mark(1060, trace.CallbackStart, 1, 1, 1000),
		switchTo(2000, A, S, 0, ""),
		waking(3000, A),
		switchTo(3040, 0, R, A, "a"), // sample 40
		switchTo(3100, A, S, 0, ""),  // A ran 60
	}
	got := run(events, 4000)
	if got.MissedSwitchIn != 1 || got.UnknownStart != 0 {
		t.Errorf("missed switch-ins %d, unknown starts %d; want 1, 0", got.MissedSwitchIn, got.UnknownStart)
	}
	if got.WakeupLatency.Count != 1 || got.WakeupLatency.Max != 40 {
		t.Errorf("wakeup latency %+v, want the one sample 40", got.WakeupLatency)
	}
	if len(got.Tasks) != 1 || got.Tasks[0].Runtime != 160 || got.Tasks[0].Switches != 2 {
		t.Errorf("tasks %+v, want a: runtime 160, 2 switch-ins", got.Tasks)
	}
	// The host runner's self-contained timer sample needs no expiry mark.
	if got.TimerLatency.Count != 1 || got.TimerLatency.Max != 60 || got.TimerUnmatched != 0 {
		t.Errorf("timer latency %+v, unmatched %d; want the one sample 60", got.TimerLatency, got.TimerUnmatched)
	}
}

func TestByComm(t *testing.T) {
	rows := []TaskRow{
		{Comm: "cc1", PID: 12, Tasks: 1, Runtime: 100, Switches: 2, Delays: 1, DelaySum: 30, AvgDelay: 30, MaxDelay: 30, MaxDelayStart: 5, MaxDelayEnd: 35},
		{Comm: "make", PID: 1, Tasks: 1, Runtime: 5, Switches: 1, Delays: 1, DelaySum: 1, AvgDelay: 1, MaxDelay: 1},
		{Comm: "cc1", PID: 10, Tasks: 1, Runtime: 50, Switches: 4, Delays: 3, DelaySum: 30, AvgDelay: 10, MaxDelay: 20, MaxDelayStart: 40, MaxDelayEnd: 60},
		// Of equal longest delays the earliest is kept, whatever the order.
		{Comm: "sh", PID: 20, Tasks: 1, Delays: 1, DelaySum: 7, AvgDelay: 7, MaxDelay: 7, MaxDelayStart: 90, MaxDelayEnd: 97},
		{Comm: "sh", PID: 21, Tasks: 1, Delays: 2, DelaySum: 9, AvgDelay: 4.5, MaxDelay: 7, MaxDelayStart: 80, MaxDelayEnd: 87},
		{Comm: "sh", PID: 22, Tasks: 1, Switches: 1}, // no delay: not the maximum
	}
	// cc1: 4 delays averaging (30·1 + 10·3)/4 = 15, the longest is 12's.
	want := []TaskRow{
		{Comm: "cc1", PID: 10, Tasks: 2, Runtime: 150, Switches: 6, Delays: 4, DelaySum: 60, AvgDelay: 15, MaxDelay: 30, MaxDelayStart: 5, MaxDelayEnd: 35},
		{Comm: "sh", PID: 20, Tasks: 3, Switches: 1, Delays: 3, DelaySum: 16, AvgDelay: 16.0 / 3, MaxDelay: 7, MaxDelayStart: 80, MaxDelayEnd: 87},
		{Comm: "make", PID: 1, Tasks: 1, Runtime: 5, Switches: 1, Delays: 1, DelaySum: 1, AvgDelay: 1, MaxDelay: 1},
	}
	if got := ByComm(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("ByComm =\n%+v\nwant\n%+v", got, want)
	}
	slices.Reverse(rows)
	if got := ByComm(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("ByComm of the rows reversed =\n%+v\nwant\n%+v", got, want)
	}
}

// The table by comm that the Analyzer streams (ended tasks folded as they
// end) is the per-task table merged, and keeping the per-task rows or the
// samples changes nothing else.
func TestStreamedByComm(t *testing.T) {
	R, X := trace.Running, trace.Dead
	var events []trace.Event
	ts := int64(0)
	for pid := int32(100); pid < 140; pid++ {
		comm := []string{"cc1", "as", "sh"}[pid%3]
		events = append(events, fork(ts, 1, pid, comm), wakeupNew(ts+5, pid))
		events = append(events, switchTo(ts+5+int64(pid%7)*3, 0, R, pid, comm))
		if pid%4 != 0 { // a quarter stay alive to the end
			events = append(events, exit(ts+40, pid), switchTo(ts+50, pid, X, 0, ""))
		} else {
			events = append(events, switchTo(ts+50, pid, R, 0, ""))
		}
		ts += 60
	}
	full := NewWith(Options{Samples: true, PerTask: true})
	lean := New()
	for i := range events {
		full.Event(&events[i])
		lean.Event(&events[i])
	}
	f, l := full.Finish(ts), lean.Finish(ts)
	if len(f.Tasks) != 40 || l.Tasks != nil {
		t.Fatalf("per-task rows: %d kept, %d without PerTask", len(f.Tasks), len(l.Tasks))
	}
	if want := ByComm(f.Tasks); !reflect.DeepEqual(f.ByComm, want) || !reflect.DeepEqual(l.ByComm, want) {
		t.Errorf("streamed by comm\n%+v\n%+v\nwant\n%+v", f.ByComm, l.ByComm, want)
	}
	f.Tasks = nil
	if !reflect.DeepEqual(f, l) {
		t.Errorf("keeping rows and samples changed the report:\n%+v\n%+v", f, l)
	}
	if tm, wk := lean.Samples(); tm != nil || wk != nil {
		t.Errorf("samples kept without Options.Samples")
	}
	// Ended tasks' records are reused: the table holds about the tasks
	// alive at once, not all 40.
	if n := len(lean.tasks); n > 12 {
		t.Errorf("%d task records for 10 alive at the end", n)
	}
}
