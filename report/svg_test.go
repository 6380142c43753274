package report

import (
	"encoding/xml"
	"html"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
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

// checkAxes holds every axis of a chart to the rules of svg.go: a linear
// axis steps by 1, 2 or 5 × 10^k and its ticks are multiples of the step;
// a log axis has a tick at each decade; no label is a power of two in
// "Ki"/"Mi" or a duration of a thousand or more in its unit (5000 µs
// rather than 5 ms).
func checkAxes(t *testing.T, svg string) {
	t.Helper()
	wellFormed(t, svg)
	for _, m := range regexp.MustCompile(`<g class="ticks (linear|log)" data-ticks="([^"]*)">`).FindAllStringSubmatch(svg, -1) {
		var v []float64
		for _, f := range strings.Fields(m[2]) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("tick %q: %v", f, err)
			}
			v = append(v, x)
		}
		if len(v) < 2 {
			t.Errorf("%s axis with %d ticks: %v", m[1], len(v), v)
			continue
		}
		if m[1] == "log" {
			for i, x := range v {
				if e := math.Log10(x); math.Abs(e-math.Round(e)) > 1e-9 || (i > 0 && math.Abs(x/v[i-1]-10) > 1e-9) {
					t.Errorf("log axis ticks %v: not one a decade", v)
					break
				}
			}
			continue
		}
		step := v[1] - v[0]
		mant := step / math.Pow(10, math.Floor(math.Log10(step)+1e-12))
		if !slices.ContainsFunc([]float64{1, 2, 5, 10}, func(n float64) bool { return math.Abs(mant-n) < 1e-9 }) {
			t.Errorf("linear axis ticks %v: step %v is not 1, 2 or 5 × 10^k", v, step)
		}
		for i, x := range v {
			if k := x / step; math.Abs(k-math.Round(k)) > 1e-6 || (i > 0 && math.Abs(x-v[i-1]-step) > 1e-9*math.Max(1, math.Abs(step))) {
				t.Errorf("linear axis ticks %v: %v is off the step %v", v, x, step)
				break
			}
		}
	}
	// The text drawn, not the hover titles.
	shown := regexp.MustCompile(`(?s)<title>.*?</title>`).ReplaceAllString(svg, "")
	tag := regexp.MustCompile(`<[^>]*>`)
	big := regexp.MustCompile(`(-?\d+(?:\.\d+)?) (µs|ms)\b`)
	for _, m := range regexp.MustCompile(`(?s)<text[^>]*>(.*?)</text>`).FindAllStringSubmatch(shown, -1) {
		label := html.UnescapeString(tag.ReplaceAllString(m[1], ""))
		if regexp.MustCompile(`\d(Ki|Mi)\b`).MatchString(label) {
			t.Errorf("label %q: a power of two", label)
		}
		for _, d := range big.FindAllStringSubmatch(label, -1) {
			if v, _ := strconv.ParseFloat(d[1], 64); math.Abs(v) >= 1000 {
				t.Errorf("label %q: %s %s is a larger unit's", label, d[1], d[2])
			}
		}
	}
}

// CheckAxes is checkAxes for the package's external tests.
func CheckAxes(t *testing.T, svg string) { checkAxes(t, svg) }

func TestLinearTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 50000, 4, []float64{0, 20000, 40000, 60000}},
		{0, 42106.9, 4, []float64{0, 20000, 40000, 60000}},
		{0, 100, 4, []float64{0, 50, 100}},
		{-82.4, 26409, 5, []float64{-10000, 0, 10000, 20000, 30000}},
		{0, 0.3, 3, []float64{0, 0.1, 0.2, 0.3}},
		{0, 0, 4, []float64{0, 0.5, 1}},
		{0, 98.7, 2, []float64{0, 50, 100}},
	} {
		if got := LinearTicks(c.lo, c.hi, c.n); !slices.Equal(got, c.want) {
			t.Errorf("LinearTicks(%v, %v, %d) = %v, want %v", c.lo, c.hi, c.n, got, c.want)
		}
	}
}

func TestTickLabels(t *testing.T) {
	for _, c := range []struct {
		ticks []float64
		unit  string
		want  string
	}{
		{[]float64{0, 20000, 40000, 60000}, "µs", "0 20 ms 40 ms 60 ms"},
		{[]float64{0, 500, 1000, 1500}, "µs", "0 0.5 ms 1 ms 1.5 ms"},
		{[]float64{0, 200, 400}, "µs", "0 200 µs 400 µs"},
		{[]float64{0, 1e6, 2e6}, "µs", "0 1 s 2 s"},
		{[]float64{-2000, 0, 2000}, "µs", "-2 ms 0 2 ms"},
		{[]float64{0, 0.5, 1}, "µs", "0 0.5 µs 1 µs"},
		{[]float64{0, 25, 50}, "%", "0 25% 50%"},
		{[]float64{0, 5000, 10000}, "", "0 5000 10000"},
	} {
		if got := strings.Join(tickLabels(c.ticks, c.unit), " "); got != c.want {
			t.Errorf("tickLabels(%v, %q) = %q, want %q", c.ticks, c.unit, got, c.want)
		}
	}
}

// nearestRank is the ceil(q·n)-th smallest sample, computed apart from
// analyze.Summarise.
func nearestRank(v []int64, q float64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	r := int(math.Ceil(q*float64(len(s)) - 1e-9))
	return s[max(r, 1)-1]
}

// risers are the vertical segments of a path of M, H and V commands.
func risers(t *testing.T, d string) [][3]float64 {
	t.Helper()
	var out [][3]float64
	var x, y float64
	for _, c := range regexp.MustCompile(`([MHV])([-0-9.]+)(?: ([-0-9.]+))?`).FindAllStringSubmatch(d, -1) {
		a, _ := strconv.ParseFloat(c[2], 64)
		switch c[1] {
		case "M":
			x, _ = a, 0
			y, _ = strconv.ParseFloat(c[3], 64)
		case "H":
			x = a
		case "V":
			out = append(out, [3]float64{x, y, a})
			y = a
		}
	}
	return out
}

func TestTailChart(t *testing.T) {
	a := Series{"a <&> b", []int64{0, 500, 1500, 1500, 20_000, 3_000_000}}
	b := Series{"b", make([]int64, 5000)}
	for i := range b.Samples {
		b.Samples[i] = int64(i) * 997
	}
	c := Series{"c", nil}
	for i := range 1234 {
		c.Samples = append(c.Samples, int64(1000+i*i*37%200_000))
	}
	s := TailChart("tail", "x", []Series{a, b, c, {"empty", nil}})
	checkAxes(t, s)
	n := wellFormed(t, s)
	if !strings.Contains(s, `data-series="a &lt;&amp;&gt; b"`) || n["path"] != 3 {
		t.Errorf("%d curves, want 3 (the empty series draws none)", n["path"])
	}
	// Axis from 0.1 µs (the smallest positive sample is 0.5 µs) to 10 ms;
	// 5000 samples reach down to 0.001 %.
	for _, label := range []string{">100 ns<", ">1 µs<", ">10 ms<", ">100%<", ">0.01%<", ">p99.9<", ">no samples<", ">5000<"} {
		if !strings.Contains(s, label) {
			t.Errorf("no %q", label)
		}
	}
	// At most an H and a V per pixel column, whatever the sample count.
	if got := strings.Count(s, "V"); got > 3*2*600 {
		t.Errorf("%d vertical steps", got)
	}

	// Every mark: at its series' nearest-rank percentile, on the level of
	// its name's dashed line, and on a drop of its own curve.
	curves := map[string]string{}
	for _, m := range regexp.MustCompile(`<path d="([^"]*)"[^>]*data-series="([^"]*)"`).FindAllStringSubmatch(s, -1) {
		curves[html.UnescapeString(m[2])] = m[1]
	}
	levels := map[string]float64{}
	for _, m := range regexp.MustCompile(`<text x="[^"]*" y="([^"]*)" text-anchor="start"[^>]*>(p[0-9.]+)</text>`).FindAllStringSubmatch(s, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		levels[m[2]] = y - 4
	}
	byName := map[string][]int64{a.Label: a.Samples, b.Label: b.Samples, c.Label: c.Samples}
	qs := map[string]float64{"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999}
	marks := regexp.MustCompile(`<circle cx="([^"]*)" cy="([^"]*)"[^>]*data-series="([^"]*)" data-mark="([^"]*)" data-us="([^"]*)"`).FindAllStringSubmatch(s, -1)
	if len(marks) != 12 {
		t.Fatalf("%d marks, want 4 on each of 3 curves", len(marks))
	}
	for _, m := range marks {
		cx, _ := strconv.ParseFloat(m[1], 64)
		cy, _ := strconv.ParseFloat(m[2], 64)
		label, name := html.UnescapeString(m[3]), m[4]
		us, _ := strconv.ParseFloat(m[5], 64)
		if want := float64(nearestRank(byName[label], qs[name])) / 1e3; us != want {
			t.Errorf("%s %s at %v µs, want %v", label, name, us, want)
		}
		if math.Abs(cy-levels[name]) > 0.11 {
			t.Errorf("%s %s at y %v, its level is at %v", label, name, cy, levels[name])
		}
		on := false
		for _, r := range risers(t, curves[label]) {
			if math.Abs(r[0]-cx) < 0.11 && cy >= math.Min(r[1], r[2])-0.11 && cy <= math.Max(r[1], r[2])+0.11 {
				on = true
			}
		}
		if !on {
			t.Errorf("%s %s at (%v, %v) is on no drop of its curve", label, name, cx, cy)
		}
	}
	if s := TailChart("none", "x", nil); !strings.Contains(s, "no samples") {
		t.Error("empty chart")
	}
}

func TestHistChart(t *testing.T) {
	var h analyze.Log2Hist
	for _, ns := range []int64{500, 3000, 3000, 70_000, 5_000_000} {
		h.Add(ns)
	}
	s := HistChart("h", HistPanel{Hist: h})
	checkAxes(t, s)
	// A bar per non-empty bucket, on decades from 1 µs to 10 ms.
	if got := strings.Count(s, "data-count="); got != 4 {
		t.Errorf("%d bars", got)
	}
	for _, want := range []string{"<title>4096–8191 µs: 1 (20%)</title>", "<title>2–3 µs: 2 (40%)</title>", ">1 µs<", ">10 ms<", `data-ticks="1 10 100 1000 10000"`} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}

	// Panels share their bins and y scale: a bucket sits at one x in
	// every panel, and every bar's height is its share over one maximum.
	var many, few analyze.Log2Hist
	for i := range 1000 {
		many.Add(int64(20_000 + i*90))
	}
	for _, ns := range []int64{1000, 3000, 40_000, 40_000} {
		few.Add(ns)
	}
	s = HistChart("two", HistPanel{Label: "many", Hist: many}, HistPanel{Label: "few", Hist: few})
	checkAxes(t, s)
	tops := regexp.MustCompile(`<g class="panel" data-ymax="([^"]*)">`).FindAllStringSubmatch(s, -1)
	if len(tops) != 2 || tops[0][1] != tops[1][1] {
		t.Fatalf("panels' y maxima %v, want one shared", tops)
	}
	ymax, _ := strconv.ParseFloat(tops[0][1], 64)
	if ymax < 100*float64(slices.Max(many.Buckets))/1000 {
		t.Errorf("shared y max %v below the tallest bar", ymax)
	}
	x := map[string]string{}
	ratio := -1.0
	for _, m := range regexp.MustCompile(`<rect x="([^"]*)" y="[^"]*" width="([^"]*)" height="([^"]*)"[^>]*data-value="([^"]*)"><title>([0-9]+–[0-9]+ µs)`).FindAllStringSubmatch(s, -1) {
		if prev, ok := x[m[5]]; ok && prev != m[1]+" "+m[2] {
			t.Errorf("bucket %s at %s in one panel, %s in another", m[5], prev, m[1]+" "+m[2])
		}
		x[m[5]] = m[1] + " " + m[2]
		hgt, _ := strconv.ParseFloat(m[3], 64)
		v, _ := strconv.ParseFloat(m[4], 64)
		if r := hgt / v; ratio < 0 {
			ratio = r
		} else if math.Abs(hgt-ratio*v) > 0.2 {
			t.Errorf("bar of %v%% is %v px high, want %v: panels on different scales", v, hgt, ratio*v)
		}
	}
	if len(x) < 4 {
		t.Errorf("%d buckets drawn", len(x))
	}
	if !strings.Contains(s, "(n=1000)") || !strings.Contains(s, "(n=4)") || !strings.Contains(s, ">50%<") {
		t.Errorf("panel labels or share axis missing")
	}
}

func TestBarChart(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	s := BarChart("bars", "µs", []string{"START_DEBIT", "no-groups"},
		[]BarSeries{{Name: "paper", Values: []*float64{v(26409), v(-82.4)}},
			{Name: "sim", Values: []*float64{v(27055.4), nil}, Runs: [][]float64{{25000, 27000, 29166.2}, nil}}})
	checkAxes(t, s)
	if got := strings.Count(s, "<rect x=") - 2; got != 3 { // less the legend's swatches
		t.Errorf("%d bars", got)
	}
	// The axis in ms, each bar's number too; the runs as dots up to the
	// largest, which the axis covers.
	for _, want := range []string{`data-value="-82.4"`, ">–<", ">26.4<", ">27.1<", ">30 ms<", `data-ticks="-10000 0 10000 20000 30000"`,
		`<g class="runs" data-runs="3">`, `data-value="29166.2"`, "START_DEBIT, sim: 27055.4 µs; 3 runs, 25000 to 29166.2", "one run"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	if strings.Count(s, "a run, ") != 3 {
		t.Errorf("%d run dots", strings.Count(s, "a run, "))
	}
}

func TestFacetChart(t *testing.T) {
	nan := math.NaN()
	pt := func(m, ci float64) Interval { return Interval{Mean: m, Lo: m - ci, Hi: m + ci, N: 3} }
	c := FacetChart{Title: "sweep", X: Factor{"sched_min_granularity_ns", []string{"750 µs", "1 ms", "2 ms", "4 ms"}},
		Color: Factor{"features", []string{"default", "NO_START_DEBIT"}}, Rows: []string{"policy = a", "policy = b"},
		Cols: []string{"average", "p99"}, Unit: "µs"}
	for r := range 2 {
		var row [][][]Interval
		for col := range 2 {
			var cell [][]Interval
			for s := range 2 {
				var ser []Interval
				for x := range 4 {
					ser = append(ser, pt(float64(1000*(x+1)*(s+1)*(col+1)+r*100), 300))
				}
				cell = append(cell, ser)
			}
			row = append(row, cell)
		}
		c.Cells = append(c.Cells, row)
	}
	c.Cells[1][1][1][3] = Interval{Mean: nan, Lo: nan, Hi: nan}
	c.Cells[0][0][0][0] = Interval{Mean: 1000, Lo: -40000, Hi: 42000, N: 2} // an interval far wider than the means
	s := c.SVG()
	checkAxes(t, s)
	if got := strings.Count(s, "data-mean="); got != 31 {
		t.Errorf("%d points, want 32 − 1 missing", got)
	}
	for _, want := range []string{">policy = b<", ">NO_START_DEBIT<", ">750 µs<", ">sched_min_granularity_ns<", ">average<",
		`data-ticks="0 5000 10000 15000"`, `data-ticks="0 5000 10000 15000 20000"`} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q", want)
		}
	}
	// The wide interval is cut at both edges, with arrows.
	if got := strings.Count(s, `class="cut"`); got != 2 {
		t.Errorf("%d cut interval ends, want 2", got)
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
