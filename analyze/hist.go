package analyze

import (
	"math/bits"
)

// Hist accumulates latency samples in constant memory per order of
// magnitude, so a run's statistics cost the same whether it takes a
// thousand samples or a hundred million. Count, sum, minimum, maximum and
// the log2 histogram are exact; the percentiles come from log-linear
// buckets (HdrHistogram's layout with 1024 sub-buckets per power of two):
//
//   - |v| < 2048 ns has a bucket of its own, so it is exact;
//   - above, a bucket spans 2^k ns where 2^(k+10) ≤ |v| < 2^(k+11), i.e.
//     at most 1/1024 of its lower bound.
//
// A percentile is the midpoint of the bucket that holds the nearest-rank
// sample, clamped to [Min, Max], so it is within 2^-11 (0.049 %) of the
// exact nearest-rank sample: 0.5 µs at 1 ms, 5 µs at 10 ms. Negative
// samples (a callback stamped before its expiry) are kept in mirrored
// buckets and obey the same bound. The log2 histogram is made from the
// buckets when it is asked for (log2Buckets), not counted per sample.
type Hist struct {
	count    int
	sum      int64
	min, max int64
	pos, neg []int64 // counts by bucket of v and of −v
}

// subBits is log2 of the sub-buckets per power of two; the relative
// resolution is 2^-subBits.
const subBits = 10

// RelativeError bounds |percentile − exact| / |exact| (2^-11): half a
// bucket of 2^-10.
const RelativeError = 1.0 / (2 << subBits)

// fineBucket returns the bucket of a magnitude u: u itself below 2^11,
// else shift·2^10 + u>>shift, where shift keeps the 11 top bits.
func fineBucket(u uint64) int {
	shift := max(bits.Len64(u)-subBits-1, 0)
	return shift<<subBits + int(u>>shift)
}

// fineLow returns the lowest magnitude in bucket i, and the bucket's
// width as a shift.
func fineLow(i int) (lo uint64, shift int) {
	s := i >> subBits
	if s <= 1 {
		return uint64(i), 0
	}
	shift = s - 1
	return uint64(i&(1<<subBits-1)|1<<subBits) << shift, shift
}

// fineMid returns the midpoint (rounded down) of bucket i: the value a
// percentile in it reports.
func fineMid(i int) uint64 {
	lo, shift := fineLow(i)
	return lo + (1<<shift-1)/2
}

// Add counts one sample of v nanoseconds.
func (h *Hist) Add(v int64) {
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if h.count == 0 || v > h.max {
		h.max = v
	}
	h.count++
	h.sum += v
	b := &h.pos
	u := uint64(v)
	if v < 0 {
		b, u = &h.neg, -uint64(v)
	}
	i := fineBucket(u)
	if i >= len(*b) {
		*b = append(*b, make([]int64, i+1-len(*b))...)
	}
	(*b)[i]++
}

// log2Buckets returns the Log2Hist of the samples, as Log2Hist.Add of
// each would count them. Every bucket here lies within one of its
// buckets: those are bounded at 1000·2^k ns (k ≥ 1), a number of k+10
// bits, where a bucket here spans 2^(k-1) ns, which divides it (and below
// 2048 ns each bucket holds one value). Negative samples are all in its
// bucket 0.
func (h *Hist) log2Buckets() Log2Hist {
	var l Log2Hist
	add := func(b int, n int64) {
		if b >= len(l.Buckets) {
			l.Buckets = append(l.Buckets, make([]int64, b+1-len(l.Buckets))...)
		}
		l.Buckets[b] += n
	}
	for _, n := range h.neg {
		if n > 0 {
			add(0, n)
		}
	}
	for i, n := range h.pos {
		if n > 0 {
			lo, _ := fineLow(i)
			add(bucket(int64(lo)), n)
		}
	}
	return l
}

// Count returns the number of samples.
func (h *Hist) Count() int { return h.count }

// Stats summarises the samples so far; h stays usable.
func (h *Hist) Stats() Stats {
	if h.count == 0 {
		return Stats{}
	}
	s := Stats{Count: h.count, Sum: h.sum, Min: h.min, Max: h.max, Hist: h.log2Buckets()}
	// Nearest rank ⌈p·n⌉ in integer arithmetic: a float p·n such as
	// 0.9·1000 can land just above an integer and ceil to the next rank.
	perMille := [4]int{500, 900, 990, 999}
	out := [4]*int64{&s.P50, &s.P90, &s.P99, &s.P999}
	var ranks [4]int
	for k, pm := range perMille {
		ranks[k] = max((pm*h.count+999)/1000, 1)
	}
	k, seen := 0, 0
	take := func(n int64, v int64) {
		seen += int(n)
		for k < len(ranks) && seen >= ranks[k] {
			*out[k] = min(max(v, h.min), h.max)
			k++
		}
	}
	for i := len(h.neg) - 1; i >= 0 && k < len(ranks); i-- {
		if h.neg[i] > 0 {
			take(h.neg[i], -int64(fineMid(i)))
		}
	}
	for i := 0; i < len(h.pos) && k < len(ranks); i++ {
		if h.pos[i] > 0 {
			take(h.pos[i], int64(fineMid(i)))
		}
	}
	return s
}
