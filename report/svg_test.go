package report

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"schedlab/analyze"
	"schedlab/trace"
)

// wellFormed parses s as XML and counts its elements by name.
func wellFormed(t *testing.T, s string) map[string]int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%.300s", err, s)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
			if se.Name.Local == "svg" && se.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("svg namespace %q", se.Name.Space)
			}
		}
	}
	return n
}

func TestCDFChart(t *testing.T) {
	a := Series{"a <&> b", []int64{0, 500, 1500, 1500, 20_000, 3_000_000}}
	b := Series{"b", make([]int64, 5000)}
	for i := range b.Samples {
		b.Samples[i] = int64(i) * 997
	}
	s := CDFChart("CDF", "x", []Series{a, b, {"empty", nil}})
	n := wellFormed(t, s)
	if !strings.Contains(s, `data-series="a &lt;&amp;&gt; b"`) || !strings.Contains(s, `data-series="b"`) || strings.Contains(s, `data-series="empty"`) {
		t.Errorf("series paths missing:\n%s", s)
	}
	// Axis from 0.1 µs (the smallest positive sample is 0.5 µs) to 10 ms.
	for _, label := range []string{">100 ns<", ">1 µs<", ">10 ms<", "(n=6)", "(n=5000)"} {
		if !strings.Contains(s, label) {
			t.Errorf("no %q", label)
		}
	}
	// At most ~1000 steps per curve, whatever the sample count.
	if got := strings.Count(s, "V"); got > 2100 {
		t.Errorf("%d vertical steps", got)
	}
	if n["path"] != 2 {
		t.Errorf("%d paths", n["path"])
	}
	if s := CDFChart("none", "x", nil); !strings.Contains(s, "no samples") {
		t.Error("empty chart")
	}
}

func TestHistChart(t *testing.T) {
	var h analyze.Log2Hist
	for _, ns := range []int64{500, 3000, 3000, 70_000, 5_000_000} {
		h.Add(ns)
	}
	s := HistChart("h", h, "")
	wellFormed(t, s)
	// Buckets 0 (0-1 µs) to 12 (4096-8191 µs): 13 bars, 5 samples.
	if got := strings.Count(s, "data-count="); got != 13 {
		t.Errorf("%d bars", got)
	}
	if !strings.Contains(s, "<title>4096–8191 µs: 1</title>") || !strings.Contains(s, "<title>2–3 µs: 2</title>") {
		t.Errorf("bucket titles:\n%s", s)
	}
	// A single bucket still gets some context.
	var one analyze.Log2Hist
	one.Add(5000)
	if got := strings.Count(HistChart("one", one, ""), "data-count="); got != 8 {
		t.Errorf("single bucket: %d bars", got)
	}
}

func TestBarChart(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	s := BarChart("bars", "µs", []string{"START_DEBIT", "no-groups"},
		[]BarSeries{{Name: "paper", Values: []*float64{v(26409), v(-82.4)}}, {Name: "sim", Values: []*float64{v(27055.4), nil}}})
	wellFormed(t, s)
	if got := strings.Count(s, "data-value="); got != 3 {
		t.Errorf("%d bars", got)
	}
	for _, want := range []string{`data-value="-82.4"`, ">–<", ">26.4k<", "START_DEBIT, paper: 26409 µs"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
}

func TestTimelineChart(t *testing.T) {
	rec := analyze.NewTimelineRecorder(10_000_000)
	for _, e := range []trace.Event{
		{TS: 1000, CPU: 0, Kind: trace.Switch, NextPID: 10, NextComm: "hog"},
		{TS: 2000, CPU: 1, Kind: trace.Waking, PID: 11, Comm: "tick", TargetCPU: 1},
		{TS: 2500, CPU: 1, Kind: trace.Mark, PID: 0, Mark: trace.TimerExpiry, Timer: 1, Seq: 1, Expected: 2500},
		{TS: 3000, CPU: 1, Kind: trace.Switch, NextPID: 11, NextComm: "tick"},
		{TS: 3000, CPU: 1, Kind: trace.Mark, PID: 11, Comm: "tick", Mark: trace.CallbackStart, Timer: 1, Seq: 1},
		{TS: 4000, CPU: 1, Kind: trace.Switch, PID: 11, Comm: "tick", PrevState: trace.Sleeping, NextPID: 0},
		{TS: 5000, CPU: 0, Kind: trace.Switch, PID: 10, Comm: "hog", PrevState: trace.Running, NextPID: 12, NextComm: "hog"},
		{TS: 20_000_000, CPU: 0, Kind: trace.Switch, PID: 12, Comm: "hog", NextPID: 0}, // after the window
	} {
		rec.Event(&e)
	}
	tl := rec.Timeline(30_000_000)
	if tl.CPUs != 2 || len(tl.Slices) != 3 || len(tl.Waits) != 1 || len(tl.Marks) != 2 || tl.End != 10_001_000 {
		t.Fatalf("timeline %+v", tl)
	}
	if w := tl.Waits[0]; w.From != 2000 || w.To != 3000 || w.PID != 11 || w.CPU != 1 {
		t.Errorf("wait %+v", w)
	}
	// The last hog runs to the window's end.
	if s := tl.Slices[2]; s.PID != 12 || s.Start != 5000 || s.End != 10_001_000 {
		t.Errorf("open slice %+v", s)
	}
	s := TimelineChart("tl", []TimelineLane{{"", tl}, {"again", tl}})
	n := wellFormed(t, s)
	if got := strings.Count(s, "data-comm="); got != 6 {
		t.Errorf("%d slices drawn", got)
	}
	for _, want := range []string{">CPU 0<", ">CPU 1<", ">again · CPU 1<", "tick:11 waited 1 µs", "timer expiry at 1.5 µs", "callback start at 2 µs", ">hog<", ">tick<"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q", want)
		}
	}
	if n["svg"] != 1 {
		t.Errorf("%d svg elements", n["svg"])
	}
}

func TestFormatUS(t *testing.T) {
	for us, want := range map[float64]string{0: "0 µs", 0.1: "100 ns", 1: "1 µs", 12.34: "12.3 µs", 1000: "1 ms", 1500: "1.5 ms", 2e6: "2 s", -3: "-3 µs"} {
		if got := FormatUS(us); got != want {
			t.Errorf("FormatUS(%v) = %q, want %q", us, got, want)
		}
	}
}
