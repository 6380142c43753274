package cfs

import (
	"schedlab/internal/iheap"
	"schedlab/sched"
)

// timeline holds a queue's waiting entities (never curr) in the order of the
// kernel's red-black tree: by vruntime, and among equal vruntimes by
// insertion, because the kernel's insertion walks right on equal keys. CFS
// only ever asks for the leftmost entity, inserts and removes arbitrary ones
// (and, for compat yield, the rightmost), so an indexed heap keyed by
// (vruntime, insertion sequence) yields exactly the kernel's leftmost in
// O(log n) without allocating per operation.
//
// The entity inserted last waits beside the heap (pend) until the next
// insertion or removal: schedule() puts the previous task back and picks
// the next at once, so the entity just put is often the one picked (no
// heap work at all), and otherwise the picked one's place in the heap is
// where the pending one goes (one sift instead of a removal's and an
// insertion's). The order is total, so when an entity enters the heap
// does not change what leftmost returns.
type timeline struct {
	h    iheap.Heap[*entity]
	pend *entity // in the timeline but not in h; its idx is pendIdx
	seq  uint64
}

// pendIdx is the idx of the entity waiting beside the heap.
const pendIdx = -2

// before is the tree order. Comparing int64 differences keeps it right when
// the u64 virtual clock wraps, as the kernel's entity_before does; the heap
// orders by the same rule.
func (a *entity) before(b *entity) bool {
	if d := int64(a.vruntime - b.vruntime); d != 0 {
		return d < 0
	}
	return a.seq < b.seq
}

func (t *timeline) len() int {
	if t.pend != nil {
		return t.h.Len() + 1
	}
	return t.h.Len()
}

// leftmost returns the entity that the kernel's rb_leftmost caches, or nil.
func (t *timeline) leftmost() *entity {
	e, _ := t.h.Min()
	if p := t.pend; p != nil && (e == nil || p.before(e)) {
		return p
	}
	return e
}

// leftmostVruntime is leftmost's vruntime, or v for an empty timeline.
// It needs no tie-break (equal vruntimes are the same answer), and takes
// the heap's from its key, so update_min_vruntime reaches into no entity
// but the pending one.
func (t *timeline) leftmostVruntime(v uint64) uint64 {
	p := t.pend
	if k, ok := t.h.LeastKey(); ok {
		if p != nil && sched.Before(p.vruntime, k) {
			return p.vruntime
		}
		return k
	}
	if p != nil {
		return p.vruntime
	}
	return v
}

// flush moves the pending entity into the heap.
func (t *timeline) flush() {
	if p := t.pend; p != nil {
		t.pend = nil
		p.idx = int32(t.h.Push(p, p.vruntime, p.seq))
	}
}

// at returns the i-th entity in no particular order, i < len(): the
// pending one last.
func (t *timeline) at(i int) *entity {
	if i == t.h.Len() {
		return t.pend
	}
	return t.h.At(i)
}

// rightmost returns the last entity in tree order (O(n); only compat yield
// asks for it).
func (t *timeline) rightmost() *entity {
	var r *entity
	for i := 0; i < t.len(); i++ {
		if e := t.at(i); r == nil || r.before(e) {
			r = e
		}
	}
	return r
}

func (t *timeline) insert(e *entity) {
	// Tested here, not only in flush, so that an insertion after the
	// pending entity was picked (nothing to flush) costs no call.
	if t.pend != nil {
		t.flush()
	}
	t.seq++
	e.seq = t.seq
	// A queued entity's vruntime does not change until it is picked
	// (only curr's does), so its key stays valid while it is here.
	e.idx, t.pend = pendIdx, e
}

func (t *timeline) remove(e *entity) {
	switch p := t.pend; {
	case p == e:
		t.pend = nil
	case p != nil:
		t.pend = nil
		t.h.Replace(int(e.idx), p, p.vruntime, p.seq)
		p.idx = e.idx
	default:
		t.h.Remove(int(e.idx))
	}
	e.idx = -1
}

// contains reports whether e is in this timeline (for invariant checks).
func (t *timeline) contains(e *entity) bool {
	return e == t.pend && e.idx == pendIdx || t.h.Contains(e, int(e.idx))
}

// second returns the entity after the leftmost in tree order, or nil
// (O(n); only 6.1's skip buddy asks for it).
func (t *timeline) second() *entity {
	first := t.leftmost()
	var s *entity
	for i := 0; i < t.len(); i++ {
		if e := t.at(i); e != first && (s == nil || e.before(s)) {
			s = e
		}
	}
	return s
}
