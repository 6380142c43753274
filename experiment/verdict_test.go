package experiment

import (
	"math"
	"testing"
)

// rows builds two rows "A" and "B" of 10 runs from their averages (the
// maximum and median are the same numbers) and their all-run means.
func rows(a, b []float64) (map[string]Figures, map[string]runFigures) {
	runs := map[string]runFigures{"A": {a, a, a}, "B": {b, b, b}}
	all := map[string]Figures{}
	idx := make([]int, len(a))
	for i := range idx {
		idx[i] = i
	}
	for k, r := range runs {
		all[k] = r.mean(idx, false)
	}
	return all, runs
}

func fill(n int, v float64, rest ...float64) []float64 {
	out := make([]float64, 0, n)
	out = append(out, rest...)
	for len(out) < n {
		out = append(out, v)
	}
	return out
}

func TestTriples(t *testing.T) {
	if n := len(triples(10)); n != 120 {
		t.Fatalf("C(10,3) = %d", n)
	}
	if n := len(triples(2)); n != 0 {
		t.Fatalf("two runs give %d triples", n)
	}
	seen := map[[3]int]bool{}
	for _, tr := range triples(6) {
		if !(tr[0] < tr[1] && tr[1] < tr[2]) || seen[tr] {
			t.Fatalf("triple %v repeated or unordered", tr)
		}
		seen[tr] = true
	}
	if len(seen) != 20 {
		t.Fatalf("C(6,3) = %d", len(seen))
	}
}

// The verdicts on synthetic runs whose shares and misses are counted by
// hand. The claim is "average: A > B"; noise is 1.3.
func TestJudge(t *testing.T) {
	claim := orderClaim("A > B", avgOf, "avg", "A", "B")
	for _, c := range []struct {
		name  string
		a, b  []float64
		want  Verdict
		share float64
		miss  float64
	}{
		// A: 8 runs of 100, 2 of 10; B: 50. A triple fails only when it
		// holds both 10s (mean 40): 8 of the 120 triples.
		{"holds with probability 112/120", fill(10, 100, 10, 10), fill(10, 50), Holds, 112.0 / 120, 1},
		// B: 9 runs of 50, one of 400 (all-run mean 85 < 100): every
		// triple with the 400 (36 of 120) has mean 166.7 > 100.
		{"within noise: holds on the mean, in 70 % of triples", fill(10, 100), fill(10, 50, 400), WithinNoise, 84.0 / 120, 1},
		// B 20 % above A everywhere: never holds, missed by 1.2 < 1.3.
		{"within noise: missed by 1.2x", fill(10, 100), fill(10, 120), WithinNoise, 0, 1.2},
		// B twice A: missed by 2x.
		{"does not hold", fill(10, 100), fill(10, 200), DoesNotHold, 0, 2},
	} {
		all, runs := rows(c.a, c.b)
		j := judge(claim, all, runs, 10, false, 1.3)
		if j.Verdict != c.want || math.Abs(j.Share-c.share) > 1e-9 || math.Abs(j.Miss-c.miss) > 1e-9 || j.Means != 120 {
			t.Errorf("%s: %+v, want %s share %.3f miss %.2f over 120", c.name, j, c.want, c.share, c.miss)
		}
	}
	// Fewer than 3 runs: judged on the means alone.
	all, runs := rows([]float64{100, 100}, []float64{50, 50})
	if j := judge(claim, all, runs, 2, false, 1.3); j.Verdict != Holds || j.Means != 0 || j.Share != 1 {
		t.Errorf("two runs: %+v", j)
	}
}

func TestMissBand(t *testing.T) {
	for _, c := range []struct{ v, lo, hi, want float64 }{
		{5, 2, 8, 1}, {1, 2, 8, 2}, {16, 2, 8, 2}, {20, 10, 0, 1}, {5, 10, 0, 2},
		{400, 0, 500, 1}, {-82, 0, 500, 1}, {750, 0, 500, 1.5}, {0, 2, 8, math.Inf(1)},
	} {
		if got := missBand(c.v, c.lo, c.hi); got != c.want {
			t.Errorf("missBand(%v, [%v, %v]) = %v, want %v", c.v, c.lo, c.hi, got, c.want)
		}
	}
	// An ordering's miss is its worst pair's.
	sim := map[string]Figures{"a": {Avg: f(100)}, "b": {Avg: f(120)}, "c": {Avg: f(90)}, "d": {Avg: f(135)}}
	if got := missOrder(avgOf, "a", "b", "c", "d")(sim); math.Abs(got-1.5) > 1e-12 {
		t.Errorf("miss of a > b > c > d = %v, want 1.5 (d/c)", got)
	}
}
