package cpumask

import (
	"math/rand/v2"
	"testing"
)

// After random changes, Mask.Next and Levels.Top, Bottom and Level give
// what a scan of a plain slice gives, for sizes around the word
// boundaries.
func TestMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 63, 64, 65, 130, 1024} {
		m := New(n)
		in := make([]bool, n)
		l := NewLevels(n)
		lv := make([]int, n)
		for step := 0; step < 20000; step++ {
			c := rng.IntN(n)
			on := rng.IntN(3) == 0
			m.Set(c, on)
			in[c] = on
			k := 0
			if rng.IntN(2) == 0 {
				k = rng.IntN(6) // levels come and go
			}
			l.Move(c, lv[c], k)
			lv[c] = k

			from, to := rng.IntN(n+1), rng.IntN(n+1)
			want := -1
			for i := from; i < to; i++ {
				if in[i] {
					want = i
					break
				}
			}
			if got := m.Next(from, to); got != want {
				t.Fatalf("n=%d step %d: Next(%d, %d) = %d, a scan finds %d", n, step, from, to, got, want)
			}
			if m.Has(c) != on || l.Level(c) != k {
				t.Fatalf("n=%d step %d: cpu %d reads back %v/%d, set %v/%d", n, step, c, m.Has(c), l.Level(c), on, k)
			}
			for i := 0; step%500 == 0 && i < n; i++ {
				if got := l.Level(i); got != lv[i] {
					t.Fatalf("n=%d step %d: cpu %d is found at level %d, filed at %d", n, step, i, got, lv[i])
				}
			}
			except := rng.IntN(n+1) - 1
			want = -1
			for i := 0; i < n; i++ {
				if i != except && lv[i] > 0 && (want < 0 || lv[i] > lv[want]) {
					want = i
				}
			}
			if got := l.Top(except); got != want {
				t.Fatalf("n=%d step %d: Top(%d) = %d, a scan finds %d (levels %v)", n, step, except, got, want, lv)
			}
			low := 0
			for _, k := range lv {
				if k > 0 && (low == 0 || k < low) {
					low = k
				}
			}
			k, bm := l.Bottom()
			if k != low {
				t.Fatalf("n=%d step %d: Bottom is level %d, a scan finds %d (levels %v)", n, step, k, low, lv)
			}
			for i := 0; k > 0 && i < n; i++ {
				if bm.Has(i) != (lv[i] == k) {
					t.Fatalf("n=%d step %d: cpu %d at level %d is %v in the bottom mask of level %d", n, step, i, lv[i], bm.Has(i), k)
				}
			}
		}
	}
}
