package sim

import "slices"

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
)

// timer is one pending occurrence in the event queue. Owners embed their
// timers and re-arm them, so the queue never allocates per event.
type timer struct {
	when int64
	seq  uint64 // arming number of the live heap entry; 0 when not armed
	kind timerKind
	cpu  *CPU
	task *Task
	ptmr *posixTimer
	// phase distinguishes the two steps of a timer-driven wakeup: the
	// expiry itself, then the wakeup after the wakeup-path cost.
	phase uint8
	// id is the timer's number in the queue while refs, its entries in
	// the heap (the live one and stale ones), is above 0.
	id   int32
	refs int32
}

func (t *timer) armed() bool { return t.seq != 0 }

// eventQueue is the engine's pending timers, ordered by time, then by
// arming order, so that equal times fire in the order they were armed and
// runs are deterministic. Cancelling (or re-arming) is lazy: the timer
// forgets its entry's arming number, and the stale entry is dropped when it
// reaches the top. Heap moves thus never write into the timers, which sit
// in thousands of task structs, so a big queue costs few cache misses.
//
// The heap's entries hold no pointers: a 16-byte {when, seq·2^24 + id}
// naming the timer by its number in timers. Moving one is a plain copy,
// with no write barrier while the garbage collector runs, and the
// collector never scans the heap. A timer keeps its number while it has
// entries, so the numbers in use are at most the timers pending.
type eventQueue struct {
	h      []entry
	timers []*timer // by id; nil: free
	free   []int32
	seq    uint64
}

type entry struct {
	when int64
	key  uint64 // seq<<idBits | id: seq is unique, so key orders as seq
}

// idBits bounds the timers with entries at once (16.7 million: four
// per thread of workload.MaxThreads is under a million); seq has the other
// 40 bits, and the queue renumbers when they run out.
const idBits = 24

func (a *entry) less(b *entry) bool {
	return a.when < b.when || a.when == b.when && a.key < b.key
}

func (q *eventQueue) timerOf(e *entry) *timer { return q.timers[e.key&(1<<idBits-1)] }

// arm schedules t at when, replacing any earlier arming.
func (q *eventQueue) arm(t *timer, when int64) {
	if q.seq == 1<<(64-idBits)-1 {
		q.renumber()
	}
	q.seq++
	t.when, t.seq = when, q.seq
	if t.refs == 0 {
		if n := len(q.free); n > 0 {
			t.id = q.free[n-1]
			q.free = q.free[:n-1]
		} else {
			if len(q.timers) == 1<<idBits {
				panic("sim: more than 2^24 timers pending")
			}
			t.id = int32(len(q.timers))
			q.timers = append(q.timers, nil)
		}
		q.timers[t.id] = t
	}
	t.refs++
	q.h = append(q.h, entry{})
	q.up(len(q.h)-1, entry{when: when, key: q.seq<<idBits | uint64(t.id)})
}

func (q *eventQueue) cancel(t *timer) { t.seq = 0 }

// peek returns the earliest live timer without removing it, or nil.
func (q *eventQueue) peek() *timer {
	for len(q.h) > 0 {
		t := q.timerOf(&q.h[0])
		if t.seq == q.h[0].key>>idBits {
			return t
		}
		q.remove() // stale: cancelled or re-armed since
	}
	return nil
}

// pop removes and returns the earliest live timer; peek must have found it.
func (q *eventQueue) pop() *timer {
	t := q.remove()
	t.seq = 0
	return t
}

// remove takes the top entry out and returns its timer, whose number is
// freed with its last entry.
func (q *eventQueue) remove() *timer {
	t := q.timerOf(&q.h[0])
	n := len(q.h) - 1
	last := q.h[n]
	q.h = q.h[:n]
	if n > 0 {
		q.down(0, last)
	}
	if t.refs--; t.refs == 0 {
		q.timers[t.id] = nil
		q.free = append(q.free, t.id)
	}
	return t
}

// The heap is 4-ary: half the depth of a binary heap, and four 16-byte
// children fill one cache line.
const arity = 4

// up moves s from the hole at i towards the root, shifting parents down
// into the hole instead of swapping (one write per level).
func (q *eventQueue) up(i int, s entry) {
	for i > 0 {
		p := (i - 1) / arity
		if !s.less(&q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = s
}

// down moves s from the hole at i towards the leaves.
func (q *eventQueue) down(i int, s entry) {
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
		i = m
	}
	q.h[i] = s
}

// renumber gives the entries the arming numbers 1, 2, … in their order,
// and each live timer its entry's new number, when 2^40 armings have used
// up seq's bits: the order, and which entries are stale, stay as they were.
func (q *eventQueue) renumber() {
	slices.SortFunc(q.h, func(a, b entry) int {
		if a.less(&b) {
			return -1
		}
		if b.less(&a) {
			return 1
		}
		return 0
	})
	for i := range q.h { // a sorted array is a heap
		e := &q.h[i]
		t, seq := q.timerOf(e), uint64(i+1)
		if t.seq == e.key>>idBits {
			t.seq = seq
		}
		e.key = seq<<idBits | e.key&(1<<idBits-1)
	}
	q.seq = uint64(len(q.h))
}
