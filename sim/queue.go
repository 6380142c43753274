package sim

import (
	"cmp"
	"slices"
)

// timerKind says what an expiring timer means to the engine.
type timerKind uint8

const (
	tkTick     timerKind = iota + 1 // a CPU's periodic scheduler tick
	tkHRTick                        // a CPU's high-resolution slice timer
	tkWorkDone                      // the running task used up its current CPU work
	tkWake                          // a sleeping task's wakeup (sleep or rt-app timer)
	tkStart                         // an initial task's start (after its delay)
	tkPosix                         // a POSIX interval timer's expiry
	tkResched                       // a marked task reaches schedule() (cost_resched_ns)
	tkClass                         // the class stack's timer (RT bandwidth period)
	tkKThread                       // a kernel thread's wakeup at a tick (kthreads.go)
)

// timer is one pending occurrence in the event queue. Owners embed their
// timers and re-arm them, so the queue never allocates per event.
type timer struct {
	when int64
	seq  uint64 // arming number of its heap entry; 0 when not armed
	kind timerKind
	cpu  *CPU
	task *Task
	ptmr *posixTimer
	// phase distinguishes the two steps of a timer-driven wakeup: the
	// expiry itself, then the wakeup after the wakeup-path cost.
	phase uint8
	// id is the timer's number in the queue while it is armed.
	id int32
}

func (t *timer) armed() bool { return t.seq != 0 }

// eventQueue is the engine's pending timers, ordered by time, then by
// arming order, so that equal times fire in the order they were armed and
// runs are deterministic. Cancelling takes the timer's entry out and
// re-arming moves it, found by its position in pos, so the heaps hold the
// armed timers and nothing else (lazily cancelled entries, left until
// their time, made the busy workload's heap four times its 16 timers).
//
// The heaps' entries hold no pointers: a 16-byte {when, seq·2^24 + id}
// naming the timer by its number in timers. Moving one is a plain copy
// and a write to the dense pos array, never into the timers, which sit
// in thousands of task structs, and with no write barrier while the
// garbage collector runs; the collector never scans the heaps.
//
// Past splitAt timers the queue splits: those due before horizon are in
// the near heap h, the others in far. With thousands of tasks asleep,
// their wakeups wait in far, and the ticks, work and reschedule timers
// that make most events come and go through a near heap of a few
// entries instead of through all of them (a pop of 10,000 entries was a
// quarter of the run's time). When the near heap runs dry, the horizon
// moves to the earliest far timer plus farWindow and the far timers
// before it move over. The order is (when, arming) in both, and every
// near entry is due before every far one, so the earliest timer is the
// near heap's. A queue of a few dozen timers (the seed loads) stays
// whole: the split's own work cost it 3 % of its instructions.
type eventQueue struct {
	h, far heap4
	timers []*timer // by id; nil: free
	pos    []int32  // by id: the index of its entry in h or far
	inFar  []bool   // by id, while split: its entry is in far
	free   []int32
	seq    uint64
	// split: far is in use, and horizon divides the heaps: h holds the
	// entries due before it, far those at or after.
	split   bool
	horizon int64
	// window is the horizon's lead over the earliest far timer when it
	// moves, and splitN and joinN the sizes that split and join the
	// queue (farWindow, splitAt and joinAt when 0; tests set others).
	window        int64
	splitN, joinN int
	// dead: the near heap's root is the entry of the timer popped last,
	// not yet taken out. Nearly every event arms a timer before the
	// next peek (a tick its next tick, a task's work its next piece),
	// and that arming takes the dead root's place and sifts down once,
	// instead of a removal's sift-down and an insertion's sift-up. The
	// dead entry is the least of all, so it stays at the root while other
	// entries move; anything that could carry an entry above it (a
	// re-arming, a cancel, a split, a renumbering) takes it out first.
	// Only a whole queue defers: a split one refills its near heap at
	// once.
	dead bool
}

// farWindow is the near heap's span of time: a tick's worth of events
// at HZ 1000.
const farWindow = 1e6

// A whole queue splits when it reaches splitAt timers, and a split one
// is made whole again when its near heap runs dry with fewer than
// joinAt in all.
const splitAt, joinAt = 512, 128

type entry struct {
	when int64
	key  uint64 // seq<<idBits | id: seq is unique, so key orders as seq
}

// idBits bounds the timers armed at once (16.7 million: four per thread
// of workload.MaxThreads is 4.2 million); seq has the other 40 bits,
// and the queue renumbers when they run out.
const idBits = 24

func (a *entry) less(b *entry) bool {
	return a.when < b.when || a.when == b.when && a.key < b.key
}

func (e *entry) id() int32 { return int32(e.key & (1<<idBits - 1)) }

// arm schedules t at when, replacing any earlier arming.
func (q *eventQueue) arm(t *timer, when int64) {
	if q.seq == 1<<(64-idBits)-1 {
		q.bury()
		q.renumber()
	}
	q.seq++
	wasArmed := t.armed()
	t.when, t.seq = when, q.seq
	far := q.split && when >= q.horizon
	if wasArmed {
		// A later arming number and any time: the entry may go either
		// way in its heap, or to the other one.
		q.bury()
		s := entry{when: when, key: q.seq<<idBits | uint64(t.id)}
		i := int(q.pos[t.id])
		if q.split && (far || q.inFar[t.id]) {
			q.move(t.id, i, far, s)
			return
		}
		if h := q.h; i > 0 && s.less(&h[(i-1)/arity]) {
			h.up(q.pos, i, s)
		} else {
			h.down(q.pos, i, s)
		}
		return
	}
	if n := len(q.free); n > 0 {
		t.id = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		if len(q.timers) == 1<<idBits {
			panic("sim: more than 2^24 timers pending")
		}
		t.id = int32(len(q.timers))
		q.timers = append(q.timers, nil)
		q.pos = append(q.pos, 0)
		q.inFar = append(q.inFar, false)
	}
	q.timers[t.id] = t
	s := entry{when: when, key: q.seq<<idBits | uint64(t.id)}
	if q.split {
		q.inFar[t.id] = far
		if far {
			q.far.push(q.pos, s)
			q.refill() // the near heap may have run dry before
			return
		}
	}
	if q.dead {
		// The dead root's place, with the heap's length unchanged.
		q.dead = false
		q.h.down(q.pos, 0, s)
		return
	}
	q.h = append(q.h, entry{})
	q.h.up(q.pos, len(q.h)-1, s)
	if !q.split && (len(q.h) >= splitAt || q.splitN > 0 && len(q.h) >= q.splitN) {
		q.splitHeap()
	}
}

// move re-arms a timer whose entry is at i of the far heap or is to go
// there.
func (q *eventQueue) move(id int32, i int, far bool, s entry) {
	if q.inFar[id] == far {
		q.far.fix(q.pos, i, s)
		return
	}
	if far {
		q.h.removeAt(q.pos, i)
		q.far.push(q.pos, s)
		q.refill()
	} else {
		q.far.removeAt(q.pos, i)
		q.h.push(q.pos, s)
	}
	q.inFar[id] = far
}

// splitHeap divides a whole queue at its earliest timer plus the window.
func (q *eventQueue) splitHeap() {
	q.split = true
	q.horizon = q.h[0].when + cmp.Or(q.window, farWindow)
	all := q.h
	q.h = nil
	for _, s := range all {
		far := s.when >= q.horizon
		q.inFar[s.id()] = far
		if far {
			q.far.push(q.pos, s)
		} else {
			q.h.push(q.pos, s)
		}
	}
}

// cancel disarms t. (Small, to be inlined: most calls find t unarmed.)
func (q *eventQueue) cancel(t *timer) {
	if t.armed() {
		q.disarm(t)
	}
}

func (q *eventQueue) disarm(t *timer) {
	q.bury()
	if q.split && q.inFar[t.id] {
		q.far.removeAt(q.pos, int(q.pos[t.id]))
	} else {
		q.h.removeAt(q.pos, int(q.pos[t.id]))
		q.refill()
	}
	q.release(t)
}

// release frees the number of a timer whose entry is out.
func (q *eventQueue) release(t *timer) {
	q.timers[t.id] = nil
	q.free = append(q.free, t.id)
	t.seq = 0
}

// peek returns the earliest timer without removing it, or nil. The near
// heap is empty only when the far one is (refill). (With the dead root's
// check peek is no longer inlined; that cost nothing measurable.)
func (q *eventQueue) peek() *timer {
	q.bury()
	if len(q.h) == 0 {
		return nil
	}
	return q.timers[q.h[0].id()]
}

// bury takes out a dead root.
func (q *eventQueue) bury() {
	if q.dead {
		q.dead = false
		q.h.removeAt(q.pos, 0)
	}
}

// refill gives a near heap left empty the next far timers, if any.
func (q *eventQueue) refill() {
	if len(q.h) == 0 && len(q.far) > 0 {
		q.advance()
	}
}

// advance moves the horizon past the earliest far timer, and the far
// timers before it to the near heap, which is empty; or, with few far
// timers left, makes the queue whole again.
func (q *eventQueue) advance() {
	if len(q.far) < cmp.Or(q.joinN, joinAt) {
		q.split = false
		q.h, q.far = q.far, q.h[:0]
		for i := range q.h {
			q.inFar[q.h[i].id()] = false // a heap as it was, in place
		}
		return
	}
	q.horizon = q.far[0].when + cmp.Or(q.window, farWindow)
	for len(q.far) > 0 && q.far[0].when < q.horizon {
		s := q.far[0]
		q.far.removeAt(q.pos, 0)
		q.inFar[s.id()] = false
		q.h.push(q.pos, s)
	}
}

// pop removes and returns the earliest timer; peek must have found it.
// A whole queue leaves its entry at the root, dead (see dead).
func (q *eventQueue) pop() *timer {
	q.bury()
	t := q.timers[q.h[0].id()]
	if q.split {
		q.h.removeAt(q.pos, 0)
		q.refill()
	} else {
		q.dead = true
	}
	q.release(t)
	return t
}

// heap4 is a 4-ary min-heap of entries, keeping each entry's index in
// pos (by timer number): half the depth of a binary heap, and four
// 16-byte children fill one cache line.
type heap4 []entry

const arity = 4

func (h *heap4) push(pos []int32, s entry) {
	*h = append(*h, entry{})
	h.up(pos, len(*h)-1, s)
}

// removeAt takes the entry at i out.
func (h *heap4) removeAt(pos []int32, i int) {
	n := len(*h) - 1
	last := (*h)[n]
	*h = (*h)[:n]
	if i != n {
		h.fix(pos, i, last)
	}
}

// fix puts s in the hole at i, moving it whichever way its key needs.
func (h heap4) fix(pos []int32, i int, s entry) {
	if i > 0 && s.less(&h[(i-1)/arity]) {
		h.up(pos, i, s)
	} else {
		h.down(pos, i, s)
	}
}

// up moves s from the hole at i towards the root, shifting parents down
// into the hole instead of swapping (one write per level).
func (h heap4) up(pos []int32, i int, s entry) {
	for i > 0 {
		p := (i - 1) / arity
		if !s.less(&h[p]) {
			break
		}
		h[i] = h[p]
		pos[h[i].id()] = int32(i)
		i = p
	}
	h[i] = s
	pos[s.id()] = int32(i)
}

// down moves s from the hole at i towards the leaves.
func (h heap4) down(pos []int32, i int, s entry) {
	n := len(h)
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		if c+arity <= n {
			// All four children: compared without bounds checks.
			ch := (*[arity]entry)(h[c : c+arity])
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
		pos[h[i].id()] = int32(i)
		i = m
	}
	h[i] = s
	pos[s.id()] = int32(i)
}

// renumber gives the entries the arming numbers 1, 2, … in their order,
// and each timer its entry's new number, when 2^40 armings have used up
// seq's bits: the order stays as it was.
func (q *eventQueue) renumber() {
	all := append(q.h, q.far...)
	slices.SortFunc(all, func(a, b entry) int {
		if a.less(&b) {
			return -1
		}
		if b.less(&a) {
			return 1
		}
		return 0
	})
	for i := range all {
		e := &all[i]
		seq := uint64(i + 1)
		q.timers[e.id()].seq = seq
		e.key = seq<<idBits | uint64(e.id())
	}
	q.seq = uint64(len(all))
	// A sorted array is a heap: the entries before the horizon are the
	// near heap, the rest the far one.
	k := len(all)
	if q.split {
		k, _ = slices.BinarySearchFunc(all, q.horizon, func(e entry, h int64) int { return cmp.Compare(e.when, h) })
	}
	q.h, q.far = all[:k:k], slices.Clone(all[k:])
	for i := range q.h {
		q.pos[q.h[i].id()], q.inFar[q.h[i].id()] = int32(i), false
	}
	for i := range q.far {
		q.pos[q.far[i].id()], q.inFar[q.far[i].id()] = int32(i), true
	}
	q.refill()
}
