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
// re-arming moves it, found by its position in pos, so the heap holds the
// armed timers and nothing else (lazily cancelled entries, left until
// their time, made the busy workload's heap four times its 16 timers).
//
// The heap's entries hold no pointers: a 16-byte {when, seq·2^24 + id}
// naming the timer by its number in timers. Moving one is a plain copy
// and a write to the dense pos array, never into the timers, which sit
// in thousands of task structs, and with no write barrier while the
// garbage collector runs; the collector never scans the heap.
type eventQueue struct {
	h      []entry
	timers []*timer // by id; nil: free
	pos    []int32  // by id: the index of its entry in h
	free   []int32
	seq    uint64
}

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
		q.renumber()
	}
	q.seq++
	wasArmed := t.armed()
	t.when, t.seq = when, q.seq
	if wasArmed {
		// A later arming number and any time: the entry may go either way.
		i := int(q.pos[t.id])
		s := entry{when: when, key: q.seq<<idBits | uint64(t.id)}
		if i > 0 && s.less(&q.h[(i-1)/arity]) {
			q.up(i, s)
		} else {
			q.down(i, s)
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
	}
	q.timers[t.id] = t
	q.h = append(q.h, entry{})
	q.up(len(q.h)-1, entry{when: when, key: q.seq<<idBits | uint64(t.id)})
}

// cancel disarms t.
func (q *eventQueue) cancel(t *timer) {
	if t.armed() {
		q.removeAt(int(q.pos[t.id]))
		t.seq = 0
	}
}

// peek returns the earliest timer without removing it, or nil.
func (q *eventQueue) peek() *timer {
	if len(q.h) == 0 {
		return nil
	}
	return q.timers[q.h[0].id()]
}

// pop removes and returns the earliest timer; peek must have found it.
func (q *eventQueue) pop() *timer {
	t := q.timers[q.h[0].id()]
	q.removeAt(0)
	t.seq = 0
	return t
}

// removeAt takes the entry at i out and frees its timer's number.
func (q *eventQueue) removeAt(i int) {
	id := q.h[i].id()
	q.timers[id] = nil
	q.free = append(q.free, id)
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
		q.pos[q.h[i].id()] = int32(i)
		i = p
	}
	q.h[i] = s
	q.pos[s.id()] = int32(i)
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
		q.pos[q.h[i].id()] = int32(i)
		i = m
	}
	q.h[i] = s
	q.pos[s.id()] = int32(i)
}

// renumber gives the entries the arming numbers 1, 2, … in their order,
// and each timer its entry's new number, when 2^40 armings have used up
// seq's bits: the order stays as it was.
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
		seq := uint64(i + 1)
		q.timers[e.id()].seq = seq
		q.pos[e.id()] = int32(i)
		e.key = seq<<idBits | uint64(e.id())
	}
	q.seq = uint64(len(q.h))
}
