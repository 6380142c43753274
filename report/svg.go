package report

// Charts as standalone SVG documents: each function returns one <svg>
// element with its xmlns, viewBox and every style inline, so the same text
// is a file on its own (reproduce --svg, sweep merge --svg) and a figure
// inside the HTML report. No scripts, no fonts, no external references.
// Hovering a bar, curve, mark or slice shows its numbers (SVG <title>).
//
// Axes follow a few rules, so that every chart reads the same way: a
// linear axis steps by 1, 2 or 5 × 10^k and ends on a tick; a duration is
// labelled in one human unit per axis (µs, ms or s), never in powers of
// two; a logarithmic axis is labelled at its decades.

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
	// charW is the width of a chart that shares a row with another in
	// the HTML report: two of them fit side by side on a 1366-pixel
	// laptop screen.
	charW = 620.0
	// wideW is the width of a chart that has a row to itself.
	wideW = 1280.0
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

func (b *svgBuilder) line(x1, y1, x2, y2 float64, color string, extra string) {
	b.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"%s/>`, num(x1), num(y1), num(x2), num(y2), color, extra)
}

func (b *svgBuilder) title(w float64, s string) {
	if s != "" {
		b.f(`<text x="%s" y="20" text-anchor="middle" font-size="14" font-weight="600">%s</text>`, num(w/2), esc(s))
	}
}

// vtext is a label turned to read upwards, for a y axis.
func (b *svgBuilder) vtext(x, y float64, size int, s string) {
	b.f(`<text transform="translate(%s %s) rotate(-90)" text-anchor="middle" font-size="%d">%s</text>`, num(x), num(y), size, esc(s))
}

// textWidth estimates how wide s is drawn at a font size: the charts
// cannot measure text, so labels are laid out on this guess, which errs
// on the wide side for the sans-serif fonts the page asks for.
func textWidth(s string, size float64) float64 { return float64(len([]rune(s))) * size * 0.6 }

// clip shortens s to at most n characters, ending in an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n-1, 1)]) + "…"
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

// fmtUS prints a duration in microseconds to three significant digits
// (12.3 ms, 456 µs, 7.89 µs): a chart's annotations, where FormatUS's
// fixed decimals would print 12.35 ms beside 0.2 µs.
func fmtUS(us float64) string {
	if us == 0 {
		return "0"
	}
	scale, unit := timeUnit(math.Abs(us))
	v := us / scale
	d := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	return trimZeros(v, d) + " " + unit
}

func trimZeros(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// LinearTicks returns the ticks of a linear axis over [lo, hi]: the
// multiples of a step of 1, 2 or 5 × 10^k that cut it into about n
// intervals (never more), from the last multiple at or below lo to the
// first at or above hi, so the axis begins and ends on a tick. An empty
// or one-point range gets an axis from zero.
func LinearTicks(lo, hi float64, n int) []float64 {
	n = max(n, 1)
	if math.IsNaN(lo) || math.IsInf(lo, 0) {
		lo = 0
	}
	if math.IsNaN(hi) || math.IsInf(hi, 0) {
		hi = lo
	}
	if hi <= lo {
		switch {
		case lo > 0:
			lo = 0
		case lo < 0:
			hi = 0
		default:
			hi = 1
		}
	}
	step := niceCeil((hi - lo) / float64(n))
	k0 := math.Floor(lo/step + 1e-9)
	k1 := math.Ceil(hi/step - 1e-9)
	ticks := make([]float64, 0, int(k1-k0)+1)
	for k := k0; k <= k1; k++ {
		// Through decimal and back: 3 × 0.1 is 0.30000000000000004.
		v, _ := strconv.ParseFloat(strconv.FormatFloat(k*step, 'g', 12, 64), 64)
		ticks = append(ticks, v+0) // +0: no -0
	}
	return ticks
}

// timeUnit is the unit for durations (µs) up to m: the largest unit in
// which m is at least 1.
func timeUnit(m float64) (scale float64, unit string) {
	switch {
	case m >= 1e6:
		return 1e6, "s"
	case m >= 1e3:
		return 1e3, "ms"
	case m >= 1 || m == 0:
		return 1, "µs"
	}
	return 1e-3, "ns"
}

// tickLabels labels the ticks of a linear axis. Durations (unit "µs")
// are printed in one unit for the whole axis, the one of its largest
// tick, so that it reads 0, 5 ms, 10 ms rather than 5000 µs; "%" appends a
// percent sign; any other unit prints plain numbers. Each label has as
// many decimals as the step needs, and zero is "0".
func tickLabels(ticks []float64, unit string) []string {
	scale, suffix := 1.0, ""
	switch unit {
	case "µs":
		m := 0.0
		for _, t := range ticks {
			m = math.Max(m, math.Abs(t))
		}
		scale, suffix = timeUnit(m)
		suffix = " " + suffix
	case "%":
		suffix = "%"
	}
	step := 1.0
	if len(ticks) > 1 {
		step = ticks[1] - ticks[0]
	}
	d := max(0, int(math.Ceil(-math.Log10(step/scale)-1e-9)))
	out := make([]string, len(ticks))
	for i, t := range ticks {
		if t == 0 {
			out[i] = "0"
			continue
		}
		out[i] = trimZeros(t/scale, d) + suffix
	}
	return out
}

// logAxis maps durations (µs) onto a pixel range by decades, from 10^lo
// to 10^hi µs. Durations at or below 10^lo (a wakeup onto an idle CPU is
// 0 in the simulator) sit on its low end.
type logAxis struct {
	lo, hi int
	p0, p1 float64
}

// newLogAxis spans the decades around the positive durations from minPos
// to maxV (µs), at least one, and never below 0.1 µs.
func newLogAxis(minPos, maxV, p0, p1 float64) logAxis {
	lo := -1
	if minPos > 0 && !math.IsInf(minPos, 1) {
		lo = max(-1, int(math.Floor(math.Log10(minPos)+1e-9)))
	}
	hi := lo + 1
	if maxV > 0 {
		hi = max(hi, int(math.Ceil(math.Log10(maxV)-1e-9)))
	}
	return logAxis{lo, hi, p0, p1}
}

func (a logAxis) pos(us float64) float64 {
	if us <= math.Pow10(a.lo) {
		return a.p0
	}
	return a.p0 + (math.Log10(us)-float64(a.lo))/float64(a.hi-a.lo)*(a.p1-a.p0)
}

// drawX draws a logarithmic time axis along the bottom of a plot from y0
// to y1: a grid line and a label at each decade, minor ticks between.
func (a logAxis) drawX(b *svgBuilder, y0, y1 float64) {
	var decades []float64
	for d := a.lo; d <= a.hi; d++ {
		decades = append(decades, math.Pow10(d))
	}
	openTicks(b, "log", decades)
	defer b.WriteString("</g>")
	for d := a.lo; d <= a.hi; d++ {
		xx := a.pos(math.Pow10(d))
		b.line(xx, y0, xx, y1, gridColor, "")
		b.text(xx, y1+15, "middle", mutedColor, 11, FormatUS(math.Pow10(d)))
		for k := 2.0; k < 10 && d < a.hi; k++ {
			xk := a.pos(k * math.Pow10(d))
			b.line(xk, y1, xk, y1+4, mutedColor, "")
		}
	}
}

// linearAxis is a linear y axis over its ticks, drawn from the pixel
// y0 (the last tick) down to y1 (the first).
type linearAxis struct {
	ticks  []float64
	y0, y1 float64
}

func (a linearAxis) pos(v float64) float64 {
	lo, hi := a.ticks[0], a.ticks[len(a.ticks)-1]
	return a.y1 - (v-lo)/(hi-lo)*(a.y1-a.y0)
}

// drawY draws the grid lines and tick labels of the axis across a plot
// from x0 to x1, labels left of x0.
func (a linearAxis) drawY(b *svgBuilder, x0, x1 float64, unit string) {
	openTicks(b, "linear", a.ticks)
	for i, l := range tickLabels(a.ticks, unit) {
		yy := a.pos(a.ticks[i])
		b.line(x0, yy, x1, yy, gridColor, "")
		b.text(x0-6, yy+4, "end", mutedColor, 11, l)
	}
	b.WriteString("</g>")
}

// openTicks opens the group of an axis's ticks, naming their values, so
// that a test can hold every axis to the rules above.
func openTicks(b *svgBuilder, kind string, ticks []float64) {
	v := make([]string, len(ticks))
	for i, t := range ticks {
		v[i] = strconv.FormatFloat(t, 'g', -1, 64)
	}
	b.f(`<g class="ticks %s" data-ticks="%s">`, kind, strings.Join(v, " "))
}

// percentile marks of a tail plot: the quantile and its name.
var tailMarks = []struct {
	q    float64
	name string
}{{0.5, "p50"}, {0.9, "p90"}, {0.99, "p99"}, {0.999, "p99.9"}}

func pick(st analyze.Stats, q float64) int64 {
	switch q {
	case 0.5:
		return st.P50
	case 0.9:
		return st.P90
	case 0.99:
		return st.P99
	}
	return st.P999
}

// pctLabel prints a fraction as a percentage: 100%, 10%, 0.01%.
func pctLabel(f float64) string {
	return trimZeros(f*100, max(0, int(math.Ceil(-math.Log10(f*100)-1e-9)))) + "%"
}

// Series is one configuration's latency samples, for a tail plot.
type Series struct {
	Label   string
	Samples []int64 // ns, any order
}

// TailChart draws the latency distributions of the series as tail plots:
// at x, the fraction of samples above x (1 − F, the complementary CDF),
// both axes logarithmic, so that the p99 and p99.9 tail, which a linear
// CDF squeezes into its top few pixels, takes as much room as the body.
// Each curve marks its p50, p90, p99 and p99.9 where it crosses their
// levels (the dashed lines, named on the right); the legend below lists
// them with the count and the maximum. The curve is the empirical step
// function: it drops at each sample value, so the nearest-rank
// percentile q sits on the drop that crosses 1 − q. Samples at or below
// the axis's start sit on its left edge.
func TailChart(title, xlabel string, series []Series) string {
	const W = charW
	const L, R, T, ph = 64.0, 46.0, 34.0, 280.0
	pw := W - L - R
	legendTop := T + ph + 48
	H := legendTop + 22 + 16*float64(len(series)) + 8
	var b svgBuilder
	b.open(W, H, "chart tail", title)
	b.title(W, title)

	sorted := make([][]int64, len(series))
	stats := make([]analyze.Stats, len(series))
	minPos, maxV := math.Inf(1), 0.0
	nmax := 0
	for i, s := range series {
		v := slices.Clone(s.Samples)
		stats[i] = analyze.SummariseExact(v) // sorts v
		sorted[i] = v
		for _, x := range v {
			if x > 0 {
				minPos = math.Min(minPos, float64(x)/1e3)
				break
			}
		}
		if len(v) > 0 {
			maxV = math.Max(maxV, float64(v[len(v)-1])/1e3)
		}
		nmax = max(nmax, len(v))
	}
	if nmax == 0 {
		b.text(W/2, T+ph/2, "middle", mutedColor, 13, "no samples")
		b.WriteString("</svg>")
		return b.String()
	}
	x := newLogAxis(minPos, maxV, L, L+pw)
	// Down to a decade below the rarest sample (a single one of the
	// largest series), and at least to 0.01 % so that p99.9 has a level.
	floor := min(-4, int(math.Floor(math.Log10(0.5/float64(nmax)))))
	y := func(f float64) float64 {
		if f <= math.Pow10(floor) {
			return T + ph
		}
		return T + math.Log10(f)/float64(floor)*ph
	}

	x.drawX(&b, T, T+ph)
	var decades []float64
	for d := floor; d <= 0; d++ {
		decades = append(decades, math.Pow10(d))
	}
	openTicks(&b, "log", decades)
	for d := 0; d >= floor; d-- {
		yy := y(math.Pow10(d))
		b.line(L, yy, L+pw, yy, gridColor, "")
		b.text(L-6, yy+4, "end", mutedColor, 11, pctLabel(math.Pow10(d)))
	}
	b.WriteString("</g>")
	for _, m := range tailMarks {
		yy := y(1 - m.q)
		b.line(L, yy, L+pw, yy, mutedColor, ` stroke-dasharray="2 4" stroke-opacity="0.7"`)
		b.text(L+pw+5, yy+4, "start", mutedColor, 11, m.name)
	}
	b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s"/>`, num(L), num(T), num(pw), num(ph), mutedColor)
	b.text(L+pw/2, T+ph+34, "middle", inkColor, 12, xlabel)
	b.vtext(14, T+ph/2, 12, "samples above x (1 − F)")

	type mark struct {
		x, y float64
		name string
		us   float64
	}
	var marks [][]mark
	for i, s := range series {
		v := sorted[i]
		n := len(v)
		marks = append(marks, nil)
		if n == 0 {
			continue
		}
		color := seriesColor(i)
		// One H and one V per pixel column at most, however many samples.
		var p strings.Builder
		cx, cy := num(L), num(y(1))
		fmt.Fprintf(&p, "M%s %s", cx, cy)
		for j := 0; j < n; {
			k := j
			for k < n && v[k] == v[j] {
				k++
			}
			if xx := num(x.pos(float64(v[j]) / 1e3)); xx != cx {
				fmt.Fprintf(&p, "H%s", xx)
				cx = xx
			}
			if yy := num(y(float64(n-k) / float64(n))); yy != cy {
				fmt.Fprintf(&p, "V%s", yy)
				cy = yy
			}
			j = k
		}
		st := stats[i]
		b.f(`<path d="%s" fill="none" stroke="%s" stroke-width="2"%s data-series="%s"><title>%s: n=%d, p50 %s, p90 %s, p99 %s, p99.9 %s, max %s</title></path>`,
			p.String(), color, dash(i), esc(s.Label), esc(s.Label), n, fmtUS(float64(st.P50)/1e3), fmtUS(float64(st.P90)/1e3),
			fmtUS(float64(st.P99)/1e3), fmtUS(float64(st.P999)/1e3), fmtUS(float64(st.Max)/1e3))
		for _, m := range tailMarks {
			us := float64(pick(st, m.q)) / 1e3
			mk := mark{x.pos(us), y(1 - m.q), m.name, us}
			marks[i] = append(marks[i], mk)
		}
	}
	// Marks over every curve, so that no curve hides another's.
	for i, ms := range marks {
		for _, m := range ms {
			b.f(`<circle cx="%s" cy="%s" r="3.5" fill="%s" stroke="#ffffff" stroke-width="1" data-series="%s" data-mark="%s" data-us="%s"><title>%s: %s = %s</title></circle>`,
				num(m.x), num(m.y), seriesColor(i), esc(series[i].Label), m.name, strconv.FormatFloat(m.us, 'f', -1, 64), esc(series[i].Label), m.name, fmtUS(m.us))
		}
	}
	// One curve: its values beside its marks, above and right of each
	// (the curve lies below that corner, and left of it lies above).
	if len(series) == 1 {
		for _, m := range marks[0] {
			label := fmtUS(m.us)
			if m.x+8+textWidth(label, 11) < L+pw {
				b.text(m.x+7, m.y-5, "start", inkColor, 11, label)
			} else {
				b.text(m.x-7, m.y+14, "end", inkColor, 11, label)
			}
		}
	}
	tailLegend(&b, 16, legendTop, W-16, series, stats)
	b.WriteString("</svg>")
	return b.String()
}

// tailLegend is a tail plot's legend: a row per series with its line,
// label, count, percentiles and maximum, under a header.
func tailLegend(b *svgBuilder, x0, y0, x1 float64, series []Series, stats []analyze.Stats) {
	cols := []string{"n", "p50", "p90", "p99", "p99.9", "max"}
	const colW = 56.0
	valX := x1 - colW*float64(len(cols))
	maxLabel := int((valX - x0 - 36) / textWidth("x", 11))
	for c, name := range cols {
		b.text(valX+colW*float64(c+1)-4, y0+12, "end", mutedColor, 11, name)
	}
	for i, s := range series {
		yy := y0 + 30 + float64(i)*16
		b.line(x0, yy-4, x0+24, yy-4, seriesColor(i), ` stroke-width="3"`+dash(i))
		b.f(`<text x="%s" y="%s" font-size="11">%s<title>%s</title></text>`, num(x0+30), num(yy), esc(clip(s.Label, maxLabel)), esc(s.Label))
		st := stats[i]
		vals := []string{strconv.Itoa(st.Count), "", "", "", "", ""}
		if st.Count == 0 {
			vals[1] = "no samples"
		} else {
			for k, m := range tailMarks {
				vals[k+1] = fmtUS(float64(pick(st, m.q)) / 1e3)
			}
			vals[5] = fmtUS(float64(st.Max) / 1e3)
		}
		for c, v := range vals {
			b.text(valX+colW*float64(c+1)-4, yy, "end", inkColor, 11, v)
		}
	}
}

// dash tells curves apart where they overlap: solid, dashed, dotted,
// dash-dot, in turn.
func dash(i int) string {
	return [...]string{"", ` stroke-dasharray="7 3"`, ` stroke-dasharray="2 3"`, ` stroke-dasharray="9 3 2 3"`}[i%4]
}

// HistPanel is one configuration's histogram in a HistChart.
type HistPanel struct {
	Label string // above the panel; "" for a chart of one histogram
	Hist  analyze.Log2Hist
	Color string // "" for the palette's i-th colour
}

// HistChart draws log2 histograms (the buckets of analyze.Log2Hist and
// bcc's runqlat: [2^i, 2^(i+1)) µs, the first holding 0 and 1 µs) as bars
// on a logarithmic time axis labelled at its decades. Several panels are
// stacked on one x axis and share one y scale, so that configurations can
// be compared bucket by bucket and by height: their y axis is the share
// of each panel's samples, since configurations differ in how many they
// have. A chart of one histogram counts samples.
func HistChart(title string, panels ...HistPanel) string {
	const W = charW
	const L, R, T = 64.0, 20.0, 34.0
	pw := W - L - R
	multi := len(panels) > 1
	panelH, gap := 170.0, 0.0
	if multi {
		panelH, gap = math.Max(64, math.Min(110, 330/float64(len(panels)))), 30
	}
	H := T + float64(len(panels))*(panelH+gap) + 48
	var b svgBuilder
	b.open(W, H, "chart hist", title)
	b.title(W, title)

	first, last := -1, -1
	peak := 0.0
	for _, p := range panels {
		f, l, pk := p.Hist.Span()
		if l < 0 {
			continue
		}
		if first < 0 || f < first {
			first = f
		}
		last = max(last, l)
		total := 0.0
		for _, c := range p.Hist.Buckets {
			total += float64(c)
		}
		if multi {
			peak = math.Max(peak, 100*float64(pk)/total)
		} else {
			peak = math.Max(peak, float64(pk))
		}
	}
	if last < 0 {
		b.text(W/2, H/2, "middle", mutedColor, 13, "no samples")
		b.WriteString("</svg>")
		return b.String()
	}
	// The shared bins: every panel's, on whole decades of µs. Bucket 0
	// (0–1 µs) is drawn where [1, 2) µs would be.
	x := newLogAxis(math.Pow(2, float64(first)), math.Pow(2, float64(last+1)), L, L+pw)
	unit := ""
	if multi {
		unit = "%"
	}
	ticks := LinearTicks(0, peak, map[bool]int{false: 4, true: 2}[multi])
	ymax := ticks[len(ticks)-1]
	bottom := T + float64(len(panels))*(panelH+gap)

	for pi, p := range panels {
		top := T + gap + float64(pi)*(panelH+gap)
		color := p.Color
		if color == "" {
			color = seriesColor(pi)
		}
		total := int64(0)
		for _, c := range p.Hist.Buckets {
			total += c
		}
		b.f(`<g class="panel" data-ymax="%s">`, strconv.FormatFloat(ymax, 'f', -1, 64))
		if p.Label != "" {
			b.f(`<text x="%s" y="%s" font-size="12" font-weight="600">%s <tspan font-weight="400" fill="%s">(n=%d)</tspan></text>`,
				num(L), num(top-9), esc(p.Label), mutedColor, total)
		}
		ya := linearAxis{ticks, top, top + panelH}
		ya.drawY(&b, L, L+pw, unit)
		for d := x.lo; d <= x.hi; d++ {
			xx := x.pos(math.Pow10(d))
			b.line(xx, top, xx, top+panelH, gridColor, "")
		}
		for i, c := range p.Hist.Buckets {
			if c == 0 {
				continue
			}
			lo, hi := int64(0), int64(1)
			if i > 0 {
				lo, hi = 1<<i, 1<<(i+1)-1
			}
			v := float64(c)
			share := 100 * float64(c) / float64(total)
			if multi {
				v = share
			}
			x0, x1 := x.pos(math.Pow(2, float64(i))), x.pos(math.Pow(2, float64(i+1)))
			yy := ya.pos(v)
			b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" data-count="%d" data-value="%s"><title>%d–%d µs: %d (%s%%)</title></rect>`,
				num(x0+1), num(yy), num(math.Max(x1-x0-2, 1)), num(top+panelH-yy), color, c, strconv.FormatFloat(v, 'g', 6, 64),
				lo, hi, c, trimZeros(share, 1))
		}
		b.line(L, top+panelH, L+pw, top+panelH, mutedColor, "")
		b.WriteString("</g>")
	}
	x.drawX(&b, bottom, bottom)
	b.text(L+pw/2, bottom+34, "middle", inkColor, 11, "latency (log2 buckets)")
	if multi {
		b.vtext(14, T+(bottom-T)/2, 12, "share of the configuration's samples")
	} else {
		b.vtext(14, T+(bottom-T)/2, 12, "samples")
	}
	b.WriteString("</svg>")
	return b.String()
}

// BarSeries is one bar per group (nil: no bar, shown as "–").
type BarSeries struct {
	Name   string
	Color  string
	Values []*float64
	// Runs, if set, are the values of each group's runs, of which the
	// bar is the mean or median: drawn on the bar as a dot per run and a
	// line from the smallest to the largest, so that a difference can be
	// told from the noise between runs.
	Runs [][]float64
}

// BarChart draws grouped bars, e.g. paper beside simulation for each
// configuration of an experiment. Values are in unit: "µs" for
// latencies, whose axis is labelled in the unit that suits it (each
// bar's number is in that unit too); negative values hang below the zero
// line.
func BarChart(title, unit string, groups []string, series []BarSeries) string {
	const L, R, T = 64.0, 16.0, 52.0
	groupW := math.Max(80, float64(len(series))*30+24)
	longest := 0.0
	for _, g := range groups {
		longest = math.Max(longest, textWidth(g, 11))
	}
	W := math.Max(charW, L+R+groupW*float64(len(groups)))
	gw := (W - L - R) / float64(max(len(groups), 1))
	// Labels wider than their group are slanted.
	slant := longest > gw-6
	B := 34.0
	if slant {
		B = 24 + longest*0.5
	}
	H := 250 + B
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
		for _, runs := range s.Runs {
			for _, v := range runs {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	ya := linearAxis{LinearTicks(lo, hi, 5), T, T + ph}
	ya.drawY(&b, L, L+pw, unit)
	b.line(L, ya.pos(0), L+pw, ya.pos(0), mutedColor, "")
	// Each bar's number in the axis's unit, which its ticks name.
	scale := 1.0
	if unit == "µs" {
		m := 0.0
		for _, t := range ya.ticks {
			m = math.Max(m, math.Abs(t))
		}
		scale, _ = timeUnit(m)
	}
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
				b.text(x+barW/2, ya.pos(0)-4, "middle", mutedColor, 11, "–")
				continue
			}
			v := *s.Values[g]
			top, bottom := ya.pos(math.Max(v, 0)), ya.pos(math.Min(v, 0))
			var runs []float64
			if g < len(s.Runs) {
				runs = s.Runs[g]
			}
			tip := fmt.Sprintf("%s, %s: %s %s", name, s.Name, trimZeros(v, 1), unit)
			if len(runs) > 0 {
				tip += fmt.Sprintf("; %d runs, %s to %s", len(runs), trimZeros(slices.Min(runs), 1), trimZeros(slices.Max(runs), 1))
			}
			b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" data-value="%s"><title>%s</title></rect>`,
				num(x+1), num(top), num(barW-2), num(math.Max(bottom-top, 0.5)), color, trimZeros(v, 1), esc(tip))
			ly := top - 4 // above the bar, or above the zero line for a negative one
			if len(runs) > 0 {
				ly = math.Min(ly, ya.pos(slices.Max(runs))-5)
				runDots(&b, x+barW/2, barW, runs, ya, esc(name+", "+s.Name))
			}
			b.f(`<text x="%s" y="%s" text-anchor="middle" font-size="9" fill="%s">%s</text>`, num(x+barW/2), num(ly), mutedColor, esc(compact(v/scale)))
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
		lx += textWidth(s.Name, 12) + 34
	}
	if hasRuns(series) {
		b.f(`<circle cx="%s" cy="36" r="2.5" fill="%s" stroke="#ffffff" stroke-width="0.8"/>`, num(lx+6), inkColor)
		b.text(lx+14, 40, "start", inkColor, 12, "one run; line: smallest to largest")
	}
	b.WriteString("</svg>")
	return b.String()
}

func hasRuns(series []BarSeries) bool {
	for _, s := range series {
		for _, r := range s.Runs {
			if len(r) > 0 {
				return true
			}
		}
	}
	return false
}

// runDots draws the runs of a bar centred at cx: a line from the
// smallest to the largest and a dot per run, spread across the bar in
// the order of their values so that equal runs stay visible.
func runDots(b *svgBuilder, cx, barW float64, runs []float64, ya linearAxis, what string) {
	v := slices.Clone(runs)
	slices.Sort(v)
	b.f(`<g class="runs" data-runs="%d">`, len(v))
	ylo, yhi := ya.pos(v[0]), ya.pos(v[len(v)-1])
	b.line(cx, ylo, cx, yhi, inkColor, ` stroke-width="1"`)
	b.line(cx-3, ylo, cx+3, ylo, inkColor, ` stroke-width="1"`)
	b.line(cx-3, yhi, cx+3, yhi, inkColor, ` stroke-width="1"`)
	spread := math.Max(barW-8, 2) / 2
	for i, r := range v {
		off := 0.0
		if len(v) > 1 {
			off = (float64(i)/float64(len(v)-1)*2 - 1) * spread
		}
		b.f(`<circle cx="%s" cy="%s" r="2.2" fill="%s" fill-opacity="0.85" stroke="#ffffff" stroke-width="0.6" data-value="%s"><title>%s: a run, %s</title></circle>`,
			num(cx+off), num(ya.pos(r)), inkColor, trimZeros(r, 1), what, trimZeros(r, 1))
	}
	b.WriteString("</g>")
}

// compact prints a bar's value in at most about five characters.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e4:
		return trimZeros(v/1e3, 1) + "k"
	case a >= 100:
		return trimZeros(v, 0)
	case a >= 10:
		return trimZeros(v, 1)
	}
	return trimZeros(v, 2)
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
	const W = wideW
	const laneH, gap, T = 24.0, 10.0, 34.0
	L, R := labelW, 30.0 // room for the last tick's label
	// The legend: comms by CPU time, flowing in rows under the axis.
	var names []string
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
		names = append(names, name)
	}
	type item struct{ x, row float64 }
	var items []item
	lx, row := L, 0.0
	for _, name := range names {
		w := textWidth(name, 12) + 36
		if lx > L && lx+w > W-R {
			lx, row = L, row+1
		}
		items = append(items, item{lx, row})
		lx += w
	}
	legendRows := 0.0
	if len(items) > 0 {
		legendRows = items[len(items)-1].row + 1
	}
	H := T + float64(len(rows))*(laneH+gap) + 30 + legendRows*18 + 8
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

	// Time axis: about ten ticks from the window's start, in one unit.
	spanUS := float64(span) / 1e3
	ticks := LinearTicks(0, spanUS, 10)
	for len(ticks) > 1 && ticks[len(ticks)-1] > spanUS*(1+1e-9) {
		ticks = ticks[:len(ticks)-1]
	}
	openTicks(&b, "linear", ticks)
	for i, l := range tickLabels(ticks, "µs") {
		xx := L + ticks[i]/spanUS*pw
		b.line(xx, T-4, xx, axisY, gridColor, "")
		b.text(xx, axisY+14, "middle", mutedColor, 11, l)
	}
	b.WriteString("</g>")
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
	ly := axisY + 30
	for i, it := range items {
		yy := ly + it.row*18
		b.f(`<rect x="%s" y="%s" width="12" height="12" fill="%s"/>`, num(it.x), num(yy-10), color[comms[i]])
		b.text(it.x+16, yy, "start", inkColor, 12, names[i])
	}
	b.WriteString("</svg>")
	return b.String()
}

// Factor is a dimension of a grid and its values, in plotting order.
type Factor struct {
	Name   string
	Levels []string
}

// Interval is a mean with its 95 % confidence interval, over N runs; a
// NaN Mean is no value.
type Interval struct {
	Mean, Lo, Hi float64
	N            int
}

// FacetChart is a sweep's grid as small multiples: a column of panels
// per metric, each column on its own y scale shared down the column; a
// row of panels per combination of the factors that are neither on the x
// axis nor told apart by colour; in each panel the x factor's levels
// along the axis and a marker per level of the colour factor, with its
// interval. One factor per visual channel keeps a grid of any size
// readable, where a single axis of every combination is not.
type FacetChart struct {
	Title string
	Note  string // what a marker and its bar are, under the legend
	X     Factor
	Color Factor   // one level named "" when no factor is told apart by colour
	Rows  []string // each panel row's title ("" for a single row)
	Cols  []string // each panel column's metric
	Unit  string   // the y axis's: "µs" for latencies
	// Cells[row][col][series][x] is a point.
	Cells [][][][]Interval
}

// markerPath draws the i-th marker shape (circle, square, triangle,
// diamond, inverted triangle) centred on x, y, so that series differ by
// more than colour.
func markerPath(i int, x, y float64) string {
	switch i % 5 {
	case 1:
		return fmt.Sprintf("M%s %sh7v7h-7z", num(x-3.5), num(y-3.5))
	case 2:
		return fmt.Sprintf("M%s %sl4.3 7.4h-8.6z", num(x), num(y-4.6))
	case 3:
		return fmt.Sprintf("M%s %sl4.5 4.5l-4.5 4.5l-4.5 -4.5z", num(x), num(y-4.5))
	case 4:
		return fmt.Sprintf("M%s %sl4.3 -7.4h-8.6z", num(x), num(y+4.6))
	}
	return fmt.Sprintf("M%s %sa4 4 0 1 0 8 0a4 4 0 1 0 -8 0z", num(x-4), num(y))
}

// SVG draws the chart.
func (c FacetChart) SVG() string {
	const W = wideW
	const margin, Lp, Rp, gapX, ph = 16.0, 62.0, 12.0, 22.0, 170.0
	nc := max(len(c.Cols), 1)
	pw := (W - 2*margin - float64(nc)*(Lp+Rp) - float64(nc-1)*gapX) / float64(nc)
	nx := max(len(c.X.Levels), 1)
	slot := pw / float64(nx)
	longest := 0.0
	for _, l := range c.X.Levels {
		longest = math.Max(longest, textWidth(clip(l, 32), 11))
	}
	slant := longest > slot-8
	B := 20.0
	if slant {
		B = 14 + longest*0.58 + 6
	}
	B += 18 // the factor's name
	stripH := 0.0
	if len(c.Rows) > 1 || (len(c.Rows) == 1 && c.Rows[0] != "") {
		stripH = 22
	}
	S := max(len(c.Color.Levels), 1)
	coloured := len(c.Color.Levels) > 1 || (len(c.Color.Levels) == 1 && c.Color.Levels[0] != "")

	// Header: title, legend, note, column titles.
	type item struct{ x, y float64 }
	var items []item
	ly := 50.0
	lx := margin
	if coloured {
		lx += textWidth(c.Color.Name+":", 12) + 10
		for _, l := range c.Color.Levels {
			w := textWidth(l, 12) + 34
			if lx+w > W-margin {
				lx, ly = margin+textWidth(c.Color.Name+":", 12)+10, ly+18
			}
			items = append(items, item{lx, ly})
			lx += w
		}
	} else {
		ly -= 18
	}
	noteY := ly + 20
	colY := noteY + 24
	T := colY + 10
	rowH := stripH + ph + B + 14
	H := T + float64(max(len(c.Rows), 1))*rowH + 4

	var b svgBuilder
	b.open(W, H, "chart facets", c.Title)
	b.title(W, c.Title)
	if coloured {
		b.text(margin, 50, "start", mutedColor, 12, c.Color.Name+":")
		for s, it := range items {
			b.f(`<path d="%s" fill="%s"/>`, markerPath(s, it.x+6, it.y-4), seriesColor(s))
			b.text(it.x+16, it.y, "start", inkColor, 12, c.Color.Levels[s])
		}
	}
	if c.Note != "" {
		b.text(margin, noteY, "start", mutedColor, 12, c.Note)
	}
	panelX := func(col int) float64 { return margin + Lp + float64(col)*(pw+Lp+Rp+gapX) }
	for col, name := range c.Cols {
		b.f(`<text x="%s" y="%s" text-anchor="middle" font-size="13" font-weight="600">%s</text>`, num(panelX(col)+pw/2), num(colY), esc(name))
	}

	// A y scale per column, over every row: up to the largest interval,
	// but no higher than 1.5 times the largest mean, since a wide interval
	// (two seeds have a t of 12.7) would flatten every mean to the floor.
	// An interval cut at the edge ends in an arrow.
	axes := make([]linearAxis, nc)
	for col := range nc {
		hi, maxMean := 0.0, 0.0
		for r := range c.Cells {
			if col >= len(c.Cells[r]) {
				continue
			}
			for _, ser := range c.Cells[r][col] {
				for _, p := range ser {
					if finite(p.Mean) {
						maxMean = math.Max(maxMean, p.Mean)
						hi = math.Max(hi, p.Mean)
					}
					if finite(p.Hi) {
						hi = math.Max(hi, p.Hi)
					}
				}
			}
		}
		if maxMean > 0 {
			hi = math.Min(hi, 1.5*maxMean)
		}
		axes[col].ticks = LinearTicks(0, hi, 5)
	}
	// Lines join a series' points only where the levels are numbers in
	// order: elsewhere they would invent a trend between categories.
	numeric := len(c.X.Levels) > 1
	for _, l := range c.X.Levels {
		if _, err := strconv.ParseFloat(strings.Fields(l + " x")[0], 64); err != nil {
			numeric = false
		}
	}
	d := 0.0
	if S > 1 {
		d = math.Min(12, slot*0.5/float64(S-1))
	}
	for r := 0; r < max(len(c.Rows), 1); r++ {
		top := T + float64(r)*rowH
		if stripH > 0 {
			b.f(`<rect x="%s" y="%s" width="%s" height="18" fill="#f6f8fa" stroke="%s"/>`, num(margin), num(top), num(W-2*margin), gridColor)
			b.text(margin+8, top+13, "start", inkColor, 12, c.Rows[r])
		}
		pt := top + stripH + 8
		for col := range nc {
			x0 := panelX(col)
			ya := linearAxis{axes[col].ticks, pt, pt + ph}
			ya.drawY(&b, x0, x0+pw, c.Unit)
			b.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s"/>`, num(x0), num(pt), num(pw), num(ph), mutedColor)
			for xi, l := range c.X.Levels {
				xx := x0 + (float64(xi)+0.5)*slot
				b.line(xx, pt+ph, xx, pt+ph+4, mutedColor, "")
				shown, full := clip(l, 32), ""
				if shown != l {
					full = "<title>" + esc(l) + "</title>"
				}
				if slant {
					b.f(`<text transform="translate(%s %s) rotate(-35)" text-anchor="end" font-size="11" fill="%s">%s%s</text>`,
						num(xx+3), num(pt+ph+14), inkColor, esc(shown), full)
				} else {
					b.f(`<text x="%s" y="%s" text-anchor="middle" font-size="11">%s%s</text>`, num(xx), num(pt+ph+15), esc(shown), full)
				}
			}
			b.text(x0+pw/2, pt+ph+B-4, "middle", mutedColor, 11, c.X.Name)
			if r >= len(c.Cells) || col >= len(c.Cells[r]) {
				continue
			}
			drawn := false
			for s, ser := range c.Cells[r][col] {
				color := seriesColor(s)
				off := (float64(s) - float64(S-1)/2) * d
				var path strings.Builder
				for xi, p := range ser {
					if xi >= nx || math.IsNaN(p.Mean) {
						continue
					}
					drawn = true
					xx := x0 + (float64(xi)+0.5)*slot + off
					cmd := "L"
					if path.Len() == 0 || xi == 0 || math.IsNaN(ser[xi-1].Mean) {
						cmd = "M"
					}
					fmt.Fprintf(&path, "%s%s %s", cmd, num(xx), num(ya.pos(p.Mean)))
				}
				if numeric && strings.Contains(path.String(), "L") {
					b.f(`<path d="%s" fill="none" stroke="%s" stroke-width="1.2" stroke-opacity="0.6"%s/>`, path.String(), color, dash(s))
				}
				for xi, p := range ser {
					if xi >= nx || math.IsNaN(p.Mean) {
						continue
					}
					xx := x0 + (float64(xi)+0.5)*slot + off
					if finite(p.Lo) && finite(p.Hi) && p.Hi > p.Lo {
						bottom, top := ya.ticks[0], ya.ticks[len(ya.ticks)-1]
						y0, y1 := ya.pos(math.Max(p.Lo, bottom)), ya.pos(math.Min(p.Hi, top))
						b.line(xx, y0, xx, y1, color, ` stroke-width="1.4"`)
						for _, end := range []struct {
							y   float64
							cut bool
							dir float64
						}{{y0, p.Lo < bottom, 1}, {y1, p.Hi > top, -1}} {
							if end.cut {
								b.f(`<path class="cut" d="M%s %sl3.5 %sh-7z" fill="%s"/>`, num(xx), num(end.y), num(-5*end.dir), color)
							} else {
								b.line(xx-3, end.y, xx+3, end.y, color, ` stroke-width="1.4"`)
							}
						}
					}
					var what []string
					for _, t := range []string{c.Rows[min(r, len(c.Rows)-1)], c.X.Name + " " + c.X.Levels[xi]} {
						if t != "" {
							what = append(what, t)
						}
					}
					if coloured {
						what = append(what, c.Color.Name+" "+c.Color.Levels[s])
					}
					tip := fmt.Sprintf("%s: %s %s", strings.Join(what, ", "), c.Cols[col], fmtValue(p.Mean, c.Unit))
					if p.Hi > p.Lo {
						tip += " ± " + fmtValue((p.Hi-p.Lo)/2, c.Unit)
					}
					tip += fmt.Sprintf(" (%d runs)", p.N)
					b.f(`<path d="%s" fill="%s" stroke="#ffffff" stroke-width="0.8" data-mean="%s"><title>%s</title></path>`,
						markerPath(s, xx, ya.pos(p.Mean)), color, strconv.FormatFloat(p.Mean, 'f', -1, 64), esc(tip))
				}
			}
			if !drawn {
				b.text(x0+pw/2, pt+ph/2, "middle", mutedColor, 12, "no successful runs")
			}
		}
	}
	b.WriteString("</svg>")
	return b.String()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fmtValue prints a value in an axis's unit.
func fmtValue(v float64, unit string) string {
	if unit == "µs" {
		return fmtUS(v)
	}
	return trimZeros(v, 1) + unit
}
