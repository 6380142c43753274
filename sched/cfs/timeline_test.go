package cfs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Random insertions and removals (of the one just inserted, of the
// leftmost, of any), with vruntimes straddling the u64 wrap and many ties,
// keep leftmost, leftmostVruntime, second, rightmost, len and contains
// equal to a list sorted by (vruntime, insertion), while the length
// swings between a few and twice the run's capacity, so that the timeline
// moves from the run to the heap and back many times. In the run, at
// must give the list's order itself; the slot at the run's tail must be
// nil, the run empty while the heap is in use, and idx a heap handle
// exactly for the heap's entities.
func TestTimelineIsASortedList(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var tl timeline
	var list []*entity
	ents := make([]entity, 2*runCap)
	for i := range ents {
		ents[i].idx = -1
	}
	in := make(map[*entity]bool)
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
	var last *entity
	toHeap, toRun, runSteps, heapSteps, wasBig := 0, 0, 0, 0, false
	for step := 0; step < 60000; step++ {
		// The wanted length alternates between a few and the pool's
		// size, every 1,500 steps.
		want := 4
		if step/1500%2 == 1 {
			want = len(ents)
		}
		var out []*entity
		for i := range ents {
			if !in[&ents[i]] {
				out = append(out, &ents[i])
			}
		}
		op := r.IntN(10)
		grow := len(list) < want && op < 7 || len(list) >= want && op < 3
		switch {
		case len(out) > 0 && (len(list) == 0 || grow):
			e := out[r.IntN(len(out))]
			e.vruntime = base + uint64(r.IntN(40))
			tl.insert(e)
			list = append(list, e)
			in[e], last = true, e
		case op < 5 && last != nil && in[last]: // put_prev, then picked
			tl.remove(last)
			list = slices.DeleteFunc(list, func(x *entity) bool { return x == last })
			in[last] = false
		case op < 8: // the leftmost (a pick)
			e := tl.leftmost()
			tl.remove(e)
			list = slices.DeleteFunc(list, func(x *entity) bool { return x == e })
			in[e] = false
		default: // any (a dequeue)
			k := r.IntN(len(list))
			e := list[k]
			tl.remove(e)
			list = slices.Delete(list, k, k+1)
			in[e] = false
		}
		switch {
		case tl.big && !wasBig:
			toHeap++
		case !tl.big && wasBig:
			toRun++
		}
		wasBig = tl.big
		if tl.big {
			heapSteps++
			if tl.run.len() != 0 {
				t.Fatalf("step %d: the run holds %d entities while the heap is in use", step, tl.run.len())
			}
		} else {
			runSteps++
			if tl.h.Len() != 0 {
				t.Fatalf("step %d: the heap holds %d entities while the run is in use", step, tl.h.Len())
			}
		}
		if tl.run.buf[tl.run.tail&runMask] != nil {
			t.Fatalf("step %d: the slot at the run's tail is not nil", step)
		}
		for i := range ents {
			e := &ents[i]
			if tl.contains(e) != in[e] {
				t.Fatalf("step %d: contains says %v for an entity in the list: %v", step, !in[e], in[e])
			}
			if inHeap := tl.big && in[e]; inHeap != (e.idx >= 0) {
				t.Fatalf("step %d: idx %d for an entity in the heap: %v", step, e.idx, inHeap)
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
		if !tl.big {
			for i, e := range s {
				if tl.at(i) != e {
					t.Fatalf("step %d: the run's entity %d is not the list's", step, i)
				}
			}
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
	}
	if toHeap < 10 || toRun < 10 || runSteps < 10000 || heapSteps < 10000 {
		t.Fatalf("the timeline moved to the heap %d times and back %d times, in the run %d steps and the heap %d",
			toHeap, toRun, runSteps, heapSteps)
	}
	t.Logf("to the heap %d times, back %d times; %d steps in the run, %d in the heap", toHeap, toRun, runSteps, heapSteps)
}
