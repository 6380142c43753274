package sim

// sortedRun holds a small queue's entries in order, earliest first, in a
// ring of runCap slots: buf[head&runMask] to buf[(tail−1)&runMask], head
// and tail counting freely (they wrap as unsigned numbers do, and tail −
// head is the length). The earliest is taken from the front (head moves
// up), an entry due before all goes in at the front (head moves down),
// and any other from the back, shifting the later ones up by one. A few
// timers (the seed loads keep three to eight) are mostly armed before
// all the others (a reschedule, a piece of work) or after them (a tick,
// a sleep): one or two comparisons and no move, where the heap (sift
// down: compare four children, move, write the position of each entry
// moved) took a quarter of the busy engine's instructions. Nothing needs an
// entry's position: its key, which holds the arming number, is in its
// timer, so a cancel finds it by a scan. The masked indices need no
// bounds checks, and the ring never has to be moved back to the middle
// of an array. The slot at tail always holds key 0, which names no
// timer (number 0 is none), so the first slot of an empty run names none
// either: peek needs no test of the length.
type sortedRun struct {
	head, tail uint
	buf        [runCap]entry
}

// runCap − 1 bounds the run's length (the queue keeps it below runMax):
// the slot at tail is never an entry's.
const runCap, runMask = 64, 64 - 1

func (r *sortedRun) len() int { return int(r.tail - r.head) }

// first returns the earliest entry; the run must not be empty.
func (r *sortedRun) first() *entry { return &r.buf[r.head&runMask] }

// popFirst takes the earliest entry out.
func (r *sortedRun) popFirst() { r.head++ }

// insert puts s in its place; the run must hold fewer than runCap − 1. Keys
// are unique, so s is strictly before or after every entry.
func (r *sortedRun) insert(s entry) {
	if !r.insertFront(s) {
		r.insertBack(s)
	}
}

// insertFront puts s at the front if it is due before all the entries,
// and says whether it did. (Small, to be inlined: most armings end here.)
func (r *sortedRun) insertFront(s entry) bool {
	if r.head == r.tail || !s.less(&r.buf[r.head&runMask]) {
		return false
	}
	r.head--
	r.buf[r.head&runMask] = s
	return true
}

// insertBack puts s, due after the first entry if any, in its place from
// the back: after all, one comparison.
func (r *sortedRun) insertBack(s entry) {
	h, i := r.head, r.tail
	r.tail = i + 1
	r.buf[r.tail&runMask].key = 0
	for i != h && s.less(&r.buf[(i-1)&runMask]) {
		r.buf[i&runMask] = r.buf[(i-1)&runMask]
		i--
	}
	r.buf[i&runMask] = s
}

// insertNearer is insert from the nearer end, as the middle entry says:
// the entries before s shift down by one, or those after it up. A split
// queue's near run is long (up to nearMax) and its armings land
// anywhere in it, where a whole run's go mostly before or after all.
func (r *sortedRun) insertNearer(s entry) {
	if n := r.tail - r.head; n < 2 || !s.less(&r.buf[(r.head+n/2)&runMask]) {
		r.insertBack(s)
		return
	}
	// Due before the middle entry, which ends the loop.
	r.head--
	i := r.head
	for r.buf[(i+1)&runMask].less(&s) {
		r.buf[i&runMask] = r.buf[(i+1)&runMask]
		i++
	}
	r.buf[i&runMask] = s
}

// remove takes out the entry with key, which must be in the run, shifting
// the shorter side. It looks from the back: what is cancelled or armed
// again before its time is mostly a task's piece of work, due late.
func (r *sortedRun) remove(key uint64) {
	i := r.tail - 1
	for r.buf[i&runMask].key != key {
		i--
	}
	if i-r.head < r.tail-1-i {
		for ; i != r.head; i-- {
			r.buf[i&runMask] = r.buf[(i-1)&runMask]
		}
		r.head++
	} else {
		for ; i != r.tail-1; i++ {
			r.buf[i&runMask] = r.buf[(i+1)&runMask]
		}
		r.tail--
		r.buf[r.tail&runMask].key = 0
	}
}
