// Package iheap is a binary min-heap whose elements know their own
// position, so that any element can be removed in O(log n) without a search
// and without allocating. The engine's event queue and the CFS timeline are
// both built on it.
//
// Each slot carries the element's key and sequence number and a pointer to
// the element's index field, so ordering and swapping never call back into
// the element: this keeps the generic heap as fast as a hand-written one.
package iheap

// Heap is an indexed binary min-heap ordered by (key, seq). Keys compare
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

// At returns the element at position i, for iteration in heap order.
func (q *Heap[E]) At(i int) E { return q.h[i].e }

// Contains reports whether the element whose index field is idx is here.
func (q *Heap[E]) Contains(idx *int) bool {
	i := *idx
	return i >= 0 && i < len(q.h) && q.h[i].idx == idx
}

// Push inserts e with its key and tie-breaking sequence number. idx is e's
// index field: the heap keeps it current and sets it to −1 on removal. The
// key must not change while e is in the heap.
func (q *Heap[E]) Push(e E, idx *int, key, seq uint64) {
	*idx = len(q.h)
	q.h = append(q.h, slot[E]{key: key, seq: seq, idx: idx, e: e})
	q.up(len(q.h) - 1)
}

// Remove takes out the element whose index field is idx; it must be here.
func (q *Heap[E]) Remove(idx *int) {
	i, n := *idx, len(q.h)-1
	if i != n {
		q.swap(i, n)
	}
	q.h[n] = slot[E]{}
	q.h = q.h[:n]
	*idx = -1
	if i != n && !q.down(i) {
		q.up(i)
	}
}

func (q *Heap[E]) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	*q.h[i].idx = i
	*q.h[j].idx = j
}

func (q *Heap[E]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.h[i].less(&q.h[p]) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *Heap[E]) down(i int) bool {
	start, n := i, len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.h[r].less(&q.h[l]) {
			m = r
		}
		if !q.h[m].less(&q.h[i]) {
			break
		}
		q.swap(i, m)
		i = m
	}
	return i > start
}
