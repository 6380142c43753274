package sweep

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A grid of 2 policies × 4 granularities × 2 feature sets, as merge
// makes it: one factor on x, one by colour, one panel row per policy.
func TestChartFacets(t *testing.T) {
	var tbl Table
	for _, pol := range []string{"cfs-2.6.35", "cfs-2.6.36"} {
		for _, feats := range [][]string{nil, {"NO_START_DEBIT"}} {
			for _, g := range []int64{4000000, 750000, 2000000, 1000000} {
				m := float64(g) / 100
				row := Row{Config: Point{Scenario: "wakeup-latency-calibrated-make-j10", Policy: pol, Features: feats, CPUs: 1, Duration: "2s",
					Tunables: map[string]int64{"sched_min_granularity_ns": g}}, Runs: 3, Metric: "timer",
					Avg: Stat{m, m / 10}, P99: Stat{2 * m, m / 5}, Max: Stat{3 * m, m}}
				if pol == "cfs-2.6.36" && g == 750000 && feats != nil {
					row.Runs, row.Failed = 0, 3
					row.Avg, row.P99, row.Max = Stat{math.NaN(), math.NaN()}, Stat{math.NaN(), math.NaN()}, Stat{math.NaN(), math.NaN()}
				}
				tbl.Rows = append(tbl.Rows, row)
			}
		}
	}
	tbl.Axis = varying(tbl.Rows)
	c := tbl.Chart()
	if c.X.Name != "sched_min_granularity_ns" || !slices.Equal(c.X.Levels, []string{"750 µs", "1 ms", "2 ms", "4 ms"}) {
		t.Errorf("x: %+v, want the granularities in numeric order, as durations", c.X)
	}
	if c.Color.Name != "features" || !slices.Equal(c.Color.Levels, []string{"default", "NO_START_DEBIT"}) {
		t.Errorf("colour: %+v", c.Color)
	}
	if !slices.Equal(c.Rows, []string{"policy = cfs-2.6.35", "policy = cfs-2.6.36"}) || len(c.Cols) != 3 {
		t.Errorf("rows %q, columns %q", c.Rows, c.Cols)
	}
	// 2 policies × 4 × 2, less the failed configuration, in 3 columns.
	s := c.SVG()
	if got := strings.Count(s, "data-mean="); got != 15*3 {
		t.Errorf("%d points, want 45", got)
	}
	if p := c.Cells[1][0][0][0]; p.Mean != 7500 || p.Lo != 6750 || p.Hi != 8250 || p.N != 3 {
		t.Errorf("cfs-2.6.36, default, 750 µs: %+v", p)
	}
	// One label per level per panel, none of them a raw configuration.
	if got := strings.Count(s, ">750 µs<"); got != 6 {
		t.Errorf("750 µs labelled %d times, want once in each of 6 panels", got)
	}
	if strings.Contains(s, "sched_min_granularity_ns=") {
		t.Error("a label holds a whole configuration")
	}
	// The average column: means up to 40 ms, ticks every 10 ms.
	if !regexp.MustCompile(`data-ticks="0 10000 20000 30000 40000 50000"`).MatchString(s) {
		t.Errorf("average column's ticks: %v", regexp.MustCompile(`data-ticks="[^"]*"`).FindAllString(s, -1))
	}
}
