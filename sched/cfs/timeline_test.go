package cfs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Random insertions and removals (of the pending entity, of others while
// one is pending, of the leftmost), with vruntimes straddling the u64 wrap
// and many ties, keep leftmost, second, rightmost and len equal to a list
// sorted by (vruntime, insertion); contains says which entities are in,
// and a removed one's idx is −1 again.
func TestTimelineIsASortedList(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var tl timeline
	var list []*entity
	ents := make([]entity, 64)
	for i := range ents {
		ents[i].idx = -1
	}
	base := ^uint64(0) - 20
	sorted := func() []*entity {
		s := slices.Clone(list)
		slices.SortFunc(s, func(a, b *entity) int {
			if a.before(b) {
				return -1
			}
			return 1
		})
		return s
	}
	pending := 0
	for step := 0; step < 40000; step++ {
		if tl.pend != nil {
			pending++
		}
		var out []*entity
		for i := range ents {
			if ents[i].idx == -1 {
				out = append(out, &ents[i])
			}
		}
		switch op := r.IntN(8); {
		case len(list) == 0 || op < 3 && len(out) > 0:
			e := out[r.IntN(len(out))]
			e.vruntime = base + uint64(r.IntN(40))
			tl.insert(e)
			list = append(list, e)
		case op < 5 && tl.pend != nil: // the one just inserted (put_prev, then picked)
			e := tl.pend
			tl.remove(e)
			list = slices.DeleteFunc(list, func(x *entity) bool { return x == e })
		case op < 7: // the leftmost (a pick)
			e := tl.leftmost()
			tl.remove(e)
			list = slices.DeleteFunc(list, func(x *entity) bool { return x == e })
		default: // any (a dequeue)
			k := r.IntN(len(list))
			tl.remove(list[k])
			list = slices.Delete(list, k, k+1)
		}
		for _, e := range out {
			if e.idx != -1 && !slices.Contains(list, e) || tl.contains(e) != slices.Contains(list, e) {
				t.Fatalf("step %d: contains disagrees with the list", step)
			}
		}
		s := sorted()
		if tl.len() != len(s) {
			t.Fatalf("step %d: len %d, want %d", step, tl.len(), len(s))
		}
		if len(s) == 0 {
			if tl.leftmostVruntime(7) != 7 || tl.leftmost() != nil || tl.rightmost() != nil || tl.second() != nil {
				t.Fatalf("step %d: an empty timeline has entities", step)
			}
			continue
		}
		if tl.leftmost() != s[0] || tl.rightmost() != s[len(s)-1] {
			t.Fatalf("step %d: leftmost or rightmost is not the list's", step)
		}
		if v := tl.leftmostVruntime(s[0].vruntime + 1); v != s[0].vruntime {
			t.Fatalf("step %d: leftmost's vruntime %d, want %d", step, v, s[0].vruntime)
		}
		if want := (*entity)(nil); len(s) > 1 && tl.second() != s[1] || len(s) == 1 && tl.second() != want {
			t.Fatalf("step %d: second is not the list's", step)
		}
		for _, e := range list {
			if !tl.contains(e) {
				t.Fatalf("step %d: an inserted entity is not contained", step)
			}
		}
	}
	if pending < 10000 {
		t.Fatalf("an entity was pending beside the heap at only %d steps", pending)
	}
}
