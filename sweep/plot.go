package sweep

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"schedlab/report"
)

// WriteSVG plots the table along its main axis: per configuration, the
// mean average and p99 latency over seeds with their 95 % intervals. It is
// a self-contained SVG (no fonts or scripts fetched), for papers and READMEs.
func (t *Table) WriteSVG(w io.Writer) error {
	// The right margin leaves room for the last slanted label; the
	// minimum width for the title.
	const (
		left, right, top, bottom = 70, 120, 40, 150
		step, height             = 70, 300
	)
	n := len(t.Rows)
	width := max(560, left+right+step*max(n, 1))
	ymax := 0.0
	for _, r := range t.Rows {
		for _, s := range []Stat{r.Avg, r.P99} {
			if !math.IsNaN(s.Mean) {
				ymax = math.Max(ymax, s.Mean+s.CI95)
			}
		}
	}
	ymax = niceCeil(ymax)
	y := func(v float64) float64 { return top + height - v/ymax*height }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n",
		width, top+height+bottom)
	metric := "latency"
	if n > 0 {
		metric = t.Rows[0].Metric + " latency"
	}
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="13">%s (µs): mean over seeds, 95%% interval; ● average, ▲ p99</text>`+"\n",
		left, html.EscapeString(metric))
	for i := 0; i <= 4; i++ {
		v := ymax * float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n",
			left, width-right, y(v), y(v), left-6, y(v)+4, v)
	}
	for i, r := range t.Rows {
		x := float64(left + step*i + step/2)
		for j, s := range []Stat{r.Avg, r.P99} {
			if math.IsNaN(s.Mean) {
				continue
			}
			xx := x + float64(j*16-8)
			color := []string{"#1f77b4", "#d62728"}[j]
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`+"\n", xx, xx, y(s.Mean-s.CI95), y(s.Mean+s.CI95), color)
			if j == 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>avg %.1f ± %.1f µs</title></circle>`+"\n", xx, y(s.Mean), color, s.Mean, s.CI95)
			} else {
				fmt.Fprintf(&b, `<path d="M%.1f %.1f l4 7 h-8 z" fill="%s"><title>p99 %.1f ± %.1f µs</title></path>`+"\n", xx, y(s.Mean)-4, color, s.Mean, s.CI95)
			}
		}
		fmt.Fprintf(&b, `<text transform="translate(%.1f %d) rotate(40)">%s</text>`+"\n", x-10, top+height+14, html.EscapeString(t.Label(r)))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", left, width-right, top+height, top+height)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// Page is the merged sweep as an HTML report page: the table and the plot.
func (t *Table) Page(dir string) *report.Page {
	tbl := report.Table{Caption: "Per configuration: mean over seeds ± half-width of the 95 % confidence interval (µs).",
		Columns: []string{"configuration", "runs", "failed", "metric", "avg", "p99", "max"}}
	for _, r := range t.Rows {
		tbl.Rows = append(tbl.Rows, []string{t.Label(r), fmt.Sprint(r.Runs), fmt.Sprint(r.Failed), r.Metric, ci(r.Avg), ci(r.P99), ci(r.Max)})
	}
	var svg strings.Builder
	t.WriteSVG(&svg)
	sec := report.Section{Title: "Results", Tables: []report.Table{tbl},
		Figures: []report.Figure{{Name: "sweep", SVG: svg.String(), Wide: true,
			Caption: "Mean average (●) and p99 (▲) latency per configuration, with 95 % intervals over seeds."}}}
	if len(t.Axis) > 0 {
		sec.Paragraphs = []string{"Varying: " + strings.Join(t.Axis, ", ") + "."}
	}
	for _, r := range t.Rows {
		for _, e := range r.Errors {
			sec.Paragraphs = append(sec.Paragraphs, "failed: "+t.Label(r)+": "+e)
		}
	}
	return &report.Page{Title: "schedlab sweep", Subtitle: dir, Sections: []report.Section{sec}}
}
