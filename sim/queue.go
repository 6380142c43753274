package sim

import "schedlab/internal/iheap"

// timerKind says what an expiring timer means to the engine.
type timerKind uint8

const (
	tkTick     timerKind = iota + 1 // a CPU's periodic scheduler tick
	tkHRTick                        // a CPU's high-resolution slice timer
	tkWorkDone                      // the running task used up its current CPU work
	tkWake                          // a sleeping task's wakeup (sleep or rt-app timer)
	tkStart                         // an initial task's start (after its delay)
	tkPosix                         // a POSIX interval timer's expiry
)

// timer is one pending occurrence in the event queue. Owners embed their
// timers and re-arm them, so the queue never allocates per event.
type timer struct {
	when int64
	seq  uint64
	idx  int // position in the heap, −1 when not armed
	kind timerKind
	cpu  *CPU
	task *Task
	ptmr *posixTimer
	// phase distinguishes the two steps of a timer-driven wakeup: the
	// expiry itself, then the wakeup after the wakeup-path cost.
	phase uint8
}

func (t *timer) armed() bool { return t.idx >= 0 }

// eventQueue is the engine's pending timers, ordered by time, then by
// arming order, so that equal times fire in the order they were armed and
// runs are deterministic.
type eventQueue struct {
	h   iheap.Heap[*timer]
	seq uint64
}

// arm schedules t at when, moving it if it is already armed.
func (q *eventQueue) arm(t *timer, when int64) {
	if t.armed() {
		q.h.Remove(&t.idx)
	}
	q.seq++
	t.when, t.seq = when, q.seq
	q.h.Push(t, &t.idx, uint64(when), t.seq)
}

func (q *eventQueue) cancel(t *timer) {
	if t.armed() {
		q.h.Remove(&t.idx)
	}
}

// peek returns the earliest timer without removing it, or nil.
func (q *eventQueue) peek() *timer {
	t, _ := q.h.Min()
	return t
}

func (q *eventQueue) pop() *timer {
	t, _ := q.h.Min()
	q.h.Remove(&t.idx)
	return t
}
