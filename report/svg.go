package report

// Charts as standalone SVG documents: each function returns one <svg>
// element with its xmlns, viewBox and every style inline, so the same text
// is a file on its own (reproduce --svg) and a figure inside the HTML
// report. No scripts, no fonts, no external references. Hovering a bar,
// curve or slice shows its numbers (SVG <title>).

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"schedlab/analyze"
	"schedlab/trace"
)

const (
	fontFamily = `system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif`
	inkColor   = "#1f2328"
	mutedColor = "#59636e"
	gridColor  = "#d8dee4"
)

// Palette is the colour of the i-th series (Okabe and Ito's colour-blind
// safe set, then two darker tones); series beyond it repeat it.
var Palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C6D1F", "#332288", "#999933", "#882255"}

func seriesColor(i int) string { return Palette[i%len(Palette)] }

// esc escapes text for SVG and HTML.
func esc(s string) string { return html.EscapeString(s) }

// num formats a coordinate compactly.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

type svgBuilder struct {
	strings.Builder
}

func (b *svgBuilder) f(format string, a ...any) { fmt.Fprintf(&b.Builder, format, a...) }

func (b *svgBuilder) open(w, h float64, class, label string) {
	b.f(`<svg xmlns="http://www.w3.org/2000/svg" class="%s" role="img" aria-label="%s" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="12" fill="%s">`,
		esc(class), esc(label), num(w), num(h), num(w), num(h), esc(fontFamily), inkColor)
	b.f(`<title>%s</title><rect width="100%%" height="100%%" fill="#ffffff"/>`, esc(label))
}

func (b *svgBuilder) text(x, y float64, anchor, color string, size int, s string) {
	b.f(`<text x="%s" y="%s" text-anchor="%s" fill="%s" font-size="%d">%s</text>`, num(x), num(y), anchor, color, size, esc(s))
}

func (b *svgBuilder) title(w float64, s string) {
	if s != "" {
		b.f(`<text x="%s" y="20" text-anchor="middle" font-size="14" font-weight="600">%s</text>`, num(w/2), esc(s))
	}
}

// FormatUS prints a duration in microseconds with a unit that suits it.
func FormatUS(us float64) string {
	a := math.Abs(us)
	switch {
	case a >= 1e6:
		return trimZeros(us/1e6, 2) + " s"
	case a >= 1e3:
		return trimZeros(us/1e3, 2) + " ms"
	case a >= 1 || a == 0:
		return trimZeros(us, 1) + " µs"
	}
	return trimZeros(us*1e3, 0) + " ns"
}

func trimZeros(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Series is one configuration's latency samples, for a CDF.
type Series struct {
	Label   string
	Samples []int64 // ns, any order
}

// CDFChart draws the empirical distribution functions of the series on a
// logarithmic time axis: at x, the fraction of samples of at most x.
// Samples below the axis (at most 0.1 µs: a wakeup onto an idle CPU is 0
// in the simulator) sit on its left edge.
func CDFChart(title, xlabel string, series []Series) string {
	const W, H = 680.0, 380.0
	const L, R, T, B = 56.0, 20.0, 34.0, 48.0
	pw, ph := W-L-R, H-T-B
	var b svgBuilder
	b.open(W, H, "chart cdf", title)
	b.title(W, title)

	// Axis range in decades of µs.
	minPos, maxV := math.Inf(1), 0.0
	total := 0
	for _, s := range series {
		for _, v := range s.Samples {
			us := float64(v) / 1e3
			if us > 0 && us < minPos {
				minPos = us
			}
			maxV = max(maxV, us)
		}
		total += len(s.Samples)
	}
	if total == 0 {
		b.text(W/2, H/2, "middle", mutedColor, 13, "no samples")
		b.WriteString("</svg>")
		return b.String()
	}
	lo := -1.0
	if !math.IsInf(minPos, 1) {
		lo = math.Max(-1, math.Floor(math.Log10(minPos)))
	}
	hi := math.Max(lo+1, math.Ceil(math.Log10(math.Max(maxV, 1e-9))))
	x := func(us float64) float64 {
		if us <= math.Pow(10, lo) {
			return L
		}
		return L + (math.Log10(us)-lo)/(hi-lo)*pw
	}
	y := func(f float64) float64 { return T + (1-f)*ph }

	// Grid and axes.
	for d := lo; d <= hi; d++ {
		xx := x(math.Pow(10, d))
		b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(xx), num(T), num(xx), num(T+ph), gridColor)
		b.text(xx, T+ph+16, "middle", mutedColor, 11, FormatUS(math.Pow(10, d)))
		for k := 2.0; k < 10 && d < hi; k++ {
			xk := x(k * math.Pow(10, d))
			b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(xk), num(T+ph), num(xk), num(T+ph+4), mutedColor)
		}
	}
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		yy := y(f)
		b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(L), num(yy), num(L+pw), num(yy), gridColor)
		b.text(L-6, yy+4, "end", mutedColor, 11, trimZeros(f, 2))
	}
	// The tail: dashed lines at p90 and p99, labelled inside the plot.
	for _, f := range []float64{0.9, 0.99} {
		yy := y(f)
		b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="3 3"/>`, num(L), num(yy), num(L+pw), num(yy), gridColor)
		b.text(L+pw-4, yy-2, "end", mutedColor, 9, "p"+trimZeros(f*100, 0))
	}
	b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s"/>`, num(L), num(T), num(pw), num(ph), mutedColor)
	b.text(L+pw/2, H-10, "middle", inkColor, 12, xlabel)
	b.f(`<text transform="translate(14 %s) rotate(-90)" text-anchor="middle" font-size="12">fraction of samples ≤ x</text>`, num(T+ph/2))

	// Curves: a step function through at most 1000 quantiles.
	for i, s := range series {
		if len(s.Samples) == 0 {
			continue
		}
		v := slices.Clone(s.Samples)
		slices.Sort(v)
		n := len(v)
		color := seriesColor(i)
		var p strings.Builder
		fmt.Fprintf(&p, "M%s %s", num(x(float64(v[0])/1e3)), num(y(0)))
		steps := min(n, 1000)
		prevX := -1.0
		for k := 1; k <= steps; k++ {
			rank := (k*n + steps - 1) / steps // ceil(k/steps·n), 1-based
			xx := x(float64(v[rank-1]) / 1e3)
			if xx != prevX {
				fmt.Fprintf(&p, "H%s", num(xx))
				prevX = xx
			}
			fmt.Fprintf(&p, "V%s", num(y(float64(rank)/float64(n))))
		}
		st := analyze.Summarise(v)
		b.f(`<path d="%s" fill="none" stroke="%s" stroke-width="2"%s data-series="%s"><title>%s: n=%d, p50 %s, p90 %s, p99 %s, max %s</title></path>`,
			p.String(), color, dash(i), esc(s.Label), esc(s.Label), n, FormatUS(float64(st.P50)/1e3), FormatUS(float64(st.P90)/1e3),
			FormatUS(float64(st.P99)/1e3), FormatUS(float64(st.Max)/1e3))
	}
	legend(&b, L+10, T+10, series)
	b.WriteString("</svg>")
	return b.String()
}

// dash tells curves apart where they overlap: solid, dashed, dotted,
// dash-dot, in turn.
func dash(i int) string {
	return [...]string{"", ` stroke-dasharray="7 3"`, ` stroke-dasharray="2 3"`, ` stroke-dasharray="9 3 2 3"`}[i%4]
}

// legend draws a boxed legend of the series' labels with their counts.
func legend(b *svgBuilder, x, y float64, series []Series) {
	if len(series) == 0 {
		return
	}
	w := 0
	for _, s := range series {
		w = max(w, len([]rune(s.Label))+len(strconv.Itoa(len(s.Samples)))+5)
	}
	bw := float64(w)*6.6 + 34
	b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="#ffffff" fill-opacity="0.9" stroke="%s"/>`, num(x), num(y), num(bw), num(float64(len(series))*18+8), gridColor)
	for i, s := range series {
		yy := y + 16 + float64(i)*18
		b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`, num(x+8), num(yy-4), num(x+26), num(yy-4), seriesColor(i), dash(i))
		b.text(x+32, yy, "start", inkColor, 12, fmt.Sprintf("%s (n=%d)", s.Label, len(s.Samples)))
	}
}

// HistChart draws a log2 histogram (the buckets of analyze.Log2Hist and
// bcc's runqlat) as bars, one per bucket from the first to the last
// non-empty one.
func HistChart(title string, h analyze.Log2Hist, color string) string {
	const W, H = 460.0, 240.0
	const L, R, T, B = 52.0, 12.0, 34.0, 52.0
	pw, ph := W-L-R, H-T-B
	var b svgBuilder
	b.open(W, H, "chart hist", title)
	b.title(W, title)
	first, last, peak := h.Span()
	if last < 0 {
		b.text(W/2, H/2, "middle", mutedColor, 13, "no samples")
		b.WriteString("</svg>")
		return b.String()
	}
	if color == "" {
		color = Palette[0]
	}
	// Show some context around a narrow distribution.
	if last-first < 7 {
		first = max(0, first-2)
		last = max(last, first+7)
	}
	for len(h.Buckets) <= last {
		h.Buckets = append(slices.Clip(h.Buckets), 0)
	}
	n := last - first + 1
	bw := pw / float64(n)
	top := niceCeil(float64(peak))
	for _, f := range []float64{0, 0.5, 1} {
		yy := T + (1-f)*ph
		b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(L), num(yy), num(L+pw), num(yy), gridColor)
		b.text(L-6, yy+4, "end", mutedColor, 11, trimZeros(f*top, 0))
	}
	every := (n + 11) / 12 // at most 12 labels
	for i := first; i <= last; i++ {
		lo, hi := int64(0), int64(1)
		if i > 0 {
			lo, hi = 1<<i, 1<<(i+1)-1
		}
		c := h.Buckets[i]
		x := L + float64(i-first)*bw
		bh := float64(c) / top * ph
		b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" data-count="%d"><title>%d–%d µs: %d</title></rect>`,
			num(x+1), num(T+ph-bh), num(math.Max(bw-2, 1)), num(bh), color, c, lo, hi, c)
		if (i-first)%every == 0 {
			b.f(`<text transform="translate(%s %s) rotate(-45)" text-anchor="end" font-size="10" fill="%s">%s</text>`,
				num(x+bw/2+3), num(T+ph+12), mutedColor, esc(shortUS(lo)))
		}
	}
	b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(L), num(T+ph), num(L+pw), num(T+ph), mutedColor)
	b.text(L+pw/2, H-6, "middle", inkColor, 11, "µs (log2 buckets, lower bound)")
	b.WriteString("</svg>")
	return b.String()
}

func shortUS(v int64) string {
	switch {
	case v >= 1<<20 && v%(1<<20) == 0:
		return strconv.FormatInt(v>>20, 10) + "Mi"
	case v >= 1<<10 && v%(1<<10) == 0:
		return strconv.FormatInt(v>>10, 10) + "Ki"
	}
	return strconv.FormatInt(v, 10)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// BarSeries is one bar per group (nil: no bar, shown as "–").
type BarSeries struct {
	Name   string
	Color  string
	Values []*float64
}

// BarChart draws grouped bars, e.g. paper beside simulation for each
// configuration of an experiment. Values are in unit (µs for latencies);
// negative values hang below the zero line.
func BarChart(title, unit string, groups []string, series []BarSeries) string {
	const L, R, T = 64.0, 16.0, 52.0
	groupW := math.Max(80, float64(len(series))*30+24)
	longest := 0
	for _, g := range groups {
		longest = max(longest, len([]rune(g)))
	}
	// Labels wider than their group are slanted.
	slant := float64(longest)*6.6 > groupW-6
	B := 34.0
	if slant {
		B = 24 + float64(longest)*6.6*0.5
	}
	H := 248 + B
	W := math.Max(380, L+R+groupW*float64(len(groups)))
	pw, ph := W-L-R, H-T-B
	var b svgBuilder
	b.open(W, H, "chart bars", title)
	b.title(W, title)
	lo, hi := 0.0, 0.0
	for _, s := range series {
		for _, v := range s.Values {
			if v != nil {
				lo, hi = math.Min(lo, *v), math.Max(hi, *v)
			}
		}
	}
	step := niceCeil((hi - lo) / 4)
	if hi == lo {
		step = 1
	}
	lo, hi = math.Floor(lo/step)*step, math.Max(math.Ceil(hi/step)*step, step)
	y := func(v float64) float64 { return T + (hi-v)/(hi-lo)*ph }
	for v := lo; v <= hi+step/2; v += step {
		b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(L), num(y(v)), num(L+pw), num(y(v)), gridColor)
		b.text(L-6, y(v)+4, "end", mutedColor, 11, trimZeros(v, 1))
	}
	b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(L), num(y(0)), num(L+pw), num(y(0)), mutedColor)
	b.f(`<text transform="translate(14 %s) rotate(-90)" text-anchor="middle" font-size="12">%s</text>`, num(T+ph/2), esc(unit))
	gw := pw / float64(max(len(groups), 1))
	barW := math.Min(28, (gw-20)/float64(max(len(series), 1)))
	for g, name := range groups {
		x0 := L + float64(g)*gw + (gw-barW*float64(len(series)))/2
		for si, s := range series {
			x := x0 + float64(si)*barW
			color := s.Color
			if color == "" {
				color = seriesColor(si)
			}
			if g >= len(s.Values) || s.Values[g] == nil {
				b.text(x+barW/2, y(0)-4, "middle", mutedColor, 11, "–")
				continue
			}
			v := *s.Values[g]
			top, bottom := y(math.Max(v, 0)), y(math.Min(v, 0))
			b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" data-value="%s"><title>%s, %s: %s %s</title></rect>`,
				num(x+1), num(top), num(barW-2), num(math.Max(bottom-top, 0.5)), color, trimZeros(v, 1), esc(name), esc(s.Name), trimZeros(v, 1), esc(unit))
			ly := top - 4 // above the bar, or above the zero line for a negative one
			b.f(`<text x="%s" y="%s" text-anchor="middle" font-size="9" fill="%s">%s</text>`, num(x+barW/2), num(ly), mutedColor, esc(compact(v)))
		}
		if slant {
			b.f(`<text transform="translate(%s %s) rotate(-30)" text-anchor="end" font-size="11">%s</text>`, num(L+float64(g)*gw+gw/2+4), num(T+ph+14), esc(name))
		} else {
			b.text(L+float64(g)*gw+gw/2, T+ph+16, "middle", inkColor, 11, name)
		}
	}
	// Legend above the plot.
	lx := L
	for si, s := range series {
		color := s.Color
		if color == "" {
			color = seriesColor(si)
		}
		b.f(`<rect x="%s" y="30" width="12" height="12" fill="%s"/>`, num(lx), color)
		b.text(lx+16, 40, "start", inkColor, 12, s.Name)
		lx += float64(len([]rune(s.Name)))*7 + 34
	}
	b.WriteString("</svg>")
	return b.String()
}

// compact prints a bar's value in at most about five characters.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e4:
		return trimZeros(v/1e3, 1) + "k"
	case a >= 100:
		return trimZeros(v, 0)
	}
	return trimZeros(v, 1)
}

// TimelineLane is one timeline to draw, with a label for its lanes (a
// configuration's name, or "" for a single run).
type TimelineLane struct {
	Label    string
	Timeline *analyze.Timeline
}

// TimelineChart draws what ran on each CPU: a lane per CPU (per timeline
// and CPU when several are given, as reproduce does for its
// configurations), a bar per time slice coloured by comm, the wait of each
// wakeup as a thin line ending where the task got the CPU, and the
// application marks (timer expiry ▼, callback start ▲, missed ✕). Colours
// go to the comms with the most CPU time, the same in every lane.
func TimelineChart(title string, lanes []TimelineLane) string {
	type lane struct {
		label string
		tl    *analyze.Timeline
		cpu   int32
	}
	var rows []lane
	var span int64
	use := map[string]int64{}
	for _, l := range lanes {
		if l.Timeline == nil {
			continue
		}
		for c := 0; c < max(l.Timeline.CPUs, 1); c++ {
			name := fmt.Sprintf("CPU %d", c)
			if l.Label != "" {
				name = l.Label
				if l.Timeline.CPUs > 1 {
					name += fmt.Sprintf(" · CPU %d", c)
				}
			}
			rows = append(rows, lane{name, l.Timeline, int32(c)})
		}
		span = max(span, l.Timeline.End-l.Timeline.Start)
		for _, s := range l.Timeline.Slices {
			use[s.Comm] += s.End - s.Start
		}
	}
	comms := make([]string, 0, len(use))
	for c := range use {
		comms = append(comms, c)
	}
	sort.Slice(comms, func(i, j int) bool {
		return cmp.Or(cmp.Compare(use[comms[j]], use[comms[i]]), cmp.Compare(comms[i], comms[j])) < 0
	})
	const maxNamed = 9
	color := map[string]string{}
	for i, c := range comms {
		if i < maxNamed {
			color[c] = Palette[i]
		} else {
			color[c] = "#b0b7bf"
		}
	}

	labelW := 70.0
	for _, r := range rows {
		labelW = math.Max(labelW, float64(len([]rune(r.label)))*7.8+16)
	}
	const W = 1000.0
	const laneH, gap, T = 24.0, 10.0, 34.0
	L, R := labelW, 16.0
	legendRows := (min(len(comms), maxNamed+1) + 4) / 5
	H := T + float64(len(rows))*(laneH+gap) + 30 + float64(legendRows)*18 + 8
	pw := W - L - R
	var b svgBuilder
	b.open(W, H, "chart timeline", title)
	b.title(W, title)
	if len(rows) == 0 || span <= 0 {
		b.text(W/2, H/2, "middle", mutedColor, 13, "no events")
		b.WriteString("</svg>")
		return b.String()
	}
	xs := func(tl *analyze.Timeline, ts int64) float64 { return L + float64(ts-tl.Start)/float64(span)*pw }
	axisY := T + float64(len(rows))*(laneH+gap)

	// Time axis: 1, 2 or 5 × 10^k ms between ticks, about ten ticks.
	step := niceCeil(float64(span) / 10)
	for t := 0.0; t <= float64(span)+1; t += step {
		xx := L + t/float64(span)*pw
		b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(xx), num(T-4), num(xx), num(axisY), gridColor)
		b.text(xx, axisY+14, "middle", mutedColor, 11, FormatUS(t/1e3))
	}
	for i, r := range rows {
		top := T + float64(i)*(laneH+gap)
		b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="#f6f8fa" stroke="%s"/>`, num(L), num(top), num(pw), num(laneH), gridColor)
		b.text(L-8, top+laneH/2+4, "end", inkColor, 12, r.label)
		for _, s := range r.tl.Slices {
			if s.CPU != r.cpu {
				continue
			}
			x0, x1 := xs(r.tl, s.Start), xs(r.tl, s.End)
			state := "slept"
			if s.Preempted {
				state = "preempted"
			}
			b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#ffffff" stroke-width="0.4" data-comm="%s"><title>%s:%d on CPU %d, %s to %s (%s), then %s</title></rect>`,
				num(x0), num(top+3), num(math.Max(x1-x0, 0.6)), num(laneH-6), color[s.Comm], esc(s.Comm), esc(s.Comm), s.PID, s.CPU,
				FormatUS(float64(s.Start-r.tl.Start)/1e3), FormatUS(float64(s.End-r.tl.Start)/1e3), FormatUS(float64(s.End-s.Start)/1e3), state)
		}
		for _, w := range r.tl.Waits {
			if w.CPU != r.cpu {
				continue
			}
			x0, x1 := xs(r.tl, w.From), xs(r.tl, w.To)
			b.f(`<path d="M%s %sV%sH%s" stroke="%s" stroke-width="1.2" fill="none"><title>%s:%d waited %s for a CPU (woken at %s)</title></path>`,
				num(x0), num(top-3), num(top+1), num(math.Max(x1, x0+0.6)), inkColor, esc(w.Comm), w.PID,
				FormatUS(float64(w.To-w.From)/1e3), FormatUS(float64(w.From-r.tl.Start)/1e3))
		}
		for _, m := range r.tl.Marks {
			if m.CPU != r.cpu {
				continue
			}
			xx := xs(r.tl, m.TS)
			var shape, c, what string
			switch m.Mark {
			case trace.TimerExpiry:
				shape, c, what = fmt.Sprintf("M%s %sl-4 -6h8z", num(xx), num(top+laneH)), "#D55E00", "timer expiry"
			case trace.CallbackStart:
				shape, c, what = fmt.Sprintf("M%s %sl-4 6h8z", num(xx), num(top)), "#009E73", "callback start"
			default:
				shape, c, what = fmt.Sprintf("M%s %sl6 6m0 -6l-6 6", num(xx-3), num(top+laneH/2-3)), "#D55E00", "missed timer event"
			}
			b.f(`<path d="%s" fill="%s" stroke="%s"><title>%s at %s (%s:%d)</title></path>`, shape, c, c, what,
				FormatUS(float64(m.TS-r.tl.Start)/1e3), esc(m.Comm), m.PID)
		}
	}
	// Legend: comms by CPU time, then the marks.
	ly := axisY + 30
	lx := L
	for i, c := range comms {
		if i > maxNamed {
			break
		}
		name := c
		if i == maxNamed {
			name = fmt.Sprintf("%d other comms", len(comms)-maxNamed)
		}
		if name == "" {
			name = "(unknown comm)"
		}
		if i > 0 && i%5 == 0 {
			lx, ly = L, ly+18
		}
		b.f(`<rect x="%s" y="%s" width="12" height="12" fill="%s"/>`, num(lx), num(ly-10), color[c])
		b.text(lx+16, ly, "start", inkColor, 12, name)
		lx += 150
	}
	b.WriteString("</svg>")
	return b.String()
}
