package cfs

import "schedlab/sched"

// sortedRun holds a small timeline's entities in tree order, leftmost
// first, in a ring of runCap slots: buf[head&runMask] to
// buf[(tail−1)&runMask], head and tail counting freely (they wrap as
// unsigned numbers do, and tail − head is the length). A queue of a few
// tasks (make -j10 keeps about ten) takes from the front (a pick: head
// moves up), puts a woken sleeper, placed a latency before min_vruntime,
// at the front (head moves down), and the task just run, put back, a few
// places from the back (the ones after it move up a slot each): a
// comparison or a few and as many moves, where the heap's sift down
// compared four children a level and wrote the position of every slot it
// moved (about 80 instructions an event of make -j10; the run takes about 40).
// A removal other than the leftmost's finds its entity by binary search on
// the entity's own key (vruntime, seq, which does not change while it is
// queued) and shifts the shorter side. The masked indices need no bounds
// checks, and the ring never has to be moved back to the middle of an
// array. The slot at tail is always nil, so the first slot of an empty run
// is nil too: first needs no test of the length.
type sortedRun struct {
	head, tail uint
	buf        [runCap]*entity
}

// runCap − 1 bounds the run's length (the timeline moves to its heap
// before it would reach runCap): the slot at tail is never an entity's.
const runCap, runMask = 32, 32 - 1

// runStart is where an empty run starts: in a CPU's root queue slots 0
// to 3 share the line of head and tail, so one entity can come in at the
// front and one at the back (and the nil after it) before the run leaves
// it.
const runStart = 1

func (r *sortedRun) len() int { return int(r.tail - r.head) }

// first returns the leftmost entity, or nil.
func (r *sortedRun) first() *entity { return r.buf[r.head&runMask] }

// at returns the i-th entity in tree order, i < len().
func (r *sortedRun) at(i int) *entity { return r.buf[(r.head+uint(i))&runMask] }

// insert puts e in its place; the run must hold fewer than runCap − 1, and
// e must go after every entity of its vruntime, as the entity inserted
// last does (its seq is the largest) and as one does that comes in tree
// order. So the place is found on vruntimes alone. An entity before all
// goes in at the front; any other is put in from the back, shifting the
// ones after it up a slot as it goes (the task put back after its slice
// mostly lands in the later half).
func (r *sortedRun) insert(e *entity) {
	h, t, v := r.head, r.tail, e.vruntime
	if h == t {
		// An empty run starts again at slot runStart, so that a queue
		// of one or two entities keeps to the cache line of the ring
		// that holds head and tail instead of wandering over all of
		// them (TestRunQueueLayout).
		r.head, r.tail = runStart, runStart+1
		r.buf[runStart], r.buf[runStart+1] = e, nil
		return
	}
	if sched.Before(v, r.buf[h&runMask].vruntime) {
		r.head = h - 1
		r.buf[(h-1)&runMask] = e
		return
	}
	i := t
	for sched.Before(v, r.buf[(i-1)&runMask].vruntime) {
		r.buf[i&runMask] = r.buf[(i-1)&runMask]
		i--
	}
	r.buf[i&runMask] = e
	r.tail = t + 1
	r.buf[(t+1)&runMask] = nil
}

// find returns the slot number of e, or tail when e is not here.
func (r *sortedRun) find(e *entity) uint {
	h := r.head
	lo, hi := uint(0), r.tail-h
	for lo < hi {
		m := (lo + hi) / 2
		if r.buf[(h+m)&runMask].before(e) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == r.tail-h || r.buf[(h+lo)&runMask] != e {
		return r.tail
	}
	return h + lo
}

// remove takes e, which must be here, out, shifting the shorter side. The
// leftmost (a pick) is tested first: it is most of the removals.
func (r *sortedRun) remove(e *entity) {
	h, t := r.head, r.tail
	if r.buf[h&runMask] == e {
		r.head = h + 1
		return
	}
	p := r.find(e)
	if p-h < t-1-p {
		for i := p; i != h; i-- {
			r.buf[i&runMask] = r.buf[(i-1)&runMask]
		}
		r.head = h + 1
	} else {
		for i := p; i != t-1; i++ {
			r.buf[i&runMask] = r.buf[(i+1)&runMask]
		}
		r.tail = t - 1
		r.buf[(t-1)&runMask] = nil
	}
}
