package iheap

import (
	"math/rand/v2"
	"sort"
	"testing"
)

type item struct {
	key uint64
	seq uint64
	idx int
}

// Random pushes and removals keep the heap's minimum equal to the first
// element of a list sorted the same way, ties broken by sequence.
func TestAgainstSortedList(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Heap[*item]
	var list []*item
	var seq uint64
	for step := 0; step < 20000; step++ {
		if len(list) == 0 || r.IntN(3) > 0 {
			seq++
			it := &item{key: uint64(r.IntN(100)), seq: seq}
			h.Push(it, &it.idx, it.key, it.seq)
			list = append(list, it)
		} else {
			k := r.IntN(len(list))
			h.Remove(&list[k].idx)
			if h.Contains(&list[k].idx) || list[k].idx != -1 {
				t.Fatal("removed element still indexed")
			}
			list = append(list[:k], list[k+1:]...)
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].key != list[j].key {
				return list[i].key < list[j].key
			}
			return list[i].seq < list[j].seq
		})
		m, ok := h.Min()
		if h.Len() != len(list) || (ok && m != list[0]) {
			t.Fatalf("step %d: heap min/len disagree with the list", step)
		}
		for _, it := range list {
			if !h.Contains(&it.idx) {
				t.Fatal("element lost")
			}
		}
	}
}

func TestWrapSafeOrder(t *testing.T) {
	var h Heap[string]
	var a, b int
	h.Push("after wrap", &a, 5, 1)
	h.Push("before wrap", &b, ^uint64(0)-5, 2)
	if m, _ := h.Min(); m != "before wrap" {
		t.Fatalf("min is %q", m)
	}
}

// Unindexed elements pop in (key, seq) order.
func TestUnindexedPopOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h Heap[int]
	type kv struct{ key, seq uint64 }
	var want []kv
	for i := 0; i < 5000; i++ {
		k := uint64(r.IntN(50))
		h.Push(i, nil, k, uint64(i+1))
		want = append(want, kv{k, uint64(i + 1)})
	}
	sort.Slice(want, func(i, j int) bool {
		if want[i].key != want[j].key {
			return want[i].key < want[j].key
		}
		return want[i].seq < want[j].seq
	})
	for i, w := range want {
		_, k, s := h.Pop()
		if k != w.key || s != w.seq {
			t.Fatalf("pop %d: (%d, %d), want (%d, %d)", i, k, s, w.key, w.seq)
		}
	}
	if h.Len() != 0 {
		t.Fatal("heap not empty")
	}
}
