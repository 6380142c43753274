package cfs

import "schedlab/internal/iheap"

// timeline holds a queue's waiting entities (never curr) in the order of the
// kernel's red-black tree: by vruntime, and among equal vruntimes by
// insertion, because the kernel's insertion walks right on equal keys. CFS
// only ever asks for the leftmost entity, inserts and removes arbitrary ones
// (and, for compat yield, the rightmost), so an indexed heap keyed by
// (vruntime, insertion sequence) yields exactly the kernel's leftmost in
// O(log n) without allocating per operation. While the timeline is small
// (fewer than runCap entities) a sorted run (sortedrun.go) holds them
// instead: at a few entities its compares and shifts cost less than the
// heap's sifts. It moves to the heap when an insertion would fill the run,
// and back when a removal leaves fewer than runMin, so that a queue whose
// length hovers about one bound does not move at every change. The order
// is total, so which form holds the entities does not change what
// leftmost returns.
//
// The heap used to keep the entity inserted last beside it, since
// schedule() puts the previous task back and picks at once; with the run
// in front it no longer paid: make -j10 on 1 CPU cost 1,188 instructions
// an event with it and 1,178 without, 10,000 tasks on 1 CPU 1,174 and
// 1,160 (its test on every query cost more than the sifts it saved).
//
// The run goes last, after the heap's slice headers, so that seq, big and
// the heap's length, which an insertion and update_min_vruntime read,
// share a line with the queue's fields before the timeline (cfsRQ).
type timeline struct {
	seq uint64
	big bool // the entities are in h, and run is empty
	h   iheap.Heap[*entity]
	run sortedRun
}

// runMin is the length below which the heap's entities go back to the run.
const runMin = runCap / 2

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
	if !t.big {
		return t.run.len()
	}
	return t.h.Len()
}

// The methods below that callers run most ask the run first and the heap
// after, so that they need not test which form is in use: the run is empty
// while the heap is in use, an empty run's first is nil, and an empty
// heap answers as an empty timeline should.

// leftmost returns the entity that the kernel's rb_leftmost caches, or nil.
func (t *timeline) leftmost() *entity {
	if e := t.run.first(); e != nil {
		return e
	}
	e, _ := t.h.Min()
	return e
}

// leftmostVruntime is leftmost's vruntime, or v for an empty timeline.
// It takes the heap's from its key, so update_min_vruntime reaches into no
// entity of a large queue (one that would miss the cache).
func (t *timeline) leftmostVruntime(v uint64) uint64 {
	if e := t.run.first(); e != nil {
		return e.vruntime
	}
	if k, ok := t.h.LeastKey(); ok {
		return k
	}
	return v
}

// at returns the i-th entity, i < len(): in tree order in the run, in no
// particular order in the heap.
func (t *timeline) at(i int) *entity {
	if !t.big {
		return t.run.at(i)
	}
	return t.h.At(i)
}

// rightmost returns the last entity in tree order (O(n) in the heap; only
// compat yield asks for it).
func (t *timeline) rightmost() *entity {
	if !t.big {
		if n := t.run.len(); n > 0 {
			return t.run.at(n - 1)
		}
		return nil
	}
	var r *entity
	for i := 0; i < t.len(); i++ {
		if e := t.at(i); r == nil || r.before(e) {
			r = e
		}
	}
	return r
}

// insert puts e in. A queued entity's vruntime does not change until it is
// picked (only curr's does), so its key stays valid while it is here.
func (t *timeline) insert(e *entity) {
	t.seq++
	e.seq = t.seq
	if !t.big && t.run.len() < runCap-1 {
		t.run.insert(e)
		return
	}
	if !t.big {
		t.toHeap()
	}
	e.idx = int32(t.h.Push(e, e.vruntime, e.seq))
}

// remove takes e out. The run's leftmost (a pick) is taken here, inlined
// into the caller: it is most of the removals.
func (t *timeline) remove(e *entity) {
	// The run's first, written out: with the run after the heap's
	// headers, t.run.first() put remove past the inlining budget.
	if t.run.buf[t.run.head&runMask] != e {
		t.removeOther(e)
		return
	}
	t.run.head++
}

func (t *timeline) removeOther(e *entity) {
	if !t.big {
		t.run.remove(e)
		return
	}
	t.h.Remove(int(e.idx))
	e.idx = -1
	if t.h.Len() < runMin {
		t.toRun()
	}
}

// toHeap moves the run's entities into the heap. In tree order each push
// is one comparison with its parent: a sorted array is a heap.
func (t *timeline) toHeap() {
	for i := 0; i < t.run.len(); i++ {
		e := t.run.at(i)
		e.idx = int32(t.h.Push(e, e.vruntime, e.seq))
	}
	t.run.head = t.run.tail
	t.big = true
}

// toRun moves the heap's entities into the run, in tree order, each after
// all the others.
func (t *timeline) toRun() {
	for t.h.Len() > 0 {
		e, _, _ := t.h.Pop()
		e.idx = -1
		t.run.insert(e)
	}
	t.big = false
}

// contains reports whether e is in this timeline (for invariant checks).
func (t *timeline) contains(e *entity) bool {
	if !t.big {
		return t.run.find(e) != t.run.tail
	}
	return t.h.Contains(e, int(e.idx))
}

// second returns the entity after the leftmost in tree order, or nil
// (O(n) in the heap; only 6.1's skip buddy asks for it).
func (t *timeline) second() *entity {
	if !t.big {
		if t.run.len() > 1 {
			return t.run.at(1)
		}
		return nil
	}
	first := t.leftmost()
	var s *entity
	for i := 0; i < t.len(); i++ {
		if e := t.at(i); e != first && (s == nil || e.before(s)) {
			s = e
		}
	}
	return s
}
