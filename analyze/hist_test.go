package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFineBuckets(t *testing.T) {
	for _, c := range []struct {
		u   uint64
		idx int
		mid uint64
	}{
		{0, 0, 0}, {1, 1, 1}, {2047, 2047, 2047}, // exact below 2^11
		{2048, 2048, 2048}, {2049, 2048, 2048}, {2050, 2049, 2050}, // width 2 from 2^11
		{4095, 3071, 4094}, {4096, 3072, 4097}, {4099, 3072, 4097}, // width 4 from 2^12: [4096, 4099]
		{500000, 8<<10 + 500000>>8, 499968 + 127},
	} {
		if got := fineBucket(c.u); got != c.idx {
			t.Errorf("fineBucket(%d) = %d, want %d", c.u, got, c.idx)
		}
		if got := fineMid(c.idx); got != c.mid {
			t.Errorf("fineMid(%d) = %d, want %d", c.idx, got, c.mid)
		}
	}
	// Every bucket's midpoint lies in it, and buckets are contiguous.
	for i := 0; i < 40<<subBits; i++ {
		if fineBucket(fineMid(i)) != i {
			t.Fatalf("bucket %d: midpoint %d falls in %d", i, fineMid(i), fineBucket(fineMid(i)))
		}
	}
	if i := fineBucket(math.MaxUint64); fineMid(i) < 1<<63 {
		t.Errorf("the top bucket %d's midpoint %d", i, fineMid(i))
	}
}

// Percentiles from the Hist are within RelativeError of the exact
// nearest-rank ones, on spreads from all-equal to nine decades, with
// negative samples; count, sum, min, max and the log2 histogram (made
// from the fine buckets) are exact.
func TestHistAgainstExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(5000)
		sigma := rng.Float64() * 5
		samples := make([]int64, n)
		for i := range samples {
			samples[i] = int64(20000 * math.Exp(sigma*rng.NormFloat64()))
			if trial%5 == 0 && rng.IntN(10) == 0 {
				samples[i] = -samples[i] / 100
			}
		}
		got := Summarise(samples)
		s := slices.Clone(samples)
		slices.Sort(s)
		var sum int64
		for _, v := range s {
			sum += v
		}
		if got.Count != n || got.Sum != sum || got.Min != s[0] || got.Max != s[n-1] {
			t.Fatalf("trial %d: count %d sum %d min %d max %d, want %d %d %d %d", trial, got.Count, got.Sum, got.Min, got.Max, n, sum, s[0], s[n-1])
		}
		var log2 Log2Hist
		for _, v := range samples {
			log2.Add(v)
		}
		if !slices.Equal(got.Hist.Buckets, log2.Buckets) {
			t.Fatalf("trial %d: log2 buckets %v, want %v", trial, got.Hist.Buckets, log2.Buckets)
		}
		for _, p := range []struct {
			perMille int
			got      int64
		}{{500, got.P50}, {900, got.P90}, {990, got.P99}, {999, got.P999}} {
			exact := s[max((p.perMille*n+999)/1000, 1)-1]
			if d := math.Abs(float64(p.got - exact)); d > RelativeError*math.Abs(float64(exact)) {
				t.Fatalf("trial %d (n %d, sigma %.2f): p%.1f = %d, exact %d: off by %.4f%%", trial, n, sigma, float64(p.perMille)/10, p.got, exact, 100*d/math.Abs(float64(exact)))
			}
		}
	}
}

// A Hist grows with the largest sample, not with the count.
func TestHistSize(t *testing.T) {
	var h Hist
	for i := 0; i < 1_000_000; i++ {
		h.Add(int64(i % 100_000_000))
	}
	if n := len(h.pos); n > 18<<subBits {
		t.Errorf("%d buckets for samples below 100 ms", n)
	}
}

// The log2 histogram made from the fine buckets puts the samples on
// either side of each of its bounds (1000·2^k ns) where Log2Hist.Add
// does, for every bound up to 2^50 ns, and every sample up to 5 µs.
func TestHistLog2AtBounds(t *testing.T) {
	var samples []int64
	for v := int64(-3000); v <= 5000; v++ {
		samples = append(samples, v)
	}
	for k := 1; k <= 40; k++ {
		b := int64(1000) << k
		samples = append(samples, b-1, b, b+1, b+b/3)
	}
	for _, v := range samples {
		var h Hist
		var want Log2Hist
		h.Add(v)
		want.Add(v)
		if got := h.Stats().Hist; !slices.Equal(got.Buckets, want.Buckets) {
			t.Fatalf("%d ns: log2 buckets %v, want %v", v, got.Buckets, want.Buckets)
		}
	}
}
