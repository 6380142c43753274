package sim

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

// eventQueue is a binary min-heap of timers ordered by (when, seq): equal
// times fire in the order they were armed, so runs are deterministic.
type eventQueue struct {
	h   []*timer
	seq uint64
}

func timerLess(a, b *timer) bool {
	if a.when != b.when {
		return a.when < b.when
	}
	return a.seq < b.seq
}

// arm schedules t at when, moving it if it is already armed.
func (q *eventQueue) arm(t *timer, when int64) {
	if t.armed() {
		q.cancel(t)
	}
	q.seq++
	t.when, t.seq = when, q.seq
	t.idx = len(q.h)
	q.h = append(q.h, t)
	q.up(t.idx)
}

func (q *eventQueue) cancel(t *timer) {
	if !t.armed() {
		return
	}
	i, n := t.idx, len(q.h)-1
	if i != n {
		q.swap(i, n)
	}
	q.h[n] = nil
	q.h = q.h[:n]
	t.idx = -1
	if i != n && !q.down(i) {
		q.up(i)
	}
}

// peek returns the earliest timer without removing it, or nil.
func (q *eventQueue) peek() *timer {
	if len(q.h) == 0 {
		return nil
	}
	return q.h[0]
}

func (q *eventQueue) pop() *timer {
	t := q.h[0]
	q.cancel(t)
	return t
}

func (q *eventQueue) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	q.h[i].idx = i
	q.h[j].idx = j
}

func (q *eventQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !timerLess(q.h[i], q.h[p]) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *eventQueue) down(i int) bool {
	start, n := i, len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && timerLess(q.h[r], q.h[l]) {
			m = r
		}
		if !timerLess(q.h[m], q.h[i]) {
			break
		}
		q.swap(i, m)
		i = m
	}
	return i > start
}
