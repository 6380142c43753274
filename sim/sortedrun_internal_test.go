package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A sorted run is a sorted list: insertions before all, after all and
// between (many times equal when, told apart by the key), from the back
// (insert) or from the nearer end (insertNearer), removals from
// either half and the earliest taken, the entries going round the ring
// either way, with counters that wrap, and a full ring, against a
// sorted slice.
func TestSortedRunIsASortedList(t *testing.T) {
	for _, c := range []struct {
		name        string
		early, late int // per 8 insertions: before all, after all
		max         int
	}{{"mixed", 3, 3, 40}, {"drift up", 0, 7, 20}, {"drift down", 7, 0, 20}, {"between", 0, 0, 40}, {"full", 3, 3, runCap - 1}} {
		rng := rand.New(rand.NewPCG(3, 4))
		var r sortedRun
		var ref []entry
		key := uint64(0)
		cmpEntry := func(a, b entry) int {
			if a.less(&b) {
				return -1
			}
			if b.less(&a) {
				return 1
			}
			return 0
		}
		// The ring starts near the wrap of its counters.
		r.head = ^uint(0) - 100
		r.tail = r.head
		moved, maxLen, laps, wraps := 0, 0, r.head/runCap, 0
		fromFront := 0 // insertNearer's between the first and the middle
		for step := 0; step < 50000; step++ {
			maxLen = max(maxLen, len(ref))
			switch op := rng.IntN(10); {
			case op < 5 && len(ref) < c.max || len(ref) == 0:
				key++
				s := entry{key: key}
				switch k := rng.IntN(8); {
				case len(ref) == 0:
					s.when = rng.Int64N(100)
				case k < c.early:
					s.when = ref[0].when - rng.Int64N(2)
					if s.when == ref[0].when {
						s.when-- // equal when, later key: after it
					}
				case k < c.early+c.late:
					s.when = ref[len(ref)-1].when + rng.Int64N(2)
				default:
					s.when = ref[0].when + rng.Int64N(ref[len(ref)-1].when-ref[0].when+1)
					moved++
				}
				i, _ := slices.BinarySearchFunc(ref, s, cmpEntry)
				if rng.IntN(2) == 0 {
					r.insert(s)
				} else {
					r.insertNearer(s)
					if i > 0 && i < len(ref)/2 {
						fromFront++
					}
				}
				ref = slices.Insert(ref, i, s)
			case op < 7:
				i := rng.IntN(len(ref))
				r.remove(ref[i].key)
				ref = slices.Delete(ref, i, i+1)
			default:
				if got := *r.first(); got != ref[0] {
					t.Fatalf("%s, step %d: first = %v, want %v", c.name, step, got, ref[0])
				}
				r.popFirst()
				ref = ref[1:]
			}
			var got []entry
			for i := r.head; i != r.tail; i++ {
				got = append(got, r.buf[i&runMask])
			}
			if r.len() != len(ref) || !slices.Equal(got, ref) {
				t.Fatalf("%s, step %d: run %v, want %v", c.name, step, got, ref)
			}
			if k := r.buf[r.tail&runMask].key; k != 0 {
				t.Fatalf("%s, step %d: the slot at tail holds key %d", c.name, step, k)
			}
			if r.head/runCap != laps {
				laps, wraps = r.head/runCap, wraps+1
			}
		}
		if c.early != c.late && wraps < 10 {
			t.Errorf("%s: the front went round the ring %d times", c.name, wraps)
		}
		if c.max == runCap-1 && maxLen < runCap-8 {
			t.Errorf("%s: at most %d entries", c.name, maxLen)
		}
		if c.early+c.late < 8 && moved < 1000 {
			t.Errorf("%s: %d insertions between", c.name, moved)
		}
		// ("between" ends with every when equal: each goes last.)
		if c.name != "between" && fromFront < 300 {
			t.Errorf("%s: %d insertions from the front", c.name, fromFront)
		}
	}
}
