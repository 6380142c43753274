package analyze

import (
	"testing"

	"schedlab/trace"
)

func sw(ts int64, cpu int32, prev int32, prevComm string, next int32, nextComm string) trace.Event {
	return trace.Event{TS: ts, CPU: cpu, Kind: trace.Switch, PID: prev, Comm: prevComm, PrevState: trace.Sleeping, NextPID: next, NextComm: nextComm}
}

func TestTimelineSlices(t *testing.T) {
	const t0 = 3630e9 // a real trace's clock: far from zero
	r := NewTimelineRecorder(100e6)
	for _, e := range []trace.Event{
		{Kind: trace.Begin, CPU: -1, CPUs: 4}, // TS 0: not the window's start
		sw(t0+10, 0, 7, "early", 8, "b"),      // 7 ran since before the window
		sw(t0+20, 0, 8, "b", 0, "swapper"),
		sw(t0+30, 0, 9, "lost-in", 10, "c"), // 9's switch-in is missing
		sw(t0+40, 1, 0, "swapper", 11, "d"),
	} {
		r.Event(&e)
	}
	tl := r.Timeline(t0 + 50)
	if tl.Start != t0+10 || tl.End != t0+50 || tl.CPUs != 4 {
		t.Fatalf("window %d..%d on %d CPUs, want %d..%d on 4", tl.Start, tl.End, tl.CPUs, int64(t0+10), int64(t0+50))
	}
	want := []Slice{
		{CPU: 0, Start: t0 + 10, End: t0 + 10, PID: 7, Comm: "early"},
		{CPU: 0, Start: t0 + 10, End: t0 + 20, PID: 8, Comm: "b"},
		{CPU: 0, Start: t0 + 30, End: t0 + 50, PID: 10, Comm: "c"},
		{CPU: 1, Start: t0 + 40, End: t0 + 50, PID: 11, Comm: "d"},
	}
	if len(tl.Slices) != len(want) {
		t.Fatalf("slices %+v, want %+v", tl.Slices, want)
	}
	for i := range want {
		if tl.Slices[i] != want[i] {
			t.Errorf("slice %d: %+v, want %+v", i, tl.Slices[i], want[i])
		}
	}
	if tl.Unknown != 1 {
		t.Errorf("%d slices of unknown start, want 1 (pid 9)", tl.Unknown)
	}
}
