package sim

import "schedlab/trace"

// Mark kinds the engine writes, mapped to trace marks.
const (
	markExpiry   = trace.TimerExpiry
	markCallback = trace.CallbackStart
	markMissed   = trace.TimerMissed
)

// emit hands e.ev to the sink. Events are built in e.ev so that passing a
// pointer to an interface does not allocate.
//
// The hot writers below zero e.ev in place and then set its fields: a
// composite literal assigned to e.ev was built in a temporary from a
// template and then copied, the whole event twice (and, while the collector
// runs, through its bulk write barrier).
func (e *Engine) emit() {
	e.traced++
	if e.sink != nil {
		e.sink.Event(&e.ev)
	}
}

// untraced counts an event that no sink will read and says so, so that a
// writer need not build it: a run without a sink (the engine's benchmarks)
// built 1.2 trace events per event it dispatched, about 5 % of its
// instructions.
func (e *Engine) untraced() bool {
	if e.sink != nil {
		return false
	}
	e.traced++
	return true
}

func (e *Engine) emitSwitch(c *CPU, prev, next *Task) {
	if e.untraced() {
		return
	}
	ev := &e.ev
	*ev = trace.Event{}
	ev.TS, ev.CPU, ev.Kind, ev.Comm, ev.Prio, ev.NextComm, ev.NextPrio = e.now, int32(c.id), trace.Switch, "swapper", 120, "swapper", 120
	if prev != nil {
		e.ev.PID, e.ev.Comm, e.ev.Prio = int32(prev.st.PID), prev.st.Comm, int32(prev.st.Prio())
		switch prev.state {
		case stRunnable:
			e.ev.PrevState = trace.Running
		case stDead:
			e.ev.PrevState = trace.Dead
		default:
			e.ev.PrevState = trace.Sleeping
		}
	}
	if next != nil {
		e.ev.NextPID, e.ev.NextComm, e.ev.NextPrio = int32(next.st.PID), next.st.Comm, int32(next.st.Prio())
	}
	e.emit()
}

func (e *Engine) emitWake(k trace.Kind, c *CPU, t *Task) {
	if e.untraced() {
		return
	}
	ev := &e.ev
	*ev = trace.Event{}
	ev.TS, ev.CPU, ev.Kind, ev.PID, ev.Comm = e.now, int32(c.id), k, int32(t.st.PID), t.st.Comm
	ev.Prio, ev.TargetCPU = int32(t.st.Prio()), int32(t.st.CPU)
	e.emit()
}

// emitFork writes sched_process_fork; a nil parent is rt-app's main thread.
func (e *Engine) emitFork(c *CPU, parent, child *Task) {
	if e.untraced() {
		return
	}
	e.ev = trace.Event{TS: e.now, CPU: int32(c.id), Kind: trace.Fork, PID: pidBase, Comm: "rt-app", TGID: pidBase,
		ChildPID: int32(child.st.PID), ChildComm: child.st.Comm, ChildTGID: int32(child.st.TGID)}
	if parent != nil {
		e.ev.PID, e.ev.Comm, e.ev.TGID = int32(parent.st.PID), parent.st.Comm, int32(parent.st.TGID)
	}
	e.emit()
}

// emitMark writes an application mark about t's timer (nil: the
// interrupt's). A callback's start is written by t itself, running; an
// expiry or a missed expiry happens in the timer interrupt on t's CPU, so
// the mark names the task running there (the idle task when none), as a
// trace_marker write names the current task.
func (e *Engine) emitMark(t *Task, k trace.MarkKind, m mark, expected int64) {
	if e.untraced() {
		return
	}
	ev := &e.ev
	*ev = trace.Event{}
	ev.TS, ev.Kind, ev.Mark, ev.Timer, ev.Seq, ev.Expected = e.now, trace.Mark, k, m.timer, m.seq, expected
	switch {
	case t == nil:
	case k == markCallback:
		e.ev.CPU, e.ev.PID, e.ev.Comm = int32(t.st.CPU), int32(t.st.PID), t.st.Comm
	default:
		e.ev.CPU, e.ev.Comm = int32(t.st.CPU), "swapper"
		if cur := e.cpus[t.st.CPU].curr; cur != nil {
			e.ev.PID, e.ev.Comm = int32(cur.st.PID), cur.st.Comm
		}
	}
	e.emit()
}
