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
