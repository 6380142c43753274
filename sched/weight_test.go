package sched

import (
	"testing"

	"schedlab/uapi"
)

// Vectors computed by hand from 2.6.35's calc_delta_mine rules
// (lazy inverse 1+(WMULT_CONST−W/2)/(W+1), two half-shifts above 2^32).
func TestCalcDeltaMineKernelVectors(t *testing.T) {
	cases := []struct {
		name           string
		arch           Arch
		delta, w, load uint64
		want           uint64
	}{
		{"slice 6ms 1/2", Arch64, 6000000, 1024, 2048, 2998537},
		{"slice 6ms 1/2 32-bit", Arch32, 6000000, 1024, 2048, 2998535},
		{"slice 6ms 1/3", Arch64, 6000000, 1024, 3072, 1999349},
		{"slice 20ms 1/10", Arch64, 20000000, 1024, 10240, 1999803},
		{"slice 22ms 1/11", Arch64, 22000000, 1024, 11264, 1999825},
		{"slice 8.25ms 1/11 (2.6.36)", Arch64, 8250000, 1024, 11264, 749933},
	}
	for _, c := range cases {
		lw := LoadWeight{Weight: c.load}
		if got := c.arch.CalcDeltaMine(c.delta, c.w, &lw); got != c.want {
			t.Errorf("%s: calc_delta_mine(%d, %d, %d) = %d, want %d", c.name, c.delta, c.w, c.load, got, c.want)
		}
		if lw.Inv == 0 {
			t.Errorf("%s: inverse weight not cached", c.name)
		}
	}
}

func TestCalcDeltaFairUsesTableInverse(t *testing.T) {
	cases := []struct {
		nice       int
		delta      uint64
		want       uint64
		wantWeight uint64
	}{
		{5, 4000000, 12226866, 335},
		{-5, 4000000, 1312400, 3121},
		{3, 1000000, 1946768, 526}, // the wakeup granularity of a nice +3 wakee
		{0, 4000000, 4000000, 1024},
	}
	for _, c := range cases {
		lw := NiceWeight(c.nice, uapi.SchedNormal)
		if lw.Weight != c.wantWeight {
			t.Errorf("nice %d: weight %d, want %d", c.nice, lw.Weight, c.wantWeight)
		}
		if got := Arch64.CalcDeltaFair(c.delta, &lw); got != c.want {
			t.Errorf("calc_delta_fair(%d, nice %d) = %d, want %d", c.delta, c.nice, got, c.want)
		}
	}
}

func TestLazyInverseDividesByWeightPlusOne(t *testing.T) {
	lw := LoadWeight{Weight: 1024}
	Arch64.CalcDeltaMine(1, 1, &lw)
	if lw.Inv != 4190212 { // not the table's 4194304
		t.Fatalf("lazy inverse of 1024 = %d, want 4190212", lw.Inv)
	}
}

func TestNiceWeightTables(t *testing.T) {
	// Each table inverse is 2^32/weight rounded (within 1 of it).
	for n := uapi.MinNice; n <= uapi.MaxNice; n++ {
		lw := NiceWeight(n, uapi.SchedNormal)
		exact := float64(uint64(1)<<32) / float64(lw.Weight)
		if d := float64(lw.Inv) - exact; d > 1 || d < -1 {
			t.Errorf("nice %d: inverse %d, 2^32/%d = %.1f", n, lw.Inv, lw.Weight, exact)
		}
	}
	if w := NiceWeight(0, uapi.SchedIdle); w.Weight != 3 {
		t.Errorf("SCHED_IDLE weight %d, want 3", w.Weight)
	}
	if w := NiceWeight(40, uapi.SchedNormal); w.Weight != 15 {
		t.Errorf("nice is not clamped: %d", w.Weight)
	}
}

func TestWrapSafeComparisons(t *testing.T) {
	a := ^uint64(0) - 10 // just before the wrap
	b := uint64(5)       // just after it
	if !Before(a, b) || Before(b, a) {
		t.Fatal("Before is not wrap-safe")
	}
	if MaxVruntime(a, b) != b || MinVruntime(a, b) != a {
		t.Fatal("Max/MinVruntime are not wrap-safe")
	}
}
