package cfs

import "schedlab/internal/iheap"

// timeline holds a queue's waiting entities (never curr) in the order of the
// kernel's red-black tree: by vruntime, and among equal vruntimes by
// insertion, because the kernel's insertion walks right on equal keys. CFS
// only ever asks for the leftmost entity, inserts and removes arbitrary ones
// (and, for compat yield, the rightmost), so an indexed heap keyed by
// (vruntime, insertion sequence) yields exactly the kernel's leftmost in
// O(log n) without allocating per operation.
type timeline struct {
	h   iheap.Heap[*entity]
	seq uint64
}

// before is the tree order. Comparing int64 differences keeps it right when
// the u64 virtual clock wraps, as the kernel's entity_before does; the heap
// orders by the same rule.
func (a *entity) before(b *entity) bool {
	if d := int64(a.vruntime - b.vruntime); d != 0 {
		return d < 0
	}
	return a.seq < b.seq
}

func (t *timeline) len() int { return t.h.Len() }

// leftmost returns the entity that the kernel's rb_leftmost caches, or nil.
func (t *timeline) leftmost() *entity {
	e, _ := t.h.Min()
	return e
}

// rightmost returns the last entity in tree order (O(n); only compat yield
// asks for it).
func (t *timeline) rightmost() *entity {
	var r *entity
	for i := 0; i < t.h.Len(); i++ {
		if e := t.h.At(i); r == nil || r.before(e) {
			r = e
		}
	}
	return r
}

func (t *timeline) insert(e *entity) {
	t.seq++
	e.seq = t.seq
	// A queued entity's vruntime does not change until it is picked
	// (only curr's does), so its key stays valid while it is here.
	e.idx = t.h.Push(e, e.vruntime, e.seq)
}

func (t *timeline) remove(e *entity) {
	t.h.Remove(e.idx)
	e.idx = -1
}

// contains reports whether e is in this timeline (for invariant checks).
func (t *timeline) contains(e *entity) bool { return t.h.Contains(e, e.idx) }

// second returns the entity after the leftmost in tree order, or nil
// (O(n); only 6.1's skip buddy asks for it).
func (t *timeline) second() *entity {
	first := t.leftmost()
	var s *entity
	for i := 0; i < t.h.Len(); i++ {
		if e := t.h.At(i); e != first && (s == nil || e.before(s)) {
			s = e
		}
	}
	return s
}
