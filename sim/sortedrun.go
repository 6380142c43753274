package sim

// sortedRun holds a small queue's entries in order, earliest first, in
// buf[head:tail], with room on both sides. The earliest is taken from the
// front (head moves up), and an entry goes in from the end of the half
// its place is in, shifting the entries between by one. A few timers
// (the seed loads keep three to eight) are mostly armed before all the
// others (a reschedule, a piece of work) or after them (a tick, a sleep):
// one or two comparisons and no move, where a heap's sift-down (compare
// four children, move, write the position of every entry moved) was a
// quarter of the busy engine's instructions. Nothing needs an entry's
// position: its key, (when, arming), is in its timer, so a cancel finds
// it by its key.
type sortedRun struct {
	buf        []entry
	head, tail int
}

func (r *sortedRun) len() int { return r.tail - r.head }

// first returns the earliest entry; the run must not be empty.
func (r *sortedRun) first() *entry { return &r.buf[r.head] }

// popFirst takes the earliest entry out.
func (r *sortedRun) popFirst() { r.head++ }

// insert puts s in its place. Keys are unique, so s is strictly before
// or after every entry. Most go before all (a reschedule, a piece of
// work: no move) or after all (a tick, a sleep: one comparison more);
// those between shift the later ones up.
func (r *sortedRun) insert(s entry) {
	h, t := r.head, r.tail
	if h == t {
		if t == len(r.buf) {
			r.recentre()
			t = r.tail
		}
		r.buf[t] = s
		r.tail = t + 1
		return
	}
	if s.less(&r.buf[h]) {
		if h == 0 {
			r.recentre()
			h = r.head
		}
		r.buf[h-1] = s
		r.head = h - 1
		return
	}
	if t == len(r.buf) {
		r.recentre()
		h, t = r.head, r.tail
	}
	// From the tail down; s is after the first entry, so b[0] stops it.
	b := r.buf[h : t+1]
	i := len(b) - 1
	for i > 0 && s.less(&b[i-1]) {
		b[i] = b[i-1]
		i--
	}
	b[i] = s
	r.tail = t + 1
}

// remove takes out the entry with key, which must be in the run (the key
// names one: it holds the arming number), shifting the shorter side.
func (r *sortedRun) remove(key uint64) {
	b := r.buf[r.head:r.tail]
	i := 0
	for b[i].key != key {
		i++
	}
	if i < len(b)/2 {
		for ; i > 0; i-- {
			b[i] = b[i-1]
		}
		r.head++
	} else {
		for ; i < len(b)-1; i++ {
			b[i] = b[i+1]
		}
		r.tail--
	}
}

// recentre moves the n entries to the middle of buf, which it first
// makes at least 3n+64 long, so that either end has room for n+32
// more: with each pop taking the front and most armings adding at the
// back, the entries drift, and every drift across that room costs one
// copy.
func (r *sortedRun) recentre() {
	n := r.tail - r.head
	old := r.buf[r.head:r.tail]
	if len(r.buf) < 3*n+64 {
		r.buf = make([]entry, 3*n+64)
	}
	r.head = (len(r.buf) - n) / 2
	r.tail = r.head + copy(r.buf[r.head:], old)
}
