package analyze

import (
	"bytes"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
)

// Stats summarises latency samples in nanoseconds.
type Stats struct {
	Count    int
	Sum      int64 // ns
	Min, Max int64 // ns (0 when Count == 0)
	// Nearest-rank percentiles (the ceil(p*n)-th smallest sample,
	// 1-based) to within Hist's resolution: RelativeError of the sample.
	P50, P90, P99, P999 int64 // ns
	Hist                Log2Hist
}

// Avg returns the mean sample in nanoseconds, 0 when there are none.
func (s Stats) Avg() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.Sum) / float64(s.Count)
}

// Summarise computes Stats from samples (ns), as a Hist fed the same
// samples does: one definition, whether the samples were kept or not.
func Summarise(samples []int64) Stats {
	var h Hist
	for _, v := range samples {
		h.Add(v)
	}
	return h.Stats()
}

// SummariseExact is Summarise with the exact nearest-rank percentiles,
// for a caller that draws the samples themselves (a CDF, whose marks must
// sit on its curve). It sorts samples in place.
func SummariseExact(samples []int64) Stats {
	s := Summarise(samples)
	if n := len(samples); n > 0 {
		slices.Sort(samples)
		rank := func(perMille int) int64 { return samples[max((perMille*n+999)/1000, 1)-1] }
		s.P50, s.P90, s.P99, s.P999 = rank(500), rank(900), rank(990), rank(999)
	}
	return s
}

// Log2Hist counts samples in power-of-two buckets of microseconds, the
// buckets bcc's runqlat prints. A sample of ns nanoseconds has us = ns/1000
// (truncated, as runqlat divides) microseconds and goes to bucket
// max(0, floor(log2(us))): bucket 0 holds 0..1 µs and bucket i ≥ 1 holds
// [2^i, 2^(i+1)-1] µs, so the rows read 0 -> 1, 2 -> 3, 4 -> 7, 8 -> 15, …
// Negative samples (a timer callback stamped before its programmed expiry)
// count in bucket 0.
type Log2Hist struct{ Buckets []int64 }

func bucket(ns int64) int {
	if ns < 0 {
		return 0
	}
	return max(bits.Len64(uint64(ns/1000))-1, 0)
}

// bounds returns bucket i's range in microseconds.
func bounds(i int) (lo, hi int64) {
	if i == 0 {
		return 0, 1
	}
	return 1 << i, 1<<(i+1) - 1
}

// Add counts one sample of ns nanoseconds.
func (h *Log2Hist) Add(ns int64) {
	i := bucket(ns)
	if i >= len(h.Buckets) {
		h.Buckets = append(h.Buckets, make([]int64, i+1-len(h.Buckets))...)
	}
	h.Buckets[i]++
}

// Span returns the first and last non-empty buckets (−1, −1 when empty)
// and the largest count, the range a histogram is drawn over.
func (h Log2Hist) Span() (first, last int, peak int64) {
	first, last = -1, -1
	for i, c := range h.Buckets {
		if c > 0 {
			if first < 0 {
				first = i
			}
			last = i
			peak = max(peak, c)
		}
	}
	return first, last, peak
}

// Write prints the histogram as runqlat does, with unit as the header's
// label (the buckets are always microseconds): the header
// "     usecs               : count    distribution", then one
// "%10d -> %-10d : %-8d |%-40s|" row per bucket with stars proportional to
// the largest bucket. Leading and trailing empty buckets are omitted, and an
// empty histogram prints nothing. As in runqlat, when the last bucket is
// above 32 the columns widen to 20 and the bar halves.
func (h Log2Hist) Write(w io.Writer, unit string) error {
	first, last, peak := h.Span()
	if last < 0 {
		return nil
	}
	indent, label, width, bar := 5, 19, 10, 40
	if last > 32 {
		indent, label, width, bar = 15, 29, 20, 20
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%*s%-*s : count    distribution\n", indent, "", label, unit)
	for i := first; i <= last; i++ {
		lo, hi := bounds(i)
		c := h.Buckets[i]
		stars := strings.Repeat("*", int(max(c, 0)*int64(bar)/peak))
		fmt.Fprintf(&b, "%*d -> %-*d : %-8d |%-*s|\n", width, lo, width, hi, c, bar, stars)
	}
	_, err := w.Write(b.Bytes())
	return err
}
