package trace

// FastSink is a Sink that also takes the kinds of event a simulation
// emits most (switches, wakeups, forks, exits, migrations and marks) as
// arguments, so that a producer need not build a 144-byte Event for each.
// A call of one of its methods stands for a call of Event with the Event
// of that Kind whose fields of the same names are the arguments and whose
// other fields are zero (no TGID on a switch, a wakeup, an exit or a
// migration, no Prio on a fork or a mark, no Period on a mark), and a
// FastSink must treat the two alike: its Event may decode those kinds and
// call the methods, which keeps one copy of its logic. A producer looks
// for the interface once (AsFast), not per event; an event with any other
// field set goes to Event.
//
// The simulator calls these methods for every such event when its sink
// implements them (the analyzer does); Tee, the trace writers and the
// filters take Event only, so a run that writes its trace builds the
// events as before.
type FastSink interface {
	Sink
	// Switch is a sched_switch: pid leaves cpu in state, next takes it.
	Switch(ts int64, cpu, pid int32, comm string, prio int32, state TaskState, next int32, nextComm string, nextPrio int32)
	// Wake is a Waking, Wakeup or WakeupNew (k) of pid, queued on target.
	Wake(k Kind, ts int64, cpu, pid int32, comm string, prio, target int32)
	// Fork is a sched_process_fork: pid (of thread group tgid) created child.
	Fork(ts int64, cpu, pid, tgid int32, comm string, child, childTGID int32, childComm string)
	// Exit is a sched_process_exit of pid.
	Exit(ts int64, cpu, pid int32, comm string, prio int32)
	// Migrate is a sched_migrate_task: pid moves from orig to dest.
	Migrate(ts int64, cpu, pid int32, comm string, prio, orig, dest int32)
	// Mark is an application mark m that pid wrote about expiry seq of timer.
	Mark(ts int64, cpu, pid int32, comm string, m MarkKind, timer int32, seq, expected int64)
}

// AsFast returns s as a FastSink: s itself when it is one, else an
// adapter that builds each event and hands it to s.Event; nil for a nil s.
func AsFast(s Sink) FastSink {
	switch f := s.(type) {
	case nil:
		return nil
	case FastSink:
		return f
	}
	return &eventBuilder{sink: s}
}

// eventBuilder is the FastSink of a Sink that takes only Event: the one
// place where the methods' arguments become an Event. It builds them in
// one reused Event, so handing a pointer to the interface does not
// allocate; each method zeroes it in place and then sets the fields (a
// composite literal assigned to ev is built in a temporary and copied,
// the whole event twice).
type eventBuilder struct {
	sink Sink
	ev   Event
}

func (b *eventBuilder) Event(e *Event) { b.sink.Event(e) }

func (b *eventBuilder) Switch(ts int64, cpu, pid int32, comm string, prio int32, state TaskState, next int32, nextComm string, nextPrio int32) {
	ev := &b.ev
	*ev = Event{}
	ev.TS, ev.CPU, ev.Kind, ev.PID, ev.Comm, ev.Prio, ev.PrevState = ts, cpu, Switch, pid, comm, prio, state
	ev.NextPID, ev.NextComm, ev.NextPrio = next, nextComm, nextPrio
	b.sink.Event(ev)
}

func (b *eventBuilder) Wake(k Kind, ts int64, cpu, pid int32, comm string, prio, target int32) {
	ev := &b.ev
	*ev = Event{}
	ev.TS, ev.CPU, ev.Kind, ev.PID, ev.Comm, ev.Prio, ev.TargetCPU = ts, cpu, k, pid, comm, prio, target
	b.sink.Event(ev)
}

func (b *eventBuilder) Fork(ts int64, cpu, pid, tgid int32, comm string, child, childTGID int32, childComm string) {
	ev := &b.ev
	*ev = Event{}
	ev.TS, ev.CPU, ev.Kind, ev.PID, ev.TGID, ev.Comm = ts, cpu, Fork, pid, tgid, comm
	ev.ChildPID, ev.ChildTGID, ev.ChildComm = child, childTGID, childComm
	b.sink.Event(ev)
}

func (b *eventBuilder) Exit(ts int64, cpu, pid int32, comm string, prio int32) {
	ev := &b.ev
	*ev = Event{}
	ev.TS, ev.CPU, ev.Kind, ev.PID, ev.Comm, ev.Prio = ts, cpu, Exit, pid, comm, prio
	b.sink.Event(ev)
}

func (b *eventBuilder) Migrate(ts int64, cpu, pid int32, comm string, prio, orig, dest int32) {
	ev := &b.ev
	*ev = Event{}
	ev.TS, ev.CPU, ev.Kind, ev.PID, ev.Comm, ev.Prio = ts, cpu, Migrate, pid, comm, prio
	ev.OrigCPU, ev.DestCPU = orig, dest
	b.sink.Event(ev)
}

func (b *eventBuilder) Mark(ts int64, cpu, pid int32, comm string, m MarkKind, timer int32, seq, expected int64) {
	ev := &b.ev
	*ev = Event{}
	ev.TS, ev.CPU, ev.Kind, ev.PID, ev.Comm = ts, cpu, Mark, pid, comm
	ev.Mark, ev.Timer, ev.Seq, ev.Expected = m, timer, seq, expected
	b.sink.Event(ev)
}
