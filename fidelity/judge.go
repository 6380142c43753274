package fidelity

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"schedlab/validate"
)

// The suite's goal (issue 13): a figure agrees when the simulation's median
// is inside the kernel's run-to-run spread or within ±Tolerance of the
// kernel's median; none is off by more than a factor of Far.
const (
	Tolerance = 0.25
	Far       = 2.0
	// Moved is the least relative change of a median that counts as a
	// toggle moving a figure (besides the kernel's spreads not
	// overlapping).
	Moved = 0.05
)

// Figure is one compared number of a case.
type Figure struct {
	Name              string  // "timer p50", "share nice0", ...
	Real, Lo, Hi, Sim float64 // the kernel's median, min and max over runs; the simulation's median
	Agrees, Far       bool
}

// Ratio is the simulation's median over the kernel's.
func (f Figure) Ratio() float64 {
	if f.Real == 0 {
		return math.Inf(1)
	}
	return f.Sim / f.Real
}

func judge(name string, real, lo, hi, sim float64) Figure {
	f := Figure{Name: name, Real: real, Lo: lo, Hi: hi, Sim: sim}
	f.Agrees = sim >= lo && sim <= hi || math.Abs(sim-real) <= Tolerance*math.Abs(real)
	r := f.Ratio()
	f.Far = r > Far || r < 1/Far
	return f
}

// Figures are a case's compared numbers: every latency figure that has
// samples on both sides, and the CPU shares of the comms that get at
// least 5 % on the kernel when the case compares shares.
func Figures(c Case, res *validate.Result) []Figure {
	var out []Figure
	for _, f := range res.Figures {
		if f.Compared {
			out = append(out, judge(f.Latency+" "+f.Stat, float64(f.HostMed), float64(f.HostMin), float64(f.HostMax), float64(f.Sim)))
		}
	}
	if !c.Shares {
		return out
	}
	comms := map[string]bool{}
	for _, r := range res.Host {
		for comm := range r.Shares {
			comms[comm] = true
		}
	}
	for _, comm := range slices.Sorted(maps.Keys(comms)) {
		real := shareOf(res.Host, comm)
		med, lo, hi := medMinMax(real)
		if med < 0.05 {
			continue
		}
		sm, _, _ := medMinMax(shareOf(res.Sim, comm))
		out = append(out, judge("share "+comm, med, lo, hi, sm))
	}
	return out
}

func shareOf(runs []validate.RunStats, comm string) []float64 {
	var v []float64
	for _, r := range runs {
		v = append(v, r.Shares[comm])
	}
	return v
}

func medMinMax(v []float64) (med, lo, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2], s[0], s[len(s)-1]
}

// Move is what a toggle did to one figure, on the kernel and in the
// simulation: -1 down, 0 not moved, +1 up.
type Move struct {
	Figure    string
	Real, Sim int
	// RealBase, RealToggle, SimBase, SimToggle are the medians.
	RealBase, RealToggle, SimBase, SimToggle float64
}

// Toggle is a toggle's effect against its baseline.
type Toggle struct {
	Case  Case
	Moves []Move
	// Judged counts the figures the toggle moved on the kernel; Agreed,
	// those the simulation moved the same way.
	Judged, Agreed int
}

// JudgeToggle compares a toggle case with its baseline, figure by figure.
// A figure moved on the kernel when its spreads over the runs of the two
// cases do not overlap and its median changed by at least Moved; the
// simulation moved it when its median changed by at least Moved.
func JudgeToggle(c Case, base, tog []Figure) Toggle {
	t := Toggle{Case: c}
	for _, tf := range tog {
		i := slices.IndexFunc(base, func(b Figure) bool { return b.Name == tf.Name })
		if i < 0 {
			continue
		}
		bf := base[i]
		m := Move{Figure: tf.Name, RealBase: bf.Real, RealToggle: tf.Real, SimBase: bf.Sim, SimToggle: tf.Sim}
		if tf.Lo > bf.Hi || tf.Hi < bf.Lo {
			m.Real = direction(bf.Real, tf.Real)
		}
		m.Sim = direction(bf.Sim, tf.Sim)
		if m.Real != 0 {
			t.Judged++
			if m.Sim == m.Real {
				t.Agreed++
			}
		}
		t.Moves = append(t.Moves, m)
	}
	return t
}

func direction(from, to float64) int {
	if math.Abs(to-from) < Moved*math.Max(math.Abs(from), math.Abs(to)) {
		return 0
	}
	if to > from {
		return 1
	}
	return -1
}

// Tally counts agreeing, far and compared figures.
type Tally struct{ Agree, Far, N int }

func (t *Tally) add(figs []Figure) {
	for _, f := range figs {
		t.N++
		if f.Agrees {
			t.Agree++
		}
		if f.Far {
			t.Far++
		}
	}
}

func (t Tally) String() string {
	if t.N == 0 {
		return "no figures"
	}
	return fmt.Sprintf("%d of %d figures agree (%.0f %%), %d off by more than %g×", t.Agree, t.N, 100*float64(t.Agree)/float64(t.N), t.Far, Far)
}
