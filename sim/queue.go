package sim

import (
	"cmp"
	"slices"

	"schedlab/internal/cpumask"
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
	cpu  *CPU
	task *Task
	ptmr *posixTimer
	// id is the timer's number in the queue while it is armed.
	id   int32
	kind timerKind
	// phase distinguishes the two steps of a timer-driven wakeup: the
	// expiry itself, then the wakeup after the wakeup-path cost.
	phase uint8
}

func (t *timer) armed() bool { return t.seq != 0 }

// eventQueue is the engine's pending timers, ordered by time, then by
// arming order, so that equal times fire in the order they were armed and
// runs are deterministic. Cancelling takes the timer's entry out and
// re-arming moves it, found by its position in pos, so the queue holds
// the armed timers and nothing else (lazily cancelled entries, left until
// their time, made the busy workload's heap four times its 16 timers).
//
// The entries hold no pointers: a 16-byte {when, seq·2^24 + id} naming
// the timer by its number in timers. Moving one is a plain copy and a
// write to the dense pos array, never into the timers, which sit in
// thousands of task structs, and with no write barrier while the garbage
// collector runs; the collector never scans the entries.
//
// Past splitAt timers the queue splits: those due before horizon are in
// the near heap h, the others far. With thousands of tasks asleep, their
// wakeups wait far, and the ticks, work and reschedule timers that make
// most events come and go through a near heap of a few entries instead
// of through all of them (a pop of 10,000 entries was a quarter of the
// run's time). The far timers wait unordered in a ring of buckets, one
// per 2^bucketBits ns from the horizon on (ring), and those beyond the
// ring's span in a heap (late). When the near heap runs dry, the next
// bucket that holds any timer moves over whole and the horizon to its
// end; the near heap orders them. A far heap did the same, but every
// wakeup's way out of it was a sift-down through ten thousand entries,
// a cache miss a level (a third of the misses of 10,000 tasks on one
// CPU); a bucket is an append and, when its time comes, a sequential
// read. The order is (when, arming) in the near heap and every near
// entry is due before every far one, so the earliest timer is the near
// heap's and the order is the whole heap's. A queue of a few dozen
// timers (the seed loads) stays whole: the split's own work cost it 3 %
// of its instructions.
type eventQueue struct {
	h      heap4
	timers []*timer // by id; nil: free
	pos    []int32  // by id: the index of its entry in h, its bucket or late
	where  []where  // by id, while split: which of them holds its entry
	free   []int32
	seq    uint64
	// split: the far structures are in use, and horizon (a bucket's
	// start) divides near from far: h holds the entries due before it.
	split   bool
	horizon int64
	// ring[b & (len(ring)−1)] holds the far entries of bucket b (due in
	// [b, b+1)·2^bucketBits), for the buckets from the horizon's on,
	// len(ring) of them; full marks the slots that hold any; nring
	// counts their entries. late holds the entries past the ring.
	ring  []heap4 // unordered; heap4 only for its type
	full  cpumask.Mask
	nring int
	late  heap4
	// spare holds the arrays of emptied buckets for the next bucket to
	// fill: a bucket's array would otherwise sit unused for the ring's
	// turn (17 s), and every bucket would grow its own (tens of
	// thousands of allocations before 10,000 tasks' run settles).
	spare []heap4
	// bucketBits and ringBits size the buckets and the ring (defaults
	// when ringBits is 0; tests set others), and splitN and joinN the
	// sizes that split and join the queue (splitAt and joinAt when 0).
	bucketBits, ringBits int
	splitN, joinN        int
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

// where says which part of a split queue holds a timer's entry.
type where uint8

const (
	inNear where = iota
	inRing
	inLate
)

// A bucket is 2^bucketBits ns, about a tick at HZ 1000 (the far heap's
// window was 1 ms), and the ring's 2^ringBits buckets span 17 s: a
// sleep longer than that waits in the late heap until the ring reaches
// it.
const bucketBits, ringBits = 20, 14

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
	wasArmed, old := t.armed(), t.when
	t.when, t.seq = when, q.seq
	far := q.split && when >= q.horizon
	if wasArmed {
		// A later arming number and any time: the entry may go either
		// way in its heap, or to another part.
		q.bury()
		s := entry{when: when, key: q.seq<<idBits | uint64(t.id)}
		i := int(q.pos[t.id])
		if q.split && (far || q.where[t.id] != inNear) {
			q.move(t.id, i, old, far, s)
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
		q.where = append(q.where, inNear)
	}
	q.timers[t.id] = t
	s := entry{when: when, key: q.seq<<idBits | uint64(t.id)}
	if q.split {
		if far {
			q.place(s)
			q.refill() // the near heap may have run dry before
			return
		}
		q.where[t.id] = inNear
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

// place files a far entry (due at or after the horizon) in its bucket,
// or in late when the bucket is past the ring.
func (q *eventQueue) place(s entry) {
	id := s.id()
	b := s.when >> q.bucketBits
	if b-q.horizon>>q.bucketBits >= int64(len(q.ring)) {
		q.where[id] = inLate
		q.late.push(q.pos, s)
		return
	}
	k := int(b) & (len(q.ring) - 1)
	if q.ring[k] == nil {
		if n := len(q.spare); n > 0 {
			q.ring[k], q.spare = q.spare[n-1], q.spare[:n-1]
		} else {
			q.ring[k] = make(heap4, 0, 8) // most hold a few
		}
		q.full.Set(k, true)
	}
	q.where[id] = inRing
	q.pos[id] = int32(len(q.ring[k]))
	q.ring[k] = append(q.ring[k], s)
	q.nring++
}

// unplace takes out the far entry of timer id, at i of its bucket or of
// late, due at when.
func (q *eventQueue) unplace(id int32, i int, when int64) {
	if q.where[id] == inLate {
		q.late.removeAt(q.pos, i)
		return
	}
	k := int(when>>q.bucketBits) & (len(q.ring) - 1)
	r := q.ring[k]
	n := len(r) - 1
	if i != n {
		r[i] = r[n]
		q.pos[r[i].id()] = int32(i)
	}
	q.ring[k] = r[:n]
	q.nring--
	if n == 0 {
		q.emptied(k)
	}
}

// emptied gives bucket k's array to the spares.
func (q *eventQueue) emptied(k int) {
	q.spare = append(q.spare, q.ring[k][:0])
	q.ring[k] = nil
	q.full.Set(k, false)
}

// move re-arms a timer whose entry, due at old, is at i of a far part
// or is to go to one.
func (q *eventQueue) move(id int32, i int, old int64, far bool, s entry) {
	if q.where[id] == inNear {
		q.h.removeAt(q.pos, i)
		q.place(s)
		q.refill()
		return
	}
	q.unplace(id, i, old)
	if far {
		q.place(s)
		return
	}
	q.where[id] = inNear
	q.h.push(q.pos, s)
}

// farLen is the number of far timers.
func (q *eventQueue) farLen() int { return q.nring + len(q.late) }

// splitHeap divides a whole queue at the end of its earliest timer's
// bucket.
func (q *eventQueue) splitHeap() {
	if q.ringBits == 0 {
		q.bucketBits, q.ringBits = bucketBits, ringBits
	}
	if q.ring == nil {
		q.ring = make([]heap4, 1<<q.ringBits)
		q.full = cpumask.New(len(q.ring))
	}
	q.split = true
	q.horizon = (q.h[0].when>>q.bucketBits + 1) << q.bucketBits
	all := q.h
	q.h = nil
	for _, s := range all {
		if s.when >= q.horizon {
			q.place(s)
		} else {
			q.where[s.id()] = inNear
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
	if q.split && q.where[t.id] != inNear {
		q.unplace(t.id, int(q.pos[t.id]), t.when)
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
// heap is empty only when the far parts are (refill). (With the dead
// root's check peek is no longer inlined; that cost nothing measurable.)
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
	if len(q.h) == 0 && q.split && q.farLen() > 0 {
		q.advance()
	}
}

// advance moves the next bucket that holds any timer to the near heap,
// which is empty, and the horizon to that bucket's end; or, with few far
// timers left, makes the queue whole again.
func (q *eventQueue) advance() {
	if q.farLen() < cmp.Or(q.joinN, joinAt) {
		q.split = false
		for _, s := range q.gather() {
			q.where[s.id()] = inNear
			q.h.push(q.pos, s)
		}
		return
	}
	n := len(q.ring)
	if q.nring == 0 {
		// Only late timers: the ring starts at the earliest one's
		// bucket.
		q.horizon = q.late[0].when >> q.bucketBits << q.bucketBits
		q.pull()
	}
	base := q.horizon >> q.bucketBits
	k0 := int(base) & (n - 1)
	k := q.full.Next(k0, n)
	if k < 0 {
		k = q.full.Next(0, k0)
	}
	b := base + int64((k-k0)&(n-1))
	for _, s := range q.ring[k] {
		q.where[s.id()] = inNear
		q.h.push(q.pos, s)
	}
	q.nring -= len(q.ring[k])
	q.emptied(k)
	q.horizon = (b + 1) << q.bucketBits
	q.pull()
}

// pull moves the late entries that the ring now spans into their
// buckets.
func (q *eventQueue) pull() {
	end := q.horizon>>q.bucketBits + int64(len(q.ring))
	for len(q.late) > 0 && q.late[0].when>>q.bucketBits < end {
		s := q.late[0]
		q.late.removeAt(q.pos, 0)
		q.place(s)
	}
}

// gather takes every far entry out and returns them (in no order).
func (q *eventQueue) gather() []entry {
	all := q.late
	q.late = nil
	for k := q.full.Next(0, len(q.ring)); k >= 0; k = q.full.Next(k+1, len(q.ring)) {
		all = append(all, q.ring[k]...)
		q.emptied(k)
	}
	q.nring = 0
	return all
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
	all := append(q.h, q.gather()...)
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
	// near heap, the rest go back to the far parts.
	k := len(all)
	if q.split {
		k, _ = slices.BinarySearchFunc(all, q.horizon, func(e entry, h int64) int { return cmp.Compare(e.when, h) })
	}
	q.h = all[:k:k]
	for i := range q.h {
		q.pos[q.h[i].id()] = int32(i)
		if q.split {
			q.where[q.h[i].id()] = inNear
		}
	}
	for _, s := range all[k:] {
		q.place(s)
	}
	q.refill()
}
