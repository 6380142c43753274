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
// within ±Band, over every row of every experiment shown that has one,
// each figure of a mail counted once (Tally).
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
// simulation meets within ±PaperBand. Each figure of a mail counts once: a
// row the experiment shows under several readings of a reconstruction
// (START_NICE@R1, START_NICE@R2: one row of the mail) meets it only if
// every reading does, so that no reading is picked for the count. A paper
// figure that is not positive (fair-user-sched's no-groups median, −82.4
// µs, whose zero the report's script leaves unknown) has no ratio and is
// listed as not judged.
func Tally(results []*Result) PaperTally {
	t := PaperTally{Band: PaperBand, Goal: PaperGoal}
	type figure struct {
		what     string
		ratios   []string
		within   bool
		notJudge string
	}
	for _, r := range results {
		var order []string
		figs := map[string]*figure{}
		for _, row := range r.Rows {
			base, reading, _ := strings.Cut(row.Config, "@")
			for _, c := range []struct {
				name       string
				paper, sim *float64
			}{{"median", row.Paper.P50, row.Sim.P50}, {"max", row.Paper.Max, row.Sim.Max}, {"avg", row.Paper.Avg, row.Sim.Avg}} {
				if c.paper == nil {
					continue
				}
				key := base + " " + c.name
				fg := figs[key]
				if fg == nil {
					fg = &figure{what: r.ID + " " + key, within: true}
					figs[key] = fg
					order = append(order, key)
				}
				if *c.paper <= 0 || c.sim == nil || math.IsNaN(*c.sim) {
					why := "no simulated figure"
					if *c.paper <= 0 {
						why = "not positive: no ratio"
					}
					fg.notJudge = fmt.Sprintf("%s (paper %.1f us, %s)", fg.what, *c.paper, why)
					continue
				}
				q := *c.sim / *c.paper
				if math.Abs(q-1) > PaperBand {
					fg.within = false
				}
				qs := fmt.Sprintf("%.2f", q)
				if reading != "" {
					qs += " (" + reading + ")"
				}
				fg.ratios = append(fg.ratios, qs)
			}
		}
		for _, key := range order {
			fg := figs[key]
			switch {
			case fg.notJudge != "":
				t.NotJudged = append(t.NotJudged, fg.notJudge)
			case fg.within:
				t.Judged++
				t.Within++
			default:
				t.Judged++
				t.Outside = append(t.Outside, fg.what+" "+strings.Join(fg.ratios, ", "))
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
		fmt.Fprintf(&b, "   outside (sim/paper): %s\n", strings.Join(t.Outside, "; "))
	}
	if len(t.NotJudged) > 0 {
		fmt.Fprintf(&b, "   not judged: %s\n", strings.Join(t.NotJudged, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
