// Package iheap is a min-heap whose elements know their own
// position, so that any element can be removed in O(log n) without a search
// and without allocating. The CFS timeline is built on it (the engine's
// event queue, which cancels lazily and needs no positions, has its own
// pointer-free heap: sim/queue.go).
//
// Each slot carries the element's key and sequence number and a pointer to
// the element's index field, so ordering and swapping never call back into
// the element: this keeps the generic heap as fast as a hand-written one.
package iheap

// Heap is an indexed 4-ary min-heap ordered by (key, seq). Keys compare
// wrap-safely, as int64(a−b) < 0, so a u64 virtual clock that wraps around
// keeps its order (as long as live keys lie within 2^63 of each other); for
// non-negative int64 times this is the ordinary order. The zero value is
// empty and ready.
type Heap[E any] struct{ h []slot[E] }

type slot[E any] struct {
	key uint64
	seq uint64
	idx *int
	e   E
}

func (a *slot[E]) less(b *slot[E]) bool {
	if d := int64(a.key - b.key); d != 0 {
		return d < 0
	}
	return a.seq < b.seq
}

// Len returns the number of elements.
func (q *Heap[E]) Len() int { return len(q.h) }

// Min returns the smallest element; ok is false when the heap is empty.
func (q *Heap[E]) Min() (e E, ok bool) {
	if len(q.h) == 0 {
		return e, false
	}
	return q.h[0].e, true
}

// MinKey returns the smallest element with its key and sequence.
func (q *Heap[E]) MinKey() (e E, key, seq uint64, ok bool) {
	if len(q.h) == 0 {
		return e, 0, 0, false
	}
	return q.h[0].e, q.h[0].key, q.h[0].seq, true
}

// At returns the element at position i, for iteration in heap order.
func (q *Heap[E]) At(i int) E { return q.h[i].e }

// Contains reports whether the element whose index field is idx is here.
func (q *Heap[E]) Contains(idx *int) bool {
	i := *idx
	return i >= 0 && i < len(q.h) && q.h[i].idx == idx
}

// Push inserts e with its key and tie-breaking sequence number. idx is e's
// index field: the heap keeps it current and sets it to −1 on removal. A
// nil idx makes e unindexed: it can only leave through Pop, and moving it
// writes nothing outside the heap (for callers that cancel lazily). The key
// must not change while e is in the heap.
func (q *Heap[E]) Push(e E, idx *int, key, seq uint64) {
	q.h = append(q.h, slot[E]{})
	q.up(len(q.h)-1, slot[E]{key: key, seq: seq, idx: idx, e: e})
}

// Pop removes and returns the smallest element, with its key and sequence.
func (q *Heap[E]) Pop() (e E, key, seq uint64) {
	top := q.h[0]
	n := len(q.h) - 1
	last := q.h[n]
	q.h[n] = slot[E]{}
	q.h = q.h[:n]
	if n > 0 {
		q.down(0, last)
	}
	if top.idx != nil {
		*top.idx = -1
	}
	return top.e, top.key, top.seq
}

// Remove takes out the element whose index field is idx; it must be here.
func (q *Heap[E]) Remove(idx *int) {
	i, n := *idx, len(q.h)-1
	*idx = -1
	last := q.h[n]
	q.h[n] = slot[E]{}
	q.h = q.h[:n]
	if i == n {
		return
	}
	// Refill the hole at i with the last slot, moving it whichever way
	// its key needs.
	if i > 0 && last.less(&q.h[(i-1)/arity]) {
		q.up(i, last)
	} else {
		q.down(i, last)
	}
}

// The heap is 4-ary: half the depth of a binary heap, and its four
// children share a cache line or two, which matters with thousands of
// elements whose index fields are written on every move.
const arity = 4

// up moves s from the hole at i towards the root, shifting parents down
// into the hole instead of swapping (one write per level).
func (q *Heap[E]) up(i int, s slot[E]) {
	for i > 0 {
		p := (i - 1) / arity
		if !s.less(&q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		q.setIndex(i)
		i = p
	}
	q.h[i] = s
	q.setIndex(i)
}

func (q *Heap[E]) setIndex(i int) {
	if p := q.h[i].idx; p != nil {
		*p = i
	}
}

// down moves s from the hole at i towards the leaves.
func (q *Heap[E]) down(i int, s slot[E]) {
	n := len(q.h)
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+arity && k < n; k++ {
			if q.h[k].less(&q.h[m]) {
				m = k
			}
		}
		if !q.h[m].less(&s) {
			break
		}
		q.h[i] = q.h[m]
		q.setIndex(i)
		i = m
	}
	q.h[i] = s
	q.setIndex(i)
}
