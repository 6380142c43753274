package experiment

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// The goal for the paper column: at least PaperGoal of the paper's
// figures with the simulation within ±PaperBand of them (sim/paper in
// [1−PaperBand, 1+PaperBand]), with the one calibration held fixed. Only
// the calibrated table counts: the variants are other readings, shown to
// be compared, not to be picked from.
const (
	PaperBand = 0.5
	PaperGoal = 0.75
)

// PaperTally is how many of the paper's figures the simulation meets
// within ±Band, over every row of every experiment shown that has one.
type PaperTally struct {
	Band   float64 `json:"band"`
	Goal   float64 `json:"goal"`
	Within int     `json:"within"`
	Judged int     `json:"judged"`
	// Share is Within/Judged (0 when nothing was judged).
	Share float64 `json:"share"`
	Meets bool    `json:"meets_goal"`
	// Outside lists the figures outside the band with their ratio, and
	// NotJudged the paper figures no ratio can be taken of, with why.
	Outside   []string `json:"outside,omitempty"`
	NotJudged []string `json:"not_judged,omitempty"`
}

// Tally counts the paper figures of the results' calibrated rows that the
// simulation meets within ±PaperBand. A paper figure that is not positive
// (fair-user-sched's no-groups median, −82.4 µs, whose zero the report's
// script leaves unknown) has no ratio and is listed as not judged.
func Tally(results []*Result) PaperTally {
	t := PaperTally{Band: PaperBand, Goal: PaperGoal}
	for _, r := range results {
		for _, row := range r.Rows {
			for _, c := range []struct {
				name       string
				paper, sim *float64
			}{{"median", row.Paper.P50, row.Sim.P50}, {"max", row.Paper.Max, row.Sim.Max}, {"avg", row.Paper.Avg, row.Sim.Avg}} {
				if c.paper == nil {
					continue
				}
				what := fmt.Sprintf("%s %s %s", r.ID, row.Config, c.name)
				if *c.paper <= 0 || c.sim == nil || math.IsNaN(*c.sim) {
					why := "no simulated figure"
					if *c.paper <= 0 {
						why = "not positive: no ratio"
					}
					t.NotJudged = append(t.NotJudged, fmt.Sprintf("%s (paper %.1f us, %s)", what, *c.paper, why))
					continue
				}
				t.Judged++
				q := *c.sim / *c.paper
				if math.Abs(q-1) <= PaperBand {
					t.Within++
				} else {
					t.Outside = append(t.Outside, fmt.Sprintf("%s %.2f", what, q))
				}
			}
		}
	}
	if t.Judged > 0 {
		t.Share = float64(t.Within) / float64(t.Judged)
	}
	t.Meets = t.Judged > 0 && t.Share >= PaperGoal
	return t
}

// WriteTally prints the tally as the last lines of reproduce's text.
func WriteTally(w io.Writer, t PaperTally) error {
	if t.Judged == 0 && len(t.NotJudged) == 0 {
		return nil
	}
	var b strings.Builder
	verdict := "not met"
	if t.Meets {
		verdict = "met"
	}
	fmt.Fprintf(&b, "\n== paper figures within ±%.0f %% (sim/paper %.2f-%.2f), calibrated rows of the experiments shown: %d of %d (%.0f %%); goal at least %.0f %%: %s\n",
		100*t.Band, 1-t.Band, 1+t.Band, t.Within, t.Judged, 100*t.Share, 100*t.Goal, verdict)
	if len(t.Outside) > 0 {
		fmt.Fprintf(&b, "   outside (sim/paper): %s\n", strings.Join(t.Outside, ", "))
	}
	if len(t.NotJudged) > 0 {
		fmt.Fprintf(&b, "   not judged: %s\n", strings.Join(t.NotJudged, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
