// Package freelist keeps values of one type for reuse, so that a long run
// that creates and ends hundreds of thousands of them (tasks, scheduling
// entities) does not hand each to the garbage collector. What may be put
// back is the owner's rule: nothing may still refer to a value it puts.
package freelist

import "slices"

// List is a stack of values ready for reuse; its zero value is empty.
type List[T any] struct{ free []*T }

// Get returns a zeroed value: one put back before if there is one (reused
// true), else a new one.
func (l *List[T]) Get() (p *T, reused bool) {
	n := len(l.free)
	if n == 0 {
		return new(T), false
	}
	p = l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	var zero T
	*p = zero
	return p, true
}

// Put keeps p for a later Get.
func (l *List[T]) Put(p *T) { l.free = append(l.free, p) }

// Len returns the number of values held for reuse.
func (l *List[T]) Len() int { return len(l.free) }

// Has says whether p waits in the list (for tests of what must never be
// put back).
func (l *List[T]) Has(p *T) bool { return slices.Contains(l.free, p) }
