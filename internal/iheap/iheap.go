// Package iheap is a min-heap that can remove any of its elements in
// O(log n) without a search and without allocating. The CFS timeline is
// built on it (the engine's event queue, which splits near and far timers,
// has its own: sim/queue.go).
//
// The heap's slots hold no pointers: {key, seq, handle}, the handle being
// the element's number in a dense slice beside the heap. Moving a slot is
// then a plain 24-byte copy and a write to the dense positions array,
// never a write through a pointer into the element (which, for the CFS
// timeline, sits in a cold per-task struct), never a write barrier while
// the collector runs, and the collector never scans the heap itself. The
// element keeps its handle, which stays the same while it is here, and
// gives it back to remove it.
package iheap

// Heap is a 4-ary min-heap ordered by (key, seq). Keys compare wrap-safely,
// as int64(a−b) < 0, so a u64 virtual clock that wraps around keeps its
// order (as long as live keys lie within 2^63 of each other); for
// non-negative int64 times this is the ordinary order. The zero value is
// empty and ready.
type Heap[E comparable] struct {
	h     []slot
	elems []E     // by handle; the zero E when free
	pos   []int32 // by handle: the index of its slot in h
	free  []int32 // handles not in use
}

type slot struct {
	key, seq uint64
	id       int32 // handle
}

func (a *slot) less(b *slot) bool {
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
	return q.elems[q.h[0].id], true
}

// MinKey returns the smallest element with its key and sequence.
func (q *Heap[E]) MinKey() (e E, key, seq uint64, ok bool) {
	if len(q.h) == 0 {
		return e, 0, 0, false
	}
	return q.elems[q.h[0].id], q.h[0].key, q.h[0].seq, true
}

// LeastKey returns the smallest key alone, without reading the element.
func (q *Heap[E]) LeastKey() (key uint64, ok bool) {
	if len(q.h) == 0 {
		return 0, false
	}
	return q.h[0].key, true
}

// At returns the element at position i, for iteration in heap order.
func (q *Heap[E]) At(i int) E { return q.elems[q.h[i].id] }

// Contains reports whether e is here under handle id.
func (q *Heap[E]) Contains(e E, id int) bool {
	var zero E
	return id >= 0 && id < len(q.elems) && e != zero && q.elems[id] == e
}

// Push inserts e with its key and tie-breaking sequence number and returns
// its handle, valid until it leaves. The key must not change while e is in
// the heap.
func (q *Heap[E]) Push(e E, key, seq uint64) int {
	var id int32
	if n := len(q.free); n > 0 {
		id = q.free[n-1]
		q.free = q.free[:n-1]
		q.elems[id] = e
	} else {
		id = int32(len(q.elems))
		q.elems = append(q.elems, e)
		q.pos = append(q.pos, 0)
	}
	q.h = append(q.h, slot{})
	q.up(len(q.h)-1, slot{key: key, seq: seq, id: id})
	return int(id)
}

// Pop removes and returns the smallest element, with its key and sequence.
func (q *Heap[E]) Pop() (e E, key, seq uint64) {
	top := q.h[0]
	q.removeAt(0)
	return q.release(top.id), top.key, top.seq
}

// Remove takes out the element with handle id; it must be here.
func (q *Heap[E]) Remove(id int) {
	q.removeAt(int(q.pos[id]))
	q.release(int32(id))
}

// Replace puts e, with its key and sequence, where the element with
// handle id is; that element leaves and e takes over its handle. It is one
// sift where a Remove and a Push are two.
func (q *Heap[E]) Replace(id int, e E, key, seq uint64) {
	q.elems[id] = e
	i := int(q.pos[id])
	s := slot{key: key, seq: seq, id: int32(id)}
	if i > 0 && s.less(&q.h[(i-1)/arity]) {
		q.up(i, s)
	} else {
		q.down(i, s)
	}
}

func (q *Heap[E]) release(id int32) E {
	var zero E
	e := q.elems[id]
	q.elems[id] = zero
	q.free = append(q.free, id)
	return e
}

// removeAt takes the slot at i out, refilling the hole with the last slot
// and moving it whichever way its key needs.
func (q *Heap[E]) removeAt(i int) {
	n := len(q.h) - 1
	last := q.h[n]
	q.h = q.h[:n]
	if i == n {
		return
	}
	if i > 0 && last.less(&q.h[(i-1)/arity]) {
		q.up(i, last)
	} else {
		q.down(i, last)
	}
}

// The heap is 4-ary: half the depth of a binary heap, and its four
// children share a cache line or two.
const arity = 4

// up moves s from the hole at i towards the root, shifting parents down
// into the hole instead of swapping (one write per level).
func (q *Heap[E]) up(i int, s slot) {
	h, pos := q.h, q.pos
	for i > 0 {
		p := (i - 1) / arity
		if !s.less(&h[p]) {
			break
		}
		h[i] = h[p]
		pos[h[i].id] = int32(i)
		i = p
	}
	h[i] = s
	pos[s.id] = int32(i)
}

// down moves s from the hole at i towards the leaves.
func (q *Heap[E]) down(i int, s slot) {
	h, pos := q.h, q.pos
	n := len(h)
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		if c+arity <= n {
			// All four children: compared without bounds checks.
			ch := (*[arity]slot)(h[c : c+arity])
			j := 0
			if ch[1].less(&ch[0]) {
				j = 1
			}
			if ch[2].less(&ch[j]) {
				j = 2
			}
			if ch[3].less(&ch[j]) {
				j = 3
			}
			m += j
		} else {
			for k := c + 1; k < n; k++ {
				if h[k].less(&h[m]) {
					m = k
				}
			}
		}
		if !h[m].less(&s) {
			break
		}
		h[i] = h[m]
		pos[h[i].id] = int32(i)
		i = m
	}
	h[i] = s
	pos[s.id] = int32(i)
}
