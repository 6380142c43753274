package sim

import "schedlab/trace"

// Mark kinds the engine writes, mapped to trace marks.
const (
	markExpiry   = trace.TimerExpiry
	markCallback = trace.CallbackStart
	markMissed   = trace.TimerMissed
)

// emit hands e.ev to the sink, for the events the FastSink methods do not
// take (Begin, Migrate). Events are built in e.ev so that passing a
// pointer to an interface does not allocate.
func (e *Engine) emit() {
	e.traced++
	if e.sink != nil {
		e.sink.Event(&e.ev)
	}
}

// untraced counts an event and says whether no sink will read it, so that
// a writer need not gather its fields: a run without a sink (the engine's
// benchmarks) built 1.2 trace events per event it dispatched, about 5 % of
// its instructions. Otherwise the writer hands the fields to e.fast, the
// sink's FastSink (trace.AsFast): the analyzer takes them as arguments,
// any other sink gets an Event built from them.
func (e *Engine) untraced() bool {
	e.traced++
	return e.fast == nil
}

// thread is what a tracepoint says of t: the idle task's for nil.
func thread(t *Task) (pid int32, comm string, prio int32) {
	if t == nil {
		return 0, "swapper", 120
	}
	return int32(t.st.PID), t.st.Comm, int32(t.st.Prio())
}

func (e *Engine) emitSwitch(c *CPU, prev, next *Task) {
	if e.untraced() {
		return
	}
	pid, comm, prio := thread(prev)
	state := trace.Running
	if prev != nil {
		switch prev.state {
		case stRunnable:
		case stDead:
			state = trace.Dead
		default:
			state = trace.Sleeping
		}
	}
	npid, ncomm, nprio := thread(next)
	e.fast.Switch(e.now, int32(c.id), pid, comm, prio, state, npid, ncomm, nprio)
}

func (e *Engine) emitWake(k trace.Kind, c *CPU, t *Task) {
	if e.untraced() {
		return
	}
	e.fast.Wake(k, e.now, int32(c.id), int32(t.st.PID), t.st.Comm, int32(t.st.Prio()), int32(t.st.CPU))
}

// emitExit writes sched_process_exit of t, on c.
func (e *Engine) emitExit(c *CPU, t *Task) {
	if e.untraced() {
		return
	}
	e.fast.Exit(e.now, int32(c.id), int32(t.st.PID), t.st.Comm, int32(t.st.Prio()))
}

// emitFork writes sched_process_fork; a nil parent is rt-app's main thread.
func (e *Engine) emitFork(c *CPU, parent, child *Task) {
	if e.untraced() {
		return
	}
	pid, tgid, comm := int32(pidBase), int32(pidBase), "rt-app"
	if parent != nil {
		pid, tgid, comm = int32(parent.st.PID), int32(parent.st.TGID), parent.st.Comm
	}
	e.fast.Fork(e.now, int32(c.id), pid, tgid, comm, int32(child.st.PID), int32(child.st.TGID), child.st.Comm)
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
	var cpu, pid int32
	var comm string
	switch {
	case t == nil:
	case k == markCallback:
		cpu, pid, comm = int32(t.st.CPU), int32(t.st.PID), t.st.Comm
	default:
		cpu, comm = int32(t.st.CPU), "swapper"
		if cur := e.cpus[t.st.CPU].curr; cur != nil {
			pid, comm = int32(cur.st.PID), cur.st.Comm
		}
	}
	e.fast.Mark(e.now, cpu, pid, comm, k, m.timer, m.seq, expected)
}
