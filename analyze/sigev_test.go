package analyze

import (
	"slices"
	"testing"

	"schedlab/trace"
)

// A SIGEV_THREAD timer of period 10 ms from 1 s: expiries 1, 2 and 4 fire
// (3 merged into 2's pending signal, so it never fires), glibc's helper
// (pid 10) forks a callback for each signal it takes, and the worker,
// whose overrun read 0, numbers the third callback for expiry 3. The
// samples must be each callback's start less the expiry its signal was
// for, and the missed expiry 3 counted once, from the signals.
func TestSigevNumberingFromSignals(t *testing.T) {
	const first, period = int64(1e9), int64(10e6)
	exp := func(k int64) int64 { return first + (k-1)*period }
	var evs []trace.Event
	sig := func(ts int64) {
		evs = append(evs, trace.Event{TS: ts, Kind: trace.TimerSignal, PID: 10, Comm: "sigev-helper"})
	}
	fork := func(ts int64, child int32) {
		evs = append(evs, trace.Event{TS: ts, Kind: trace.Fork, PID: 10, Comm: "sigev-helper", ChildPID: child, ChildComm: "sigev-helper"})
	}
	mark := func(ts int64, pid int32, seq int64) {
		evs = append(evs, trace.Event{TS: ts, Kind: trace.Mark, PID: pid, Comm: "callback", Mark: trace.CallbackStart,
			Timer: 7, Seq: seq, Expected: exp(seq), Period: period})
	}
	missed := func(ts int64, pid int32, seq int64) {
		evs = append(evs, trace.Event{TS: ts, Kind: trace.Mark, PID: pid, Comm: "callback", Mark: trace.TimerMissed, Timer: 7, Seq: seq})
	}
	sig(exp(1) + 1000) // delivered 1 µs late
	fork(exp(1)+5000, 11)
	mark(exp(1)+300000, 11, 1)
	sig(exp(2) + 1000)
	fork(exp(2)+5000, 12)
	mark(exp(2)+8000, 12, 2)
	// Expiry 3 merged; the worker reads no overrun and misses nothing.
	sig(exp(4) + 999) // printed before the ns-exact point would be fine too
	fork(exp(4)+5000, 13)
	mark(exp(4)+9000, 13, 3)
	missed(exp(4)+9001, 13, 9) // a wrong count of the worker's: dropped
	a := NewWith(Options{Samples: true})
	s := NewSigevNumbering(a)
	for i := range evs {
		s.Event(&evs[i])
	}
	r := a.Finish(exp(5))
	timer, _ := a.Samples()
	if want := []int64{300000, 8000, 9000}; !slices.Equal(timer, want) {
		t.Errorf("timer samples %v, want %v (each from its signal's expiry)", timer, want)
	}
	if r.TimerMissed != 1 {
		t.Errorf("%d missed, want 1 (expiry 3)", r.TimerMissed)
	}

	// The same stream without the signals is the worker's numbering,
	// passed through as it is.
	var bare []trace.Event
	for _, e := range evs {
		if e.Kind != trace.TimerSignal {
			bare = append(bare, e)
		}
	}
	var rec trace.Recorder
	s = NewSigevNumbering(&rec)
	for i := range bare {
		s.Event(&bare[i])
	}
	if !slices.Equal(rec.Events, bare) {
		t.Errorf("a stream without timer signals changed:\n%v\n%v", bare, rec.Events)
	}
}

// A signal may be printed up to a microsecond before its expiry's
// ns-exact grid point (tracefs's µs clock); it still names that expiry,
// and one a period minus the slack late names it too.
func TestSigevGridPoint(t *testing.T) {
	g := &sigevGrid{first: 1_000_000_500, period: 10e6}
	for _, c := range []struct{ ts, want int64 }{
		{1_000_000_000, 1_000_000_500},   // 0.5 µs before the first expiry
		{1_000_000_500, 1_000_000_500},   // at it
		{1_009_990_000, 1_000_000_500},   // 10 µs before the next
		{1_009_991_000, 1_010_000_500},   // within the slack of the next
		{990_000_500 + 5e6, 990_000_500}, // before the first: the point before
		{1_000_000_500 + 25e6, 1_020_000_500},
	} {
		if got := g.point(c.ts); got != c.want {
			t.Errorf("point(%d) = %d, want %d", c.ts, got, c.want)
		}
	}
}
