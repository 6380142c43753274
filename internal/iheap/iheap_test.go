package iheap

import (
	"math/rand/v2"
	"sort"
	"testing"
)

type item struct {
	key uint64
	seq uint64
	id  int // handle while in the heap, −1 when not
}

func sortList(list []*item) {
	sort.Slice(list, func(i, j int) bool {
		if d := int64(list[i].key - list[j].key); d != 0 {
			return d < 0
		}
		return list[i].seq < list[j].seq
	})
}

// Random pushes, removals, replacements and pops, with keys near the u64 wrap, keep the
// heap's minimum equal to the first element of a list sorted the same way
// (ties broken by sequence); handles stay valid while their element is
// in, are reused once it leaves, and name nothing after.
func TestAgainstSortedList(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Heap[*item]
	var list, out []*item
	var seq uint64
	base := ^uint64(0) - 50 // keys straddle the wrap
	for step := 0; step < 30000; step++ {
		switch op := r.IntN(7); {
		case len(list) == 0 || op < 3:
			seq++
			it := &item{key: base + uint64(r.IntN(100)), seq: seq}
			it.id = h.Push(it, it.key, it.seq)
			list = append(list, it)
		case op < 5:
			k := r.IntN(len(list))
			h.Remove(list[k].id)
			if h.Contains(list[k], list[k].id) {
				t.Fatal("removed element still here")
			}
			list[k].id = -1
			out = append(out, list[k])
			list = append(list[:k], list[k+1:]...)
		case op == 6:
			// Replace: a new element takes a leaving one's place and handle.
			k := r.IntN(len(list))
			seq++
			it := &item{key: base + uint64(r.IntN(100)), seq: seq, id: list[k].id}
			h.Replace(it.id, it, it.key, it.seq)
			if h.Contains(list[k], list[k].id) {
				t.Fatal("replaced element still here")
			}
			list[k].id = -1
			out = append(out, list[k])
			list[k] = it
		default:
			sortList(list)
			e, k, s := h.Pop()
			if e != list[0] || k != e.key || s != e.seq {
				t.Fatalf("step %d: pop (%d, %d), want (%d, %d)", step, k, s, list[0].key, list[0].seq)
			}
			if h.Contains(e, e.id) {
				t.Fatal("popped element still here")
			}
			e.id = -1
			out = append(out, e)
			list = list[1:]
		}
		sortList(list)
		m, ok := h.Min()
		if h.Len() != len(list) || (ok && m != list[0]) {
			t.Fatalf("step %d: heap min/len disagree with the list", step)
		}
		if ok {
			if _, k, s, _ := h.MinKey(); k != list[0].key || s != list[0].seq {
				t.Fatalf("step %d: MinKey (%d, %d)", step, k, s)
			}
			if k, ok := h.LeastKey(); !ok || k != list[0].key {
				t.Fatalf("step %d: LeastKey %d", step, k)
			}
		}
		seen := map[*item]bool{}
		for i := 0; i < h.Len(); i++ {
			seen[h.At(i)] = true
		}
		for _, it := range list {
			if !h.Contains(it, it.id) || !seen[it] {
				t.Fatal("element lost")
			}
		}
		if len(seen) != len(list) {
			t.Fatal("At iterates over something else")
		}
		if len(out) > 0 {
			if it := out[r.IntN(len(out))]; h.Contains(it, r.IntN(len(h.elems)+1)) {
				t.Fatal("a removed element found under some handle")
			}
		}
	}
	// Handles are reused: the dense slice is no larger than the most
	// elements ever in at once.
	if len(h.elems) > 30000/2 {
		t.Fatalf("%d handles for at most %d elements", len(h.elems), h.Len())
	}
}

func TestWrapSafeOrder(t *testing.T) {
	var h Heap[string]
	h.Push("after wrap", 5, 1)
	h.Push("before wrap", ^uint64(0)-5, 2)
	if m, _ := h.Min(); m != "before wrap" {
		t.Fatalf("min is %q", m)
	}
}

// Elements pop in (key, seq) order.
func TestPopOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h Heap[int]
	type kv struct{ key, seq uint64 }
	var want []kv
	for i := 0; i < 5000; i++ {
		k := uint64(r.IntN(50))
		h.Push(i+1, k, uint64(i+1))
		want = append(want, kv{k, uint64(i + 1)})
	}
	sort.Slice(want, func(i, j int) bool {
		if want[i].key != want[j].key {
			return want[i].key < want[j].key
		}
		return want[i].seq < want[j].seq
	})
	for i, w := range want {
		e, k, s := h.Pop()
		if k != w.key || s != w.seq || e != int(s) {
			t.Fatalf("pop %d: %d (%d, %d), want (%d, %d)", i, e, k, s, w.key, w.seq)
		}
	}
	if h.Len() != 0 {
		t.Fatal("heap not empty")
	}
}

// Once grown, pushing and removing allocate nothing.
func TestNoAllocs(t *testing.T) {
	var h Heap[*item]
	items := make([]item, 64)
	for i := range items {
		items[i].id = h.Push(&items[i], uint64(i*7%13), uint64(i))
	}
	k := 0
	if a := testing.AllocsPerRun(1000, func() {
		it := &items[k%len(items)]
		k++
		h.Remove(it.id)
		it.key += 5
		it.id = h.Push(it, it.key, uint64(k+100))
	}); a != 0 {
		t.Fatalf("%v allocations per remove+push", a)
	}
}
