package sim

import (
	"schedlab/sched"
	"schedlab/workload"
)

// Two steps of a timer-driven wakeup, carried in timer.phase.
const (
	wakeExpiry   uint8 = iota // the timer expires (marks are written)
	wakeNow                   // the wakeup-path cost has passed: wake the task
	wakeSleepEnd              // a sleep's hrtimer expires (only with cost_idle_exit_ns)
)

// timerDelay is the delay from a timer's expiry to its wakee being queued:
// the wakeup path, the virtual machine's late interrupt, and, when the
// CPU the timer fires on (the wakee's, where it went to sleep) is idle,
// that CPU's exit from idle.
func (e *Engine) timerDelay(t *Task) int64 {
	d := e.p.timerWakeDelay() + e.noise(e.p.NoiseTimer)
	if e.p.IdleExit > 0 && e.cpus[t.st.CPU].curr == nil {
		d += e.p.IdleExit
	}
	return d
}

// rtTimerState is an rt-app timer resource: the next expiry on its grid.
type rtTimerState struct {
	id      int32
	started bool
	next    int64
	seq     int64
}

// posixTimer is a POSIX interval timer (timer_create/timer_settime). Unlike
// an rt-app timer it keeps firing whether or not a thread waits for it; its
// signal is queued at most once, and further expiries while it is pending
// are overruns: the "missed timer events" of wakeup-latency.c.
type posixTimer struct {
	id      int32
	res     *workload.TimerRes
	period  workload.Duration // drawn anew for each expiry if random
	t       timer
	seq     int64
	pending bool
	pendSeq int64
	waiter  *Task
	owner   *Task // the thread that armed it (the only user if per-thread)
}

func (e *Engine) newTimerID() int32 {
	e.timerID++
	return e.timerID
}

// timerEvent runs a "timer" event for t.
func (e *Engine) timerEvent(t *Task, ev *workload.Event) {
	res := e.spec.Timers[ev.Timer]
	if res.Notify != "" {
		e.posixWait(t, ev, res)
		return
	}
	st := e.rtTimer(t, ev.Timer, res)
	// rt-app: the grid starts at the thread's start and advances one period
	// per use; a thread that is already late does not sleep, and in
	// relative mode the grid restarts from now.
	if !st.started {
		st.started, st.next = true, t.first
	}
	period := e.period(&ev.PeriodDur)
	st.next += period
	st.seq++
	m := mark{timer: st.id, seq: st.seq, set: true}
	t.logTimer(period, st.next, e.now < st.next)
	if e.now < st.next {
		e.block(t)
		t.pendingWake = m
		t.wakeT.phase = wakeExpiry
		e.q.arm(&t.wakeT, st.next)
		return
	}
	e.emitMark(t, markExpiry, m, st.next)
	e.emitMark(t, markMissed, m, 0)
	if !res.Absolute {
		st.next = e.now
	}
	t.work, t.action = 0, actStep
}

// rtTimer returns the state of timer resource i as t sees it.
func (e *Engine) rtTimer(t *Task, i int, res *workload.TimerRes) *rtTimerState {
	if res.PerThread {
		// A thread's own timers are the few its program names (one,
		// nearly always): a scan finds them sooner than a map lookup.
		for k := range t.own {
			if t.own[k].res == i {
				return &t.own[k].st
			}
		}
		t.own = append(t.own, ownTimer{res: i, st: rtTimerState{id: e.newTimerID()}})
		return &t.own[len(t.own)-1].st
	}
	if e.rtState[i] == nil {
		e.rtState[i] = &rtTimerState{id: e.newTimerID()}
	}
	return e.rtState[i]
}

// ownTimer is a thread's private rt-app timer: its resource's index in
// Spec.Timers and its state.
type ownTimer struct {
	res int
	st  rtTimerState
}

// timerWake handles t's wake timer: an rt-app timer's expiry (which writes
// the expiry mark, then wakes t after the wakeup-path cost), or the end of a
// sleep.
func (e *Engine) timerWake(t *Task) {
	if t.wakeT.phase == wakeSleepEnd {
		t.wakeT.phase = wakeNow
		e.q.arm(&t.wakeT, e.now+e.timerDelay(t))
		return
	}
	if t.wakeT.phase == wakeExpiry {
		e.emitMark(t, markExpiry, t.pendingWake, e.now)
		t.resumeMark, t.pendingWake = t.pendingWake, mark{}
		if d := e.timerDelay(t); d > 0 {
			t.wakeT.phase = wakeNow
			e.q.arm(&t.wakeT, e.now+d)
			return
		}
	}
	src := sched.WakeTimer
	if t.inputWake {
		src, t.inputWake = sched.WakeInput, false
	}
	e.wakeUp(t, src, nil)
}

// posixWait is a thread waiting for a POSIX timer's signal (sigwait): it
// takes a pending signal at once, or sleeps until the next expiry.
func (e *Engine) posixWait(t *Task, ev *workload.Event, res *workload.TimerRes) {
	pt := e.posixTimerFor(t, ev, res)
	if pt.pending {
		e.posixConsume(pt, t)
		t.work, t.action = 0, actStep
		return
	}
	pt.waiter = t
	t.pins++
	e.block(t)
}

// posixTimerFor returns the POSIX timer of resource ev.Timer, arming it on
// first use with its first expiry one period after the thread's start.
func (e *Engine) posixTimerFor(t *Task, ev *workload.Event, res *workload.TimerRes) *posixTimer {
	for _, pt := range e.posix {
		if pt.res == res && (!res.PerThread || pt.owner == t) {
			return pt
		}
	}
	pt := &posixTimer{id: e.newTimerID(), res: res, period: ev.PeriodDur, owner: t}
	pt.t = posixTimerOf(pt)
	first := t.first + e.period(&pt.period)
	if p := pt.period.Fixed; pt.period.Dist == workload.Fixed {
		// The expiries the thread has already passed, in one step: a
		// thread that first waits long after its start (a sleep of days
		// before a 1 µs timer) would otherwise count them one by one.
		if first <= e.now {
			first += ((e.now-first)/p + 1) * p
		}
	} else {
		for first <= e.now {
			first += e.period(&pt.period)
		}
	}
	e.q.arm(&pt.t, first)
	t.pins++ // for good: e.posix keeps every timer
	e.posix = append(e.posix, pt)
	return pt
}

// posixConsume delivers the pending signal to t. With SIGEV_THREAD the
// callback runs in the thread t forks next; an input event is a token t
// carries until latency_end; otherwise the callback is t itself.
func (e *Engine) posixConsume(pt *posixTimer, t *Task) {
	pt.pending = false
	m := mark{timer: pt.id, seq: pt.pendSeq, set: true}
	switch pt.res.Notify {
	case "thread":
		t.forkMark = m
	case "input":
		t.token = m
	default:
		t.resumeMark = m
	}
}

// posixExpire is one expiry of a POSIX timer.
func (e *Engine) posixExpire(pt *posixTimer) {
	pt.seq++
	m := mark{timer: pt.id, seq: pt.seq, set: true}
	e.emitMark(pt.owner, markExpiry, m, e.now)
	if pt.pending {
		e.emitMark(pt.owner, markMissed, m, 0)
	} else {
		pt.pending, pt.pendSeq = true, pt.seq
		if w := pt.waiter; w != nil {
			pt.waiter = nil
			w.pins--
			e.posixConsume(pt, w)
			w.wakeT.phase = wakeNow
			w.inputWake = pt.res.Notify == "input"
			e.q.arm(&w.wakeT, e.now+e.timerDelay(w))
		}
	}
	e.q.arm(&pt.t, e.now+e.period(&pt.period))
}

// minRandomPeriod is the shortest period a random timer period is drawn
// as, so that a draw near 0 cannot stall the clock.
const minRandomPeriod = 1000

// period returns a timer period: the fixed one, or a fresh draw. It
// tests for a fixed one itself and calls drawRandom, so that it inlines.
func (e *Engine) period(d *workload.Duration) int64 {
	if d.Dist == workload.Fixed {
		return d.Fixed
	}
	return max(e.drawRandom(d), minRandomPeriod)
}
