package experiment

import (
	"fmt"
	"math"
	"slices"
)

// A mail's figure is the mean of 3 runs of one session, and the mails'
// sessions disagree: the same kernel measured twice ("both" in seed 004,
// START_DEBIT in seed 002) differs by 1.3×. So a claim is judged on what
// the author could have seen: the distribution of 3-run means of the
// simulation, over every triple of a row's runs (the k-th run of every row
// uses seed k, so a triple of seeds is one simulated session of the
// mail's three runs per row).

// Verdict is the outcome of a claim.
type Verdict string

const (
	// Holds: the claim holds in at least holdsShare of the 3-run means.
	Holds Verdict = "holds"
	// WithinNoise: it does not hold that often, but the mean over all runs
	// misses it by no more than the mails' own session-to-session spread,
	// so the mails' sessions could have come out either way.
	WithinNoise Verdict = "within the mails' own noise"
	// DoesNotHold: it misses by more than that spread.
	DoesNotHold Verdict = "does not hold"
)

// holdsShare is the share of 3-run means in which a claim must hold for
// "holds": a reader repeating the mail's three runs would see it nine
// times in ten.
const holdsShare = 0.9

// meanOf is how many runs a mail averaged.
const meanOf = 3

// triples lists every set of meanOf run indices of n runs, in
// lexicographic order (C(n, 3) of them; none for n < 3).
func triples(n int) [][meanOf]int {
	var out [][meanOf]int
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				out = append(out, [meanOf]int{a, b, c})
			}
		}
	}
	return out
}

// runFigures are one row's figures of each run, in run order.
type runFigures struct{ max, avg, p50 []float64 }

// meanFigures averages the given runs of a row, rounded as the table is.
func (r runFigures) mean(idx []int, median bool) Figures {
	var mx, av, md float64
	for _, i := range idx {
		mx += r.max[i]
		av += r.avg[i]
		md += r.p50[i]
	}
	n := float64(len(idx))
	fig := Figures{Max: f(round1(mx / n)), Avg: f(round1(av / n))}
	if median {
		fig.P50 = f(round1(md / n))
	}
	return fig
}

// extremes are the smallest and largest figure of any run.
func (r runFigures) extremes(median bool) (lo, hi Figures) {
	if len(r.avg) == 0 {
		return
	}
	lo = Figures{Max: f(slices.Min(r.max)), Avg: f(slices.Min(r.avg))}
	hi = Figures{Max: f(slices.Max(r.max)), Avg: f(slices.Max(r.avg))}
	if median {
		lo.P50, hi.P50 = f(slices.Min(r.p50)), f(slices.Max(r.p50))
	}
	return
}

// noise is the experiment's noise factor, 1 (none tolerated) when unset.
func (e *Experiment) noise() float64 {
	if e.Noise < 1 {
		return 1
	}
	return e.Noise
}

// Judgement is a claim's verdict with its evidence.
type Judgement struct {
	Verdict Verdict
	// Share of 3-run means in which the claim holds, over Means of them
	// (0 means when a row has fewer than 3 runs: then Share is the
	// claim's outcome on the all-run means, 0 or 1).
	Share float64
	Means int
	// Miss is the factor by which the all-run means miss the claim (1
	// where they bear it out).
	Miss float64
}

// judge decides a claim on the rows' runs: all is the all-run means,
// runs each row's figures per run, noise the mails' spread (≥ 1).
func judge(c Claim, all map[string]Figures, runs map[string]runFigures, n int, median bool, noise float64) Judgement {
	j := Judgement{Miss: 1}
	if c.Miss != nil {
		j.Miss = c.Miss(all)
	}
	ts := triples(n)
	if len(ts) == 0 {
		if ok, _ := c.Check(all); ok {
			j.Share = 1
		}
	}
	held := 0
	for _, t := range ts {
		sim := map[string]Figures{}
		for row, rf := range runs {
			sim[row] = rf.mean(t[:], median)
		}
		if ok, _ := c.Check(sim); ok {
			held++
		}
	}
	if len(ts) > 0 {
		j.Means = len(ts)
		j.Share = float64(held) / float64(len(ts))
	}
	switch {
	case j.Share >= holdsShare:
		j.Verdict = Holds
	case j.Miss <= noise:
		j.Verdict = WithinNoise
	default:
		j.Verdict = DoesNotHold
	}
	return j
}

// Describe says how often the claim held and, when it did not hold, by
// how much it missed.
func (j Judgement) Describe(noise float64) string {
	var s string
	if j.Means > 0 {
		s = fmt.Sprintf("in %.0f %% of %d 3-run means", 100*j.Share, j.Means)
	} else {
		s = "on the means (too few runs for 3-run means)"
	}
	if j.Verdict != Holds && !math.IsNaN(j.Miss) && j.Miss > 1 {
		s += fmt.Sprintf("; the means miss it by %.2fx (the mails' own spread: %.2fx)", j.Miss, noise)
	}
	return s
}

// missOrder is the factor by which a > b > … misses: for each pair out
// of order, how much the larger figure would have to shrink (or the
// smaller grow) to reach the other; the worst pair counts.
func missOrder(get func(map[string]Figures, string) float64, rows ...string) func(map[string]Figures) float64 {
	return func(sim map[string]Figures) float64 {
		miss := 1.0
		for i := 1; i < len(rows); i++ {
			a, b := get(sim, rows[i-1]), get(sim, rows[i])
			if b >= a && a > 0 {
				miss = math.Max(miss, b/a)
			}
		}
		return miss
	}
}

// missBand is the factor by which v misses [lo, hi] (lo ≤ 0: no lower
// bound; hi ≤ 0: no upper bound).
func missBand(v, lo, hi float64) float64 {
	switch {
	case math.IsNaN(v):
		return math.Inf(1)
	case hi > 0 && v > hi:
		return v / hi
	case lo > 0 && v < lo:
		if v <= 0 {
			return math.Inf(1)
		}
		return lo / v
	}
	return 1
}

// weaker is the weaker of two verdicts: a claim judged at several noise
// levels is only as strong as its weakest judgement.
func weaker(a, b Verdict) Verdict {
	rank := map[Verdict]int{Holds: 0, WithinNoise: 1, DoesNotHold: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
