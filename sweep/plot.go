package sweep

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"schedlab/report"
)

// Chart lays the table out as small multiples (report.FacetChart): the
// first varying dimension along each panel's x axis, the second told
// apart by colour and marker, a row of panels per combination of the
// others, and a column per figure (average, p99, maximum), each with one
// y scale down the column, so that panels compare by height. Each marker
// is the mean over seeds, its bar the 95 % confidence interval.
func (t *Table) Chart() report.FacetChart {
	axis := t.Axis
	if len(axis) == 0 {
		axis = []string{"scenario"}
	}
	value := func(r Row, dim string) string {
		for _, d := range dims(r.Config) {
			if d[0] == dim {
				return d[1]
			}
		}
		return ""
	}
	xDim, colorDim, facets := axis[0], "", axis[1:]
	if len(axis) > 1 {
		colorDim, facets = axis[1], axis[2:]
	}
	xs := levels(t.Rows, func(r Row) string { return value(r, xDim) })
	colors := []string{""}
	if colorDim != "" {
		colors = levels(t.Rows, func(r Row) string { return value(r, colorDim) })
	}
	facetOf := func(r Row) string {
		var parts []string
		for _, f := range facets {
			parts = append(parts, f+" = "+display(f, value(r, f)))
		}
		return strings.Join(parts, " · ")
	}
	rows := levels(t.Rows, facetOf)

	var metrics []string
	for _, r := range t.Rows {
		if !slices.Contains(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
	}
	c := report.FacetChart{
		Title: strings.Join(metrics, " / ") + " latency over the sweep",
		Note:  "Each marker is the mean over seeds, its bar the 95 % confidence interval (an arrow: cut at the panel's edge); a column shares one y scale.",
		X:     report.Factor{Name: xDim, Levels: displayAll(xDim, xs)},
		Color: report.Factor{Name: colorDim, Levels: displayAll(colorDim, colors)},
		Rows:  rows,
		Cols:  []string{"average", "p99", "maximum"},
		Unit:  "µs",
	}
	c.Cells = make([][][][]report.Interval, len(rows))
	for ri := range rows {
		c.Cells[ri] = make([][][]report.Interval, len(c.Cols))
		for ci := range c.Cols {
			c.Cells[ri][ci] = make([][]report.Interval, len(colors))
			for si := range colors {
				c.Cells[ri][ci][si] = make([]report.Interval, len(xs))
				for xi := range xs {
					c.Cells[ri][ci][si][xi] = report.Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
				}
			}
		}
	}
	for _, r := range t.Rows {
		ri, xi := slices.Index(rows, facetOf(r)), slices.Index(xs, value(r, xDim))
		si := 0
		if colorDim != "" {
			si = slices.Index(colors, value(r, colorDim))
		}
		for ci, s := range []Stat{r.Avg, r.P99, r.Max} {
			c.Cells[ri][ci][si][xi] = report.Interval{Mean: s.Mean, Lo: s.Mean - s.CI95, Hi: s.Mean + s.CI95, N: r.Runs}
		}
	}
	return c
}

// levels are the distinct values of a dimension over the rows: in
// numeric order where they are all numbers, else in the rows' order.
func levels(rows []Row, of func(Row) string) []string {
	var out []string
	for _, r := range rows {
		if v := of(r); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	nums := make(map[string]float64, len(out))
	for _, v := range out {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return out
		}
		nums[v] = f
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmpFloat(nums[a], nums[b]) })
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// display is a dimension's value as a plot labels it: a duration tunable
// (…_ns) in the unit that suits it, default features as "default".
func display(dim, v string) string {
	if v == "" {
		if dim == "features" {
			return "default"
		}
		return "-"
	}
	if strings.HasSuffix(dim, "_ns") {
		if ns, err := strconv.ParseFloat(v, 64); err == nil {
			return report.FormatUS(ns / 1e3)
		}
	}
	return v
}

func displayAll(dim string, vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = display(dim, v)
	}
	if dim == "" {
		return []string{""}
	}
	return out
}

// WriteSVG writes Chart as a self-contained SVG file (no fonts or scripts
// fetched), for papers and READMEs.
func (t *Table) WriteSVG(w io.Writer) error {
	_, err := io.WriteString(w, t.Chart().SVG()+"\n")
	return err
}

// Page is the merged sweep as an HTML report page: the table, a column
// per varying dimension, and the plot.
func (t *Table) Page(dir string) *report.Page {
	tbl := report.Table{Caption: "Per configuration: mean over seeds ± half-width of the 95 % confidence interval (µs)."}
	if len(t.Axis) == 0 {
		tbl.Columns = []string{"configuration"}
	} else {
		tbl.Columns = slices.Clone(t.Axis)
	}
	tbl.Columns = append(tbl.Columns, "runs", "failed", "metric", "avg", "p99", "max")
	for _, r := range t.Rows {
		var row []string
		if len(t.Axis) == 0 {
			row = []string{t.Label(r)}
		}
		for _, a := range t.Axis {
			for _, d := range dims(r.Config) {
				if d[0] == a {
					v := d[1]
					if v == "" {
						v = "-"
					}
					row = append(row, v)
				}
			}
		}
		tbl.Rows = append(tbl.Rows, append(row, fmt.Sprint(r.Runs), fmt.Sprint(r.Failed), r.Metric, ci(r.Avg), ci(r.P99), ci(r.Max)))
	}
	sec := report.Section{Title: "Results", Tables: []report.Table{tbl},
		Figures: []report.Figure{{Name: "sweep", SVG: t.Chart().SVG(), Wide: true,
			Caption: "Per configuration, the mean over seeds of each run's average, p99 and maximum latency, with its 95 % confidence interval."}}}
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
