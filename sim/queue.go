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
}

func (t *timer) armed() bool { return t.seq != 0 }

// eventQueue is the engine's pending timers, ordered by time, then by
// arming order, so that equal times fire in the order they were armed and
// runs are deterministic. Cancelling (or re-arming) is lazy: the timer
// forgets its entry's arming number, and the stale entry is dropped when it
// reaches the top. Heap moves thus never write into the timers, which sit
// in thousands of task structs, so a big queue costs few cache misses.
type eventQueue struct {
	h   iheap.Heap[*timer]
	seq uint64
}

// arm schedules t at when, replacing any earlier arming.
func (q *eventQueue) arm(t *timer, when int64) {
	q.seq++
	t.when, t.seq = when, q.seq
	q.h.Push(t, nil, uint64(when), t.seq)
}

func (q *eventQueue) cancel(t *timer) { t.seq = 0 }

// peek returns the earliest live timer without removing it, or nil.
func (q *eventQueue) peek() *timer {
	for {
		t, _, seq, ok := q.h.MinKey()
		if !ok {
			return nil
		}
		if t.seq == seq {
			return t
		}
		q.h.Pop() // stale: cancelled or re-armed since
	}
}

// pop removes and returns the earliest live timer; peek must have found it.
func (q *eventQueue) pop() *timer {
	t, _, _ := q.h.Pop()
	t.seq = 0
	return t
}
