// Package analyze turns a trace.Event stream into the run report's latency
// statistics. It does not know where the events came from (the simulator,
// the host's tracefs, a user's trace file), so it tolerates partial streams:
// events before a task's first switch, switch-ins never preceded by a
// wakeup, wakeups of a task that is already running, marks without their
// partner, and PIDs reused after an exit.
//
// Definitions (all times in nanoseconds):
//
//   - Timer latency: for each CallbackStart mark, the TimerExpiry mark with
//     the same (Timer, Seq) is found and the sample is CallbackStart.TS minus
//     TimerExpiry.Expected; a CallbackStart that carries its own Expected
//     (the host runner writes its samples so) needs no expiry mark. A
//     CallbackStart with no such expiry (or whose
//     expiry already produced a sample) is counted as unmatched, not sampled.
//     Missed timer events are the number of TimerMissed marks.
//
//   - Wakeup latency: from a task's Waking (or WakeupNew for a new task) to
//     the first Switch whose NextPID is that task. Traces from kernels
//     without sched_waking start the interval at Wakeup instead: a Wakeup
//     starts it only when no Waking for the task is pending. A wakeup of a
//     task that is on a CPU, or already runnable because it was preempted,
//     is ignored. Intervals still open when the stream ends are not samples.
//
//   - Delay (perf sched latency's): from a wakeup as above, or from the
//     moment the task was preempted (a Switch with PID == task and
//     PrevState == trace.Running), to its next switch-in. Each task row has
//     the average and maximum delay and the interval of the maximum.
//
//   - Runtime: the sum of switch-out TS minus switch-in TS; a task on a CPU
//     when the stream ends counts up to the end time given to Finish.
//     Switches is the number of switch-ins.
//
// A task is a PID generation, not a PID: a Fork's child always starts a new
// task, and so does any Waking, Wakeup, WakeupNew, Exit or Fork naming a PID
// whose task has exited (sched_process_exit) or left a CPU dead (PrevState
// == trace.Dead). Between its Exit and its dead switch-out a task may still
// be preempted and switched back in, so Switch and Migrate events keep the
// PID's current task. PID 0 is the idle task and never reported. A task gets
// a row once it appears in a Switch; its Comm is the newest comm the events
// gave it (Comm, NextComm, ChildComm).
//
// Memory follows the tasks alive, not the length of the stream: a task
// that has ended (its dead switch-out, or its PID taken by a new task)
// is folded into its comm's row of Report.ByComm and its record reused;
// latency samples go into a Hist. Per-task rows (Report.Tasks) and the
// samples themselves are kept only when Options ask for them.
//
// Recordings are incomplete in two ways the stream says (trace.Lost and
// trace.BufferStart events, from a trace's lost-events lines and its
// "CPU N buffer started" annotations):
//
//   - Lost events on a CPU: any task may have been switched in there
//     unseen, so every pending wakeup or preemption is dropped (its next
//     switch-in is not a sample), and the time slice of the task on that
//     CPU is dropped (its end is unknown). Report.Gaps counts them.
//
//   - A CPU whose recording starts late: before that moment what ran there
//     is unknown, so the statistics restart from it, as if the stream began
//     there. Report.Restarts counts them; Report.RestartTS is the last.
//
// Report also counts, without changing the rules above, the scheduler
// events seen on a CPU before its first Switch (BeforeFirstSwitch), the
// tasks first seen leaving a CPU (UnknownStart: running when the recording
// began, so that slice has no runtime) and the tasks that got the PID of
// an earlier task (PIDReuse).
package analyze

import (
	"cmp"
	"slices"

	"schedlab/trace"
)

// TaskRow is one task's line of the report, like a row of perf sched
// latency, or the merged line of the tasks of one comm.
type TaskRow struct {
	Comm     string
	PID      int32 // a merged row's lowest
	Tasks    int   // tasks the row holds: 1, or those of a merged comm
	Runtime  int64 // ns
	Switches int
	Delays   int     // number of delay intervals measured
	DelaySum int64   // ns, of the Delays
	AvgDelay float64 // ns, DelaySum / Delays
	// MaxDelay is the longest delay, MaxDelayStart and MaxDelayEnd its
	// interval (ns timestamps); of equal longest delays a merged row
	// keeps the earliest.
	MaxDelay                   int64
	MaxDelayStart, MaxDelayEnd int64
}

// merge adds r's figures to m's, as rows of one comm.
func (m *TaskRow) merge(r *TaskRow) {
	if r.Delays > 0 && (m.Delays == 0 || r.MaxDelay > m.MaxDelay || r.MaxDelay == m.MaxDelay && r.MaxDelayStart < m.MaxDelayStart) {
		m.MaxDelay, m.MaxDelayStart, m.MaxDelayEnd = r.MaxDelay, r.MaxDelayStart, r.MaxDelayEnd
	}
	m.Tasks += r.Tasks
	m.Runtime += r.Runtime
	m.Switches += r.Switches
	m.Delays += r.Delays
	m.DelaySum += r.DelaySum
	m.PID = min(m.PID, r.PID)
	m.AvgDelay = 0
	if m.Delays > 0 {
		m.AvgDelay = float64(m.DelaySum) / float64(m.Delays)
	}
}

// Report is what a run's statistics come to.
type Report struct {
	TimerLatency   Stats
	TimerMissed    int
	TimerUnmatched int // CallbackStart without its expiry
	WakeupLatency  Stats
	// Sorted as perf sched latency sorts by default: average delay, maximum
	// delay, switches and runtime, all descending; then PID and Comm
	// ascending so that equal rows come out in a fixed order. Only kept
	// when Options.PerTask asks (nil otherwise).
	Tasks []TaskRow
	// ByComm is the task table merged by comm, as perf sched latency
	// prints it by default, sorted as Tasks is: always kept.
	ByComm []TaskRow
	Events int // events consumed

	// Wasted is the CPU time (ns) during which a CPU ran its idle task
	// while a task waited for one (woken or preempted, not yet switched
	// in): the capacity "a Decade of Wasted Cores" counts. It is 0 on one
	// CPU.
	Wasted            int64
	BeforeFirstSwitch int // scheduler events on a CPU before that CPU's first Switch
	UnknownStart      int // tasks first seen leaving a CPU: that slice's start is unknown
	// MissedSwitchIn counts switch-outs of a task that was last seen
	// leaving a CPU (or woken), not entering one: its switch-in is missing
	// from the trace. The slice counts no runtime, and a wakeup pending then
	// is not a sample. (Some kernels leave the switch away from the idle
	// task out of the trace; see VALIDATION.md.)
	MissedSwitchIn int
	PIDReuse       int   // tasks that reused the PID of an earlier task
	Gaps           int   // Lost events
	LostEvents     int64 // events the Lost events say were lost (where they say)
	Restarts       int   // BufferStart events: the statistics restarted at each
	RestartTS      int64 // when the last restart happened
	BeforeRestart  int   // events consumed before the last restart (not in the statistics)
}

// ready says why a task off its CPU is waiting for one.
type ready uint8

const (
	idle      ready = iota // not waiting, or not known to be
	woken                  // a wakeup is pending: its switch-in is a wakeup sample
	preempted              // left the CPU runnable: its switch-in is only a delay
)

type task struct {
	comm     string
	pid      int32
	idx      int32 // its index in Analyzer.tasks
	used     bool  // a live generation (else a free record)
	onCPU    bool
	exited   bool
	switched bool // appeared in a Switch, so it gets a row
	state    ready
	readyTS  int64 // when state became woken or preempted
	inTS     int64 // last switch-in, while onCPU
	cpu      int32 // the CPU it is on, while onCPU

	runtime          int64
	switches         int
	delays           int
	delaySum         int64
	maxDelay         int64
	maxStart, maxEnd int64
}

// Options say what an Analyzer keeps beyond the report's statistics.
type Options struct {
	// Samples keeps every latency sample, for Samples (CDFs).
	Samples bool
	// PerTask keeps a row per task for Report.Tasks.
	PerTask bool
}

// Analyzer is a trace.Sink that accumulates what Report needs. Its
// per-event work is slice lookups and amortised appends, so it does not
// allocate per event in steady state.
type Analyzer struct {
	opt    Options
	events int
	// The live generations, and free records, each allocated once: a
	// record stays where it is while tasks grows, so the handlers hold
	// pointers, not indices checked at every use.
	tasks  []*task
	free   []int32  // indices of free records in tasks
	pids   idTable  // PID → index in tasks of its current generation
	wakee  *task    // the record Wake found last, or newTask made (a hint)
	seen   pidSet   // PIDs that had a generation
	expiry expiries // expiries waiting for their callback → Expected

	// Ended generations: merged by comm, and one row each if PerTask.
	comms map[string]int
	ended []TaskRow // by comm
	rows  []TaskRow // per task
	// lastEnded is the row of ended that end folded into last.
	lastEnded int

	wakeupHist, timerHist Hist
	wakeups, timers       []int64 // the samples, if Options.Samples
	missed, unmatched     int

	beforeSwitch, pidReuse     int
	unknownStart, missedIn     int
	gaps, restarts, beforeLast int
	lost, restartTS            int64

	// Wasted capacity: CPU time during which a CPU was idle while a task
	// waited (woken or preempted, not yet back on a CPU).
	cpus           []cpuSeen // by CPU, from its events
	ncpu           int       // CPUs of the recording (trace.Begin), at least those seen
	busy, waiting  int
	lastTS, wasted int64
	started        bool
}

// cpuSeen is what the events said of one CPU.
type cpuSeen struct {
	cur      int32 // the task on it (0: idle), from switches
	switched bool  // a Switch has been seen there
	// task is cur's record as the switch found it, so that the events
	// of the task running there (its switch away, the marks it writes,
	// the forks it makes) need no PID lookup. It is cur's current
	// generation while its pid is cur: end zeroes a record it frees,
	// and a record that is reused holds its PID's new generation.
	task *task
}

// setState changes a task's readiness, keeping count of the waiting tasks.
func (a *Analyzer) setState(t *task, s ready) {
	if (t.state != idle) != (s != idle) {
		if s != idle {
			a.waiting++
		} else {
			a.waiting--
		}
	}
	t.state = s
}

// idleCPUs is the number of CPUs running the idle task.
func (a *Analyzer) idleCPUs() int { return max(a.ncpu, len(a.cpus)) - a.busy }

// New returns an empty Analyzer that keeps nothing beyond the report's
// statistics.
func New() *Analyzer { return NewWith(Options{}) }

// NewWith returns an empty Analyzer that keeps what o asks.
func NewWith(o Options) *Analyzer {
	return &Analyzer{opt: o, comms: map[string]int{}}
}

// wakeupSample and timerSample record one latency sample.
func (a *Analyzer) wakeupSample(d int64) {
	a.wakeupHist.Add(d)
	if a.opt.Samples {
		a.wakeups = append(a.wakeups, d)
	}
}

func (a *Analyzer) timerSample(d int64) {
	a.timerHist.Add(d)
	if a.opt.Samples {
		a.timers = append(a.timers, d)
	}
}

var _ trace.FastSink = (*Analyzer)(nil)

// Event implements trace.Sink: the kinds trace.FastSink takes go to its
// methods (dropping Prio and TGID, which the analysis does not read), the
// rest to other.
func (a *Analyzer) Event(e *trace.Event) {
	switch e.Kind {
	case trace.Switch:
		a.Switch(e.TS, e.CPU, e.PID, e.Comm, e.Prio, e.PrevState, e.NextPID, e.NextComm, e.NextPrio)
	case trace.Waking, trace.Wakeup, trace.WakeupNew:
		a.Wake(e.Kind, e.TS, e.CPU, e.PID, e.Comm, e.Prio, e.TargetCPU)
	case trace.Fork:
		a.Fork(e.TS, e.CPU, e.PID, e.TGID, e.Comm, e.ChildPID, e.ChildTGID, e.ChildComm)
	case trace.Exit:
		a.Exit(e.TS, e.CPU, e.PID, e.Comm, e.Prio)
	case trace.Migrate:
		a.Migrate(e.TS, e.CPU, e.PID, e.Comm, e.Prio, e.OrigCPU, e.DestCPU)
	case trace.Mark:
		a.Mark(e.TS, e.CPU, e.PID, e.Comm, e.Mark, e.Timer, e.Seq, e.Expected)
	case trace.Begin:
		// Not an event of the recording: it says how many CPUs it has,
		// including those that never show an event.
		a.ncpu = max(a.ncpu, int(e.CPUs))
	default:
		a.other(e)
	}
}

// step counts an event of the recording at ts and adds the capacity
// wasted since the previous one.
func (a *Analyzer) step(ts int64) {
	a.events++
	if dt := ts - a.lastTS; dt > 0 || !a.started {
		// The first event adds nothing (dt is then from 0, not from an
		// event): before it, no task waits.
		a.wasted += dt * int64(min(a.idleCPUs(), a.waiting))
		a.started, a.lastTS = true, ts
	}
}

// cpu returns what the events said of CPU n so far, nil for a number no
// machine has (a damaged trace's).
func (a *Analyzer) cpu(n int32) *cpuSeen {
	if uint(n) < uint(len(a.cpus)) { // the common case first: one bounds check
		return &a.cpus[n]
	}
	return a.newCPU(n)
}

// newCPU is cpu of a CPU not seen before.
func (a *Analyzer) newCPU(n int32) *cpuSeen {
	if n < 0 || n >= 1<<16 {
		return nil
	}
	a.cpus = append(a.cpus, make([]cpuSeen, int(n)+1-len(a.cpus))...)
	return &a.cpus[n]
}

// running returns the record of the task the last switch on c put
// there if that is pid's task as task(pid, _, dying) would find it, else
// nil: the events of the task running on a CPU (its switch away, the
// marks it writes, its forks and its exit) need no PID lookup. c may be
// nil.
func (c *cpuSeen) running(pid int32, dying bool) *task {
	if c == nil {
		return nil
	}
	if t := c.task; t != nil && t.pid == pid && (dying || !t.exited) {
		return t
	}
	return nil
}

// taskOr is t (from running) with comm, or, if t is nil, task(pid, comm,
// dying). It is apart from running so that both inline: its cost is the
// inliner's budget (80) exactly, and one more test would make it a call.
func (a *Analyzer) taskOr(t *task, pid int32, comm string, dying bool) *task {
	if t == nil {
		return a.task(pid, comm, dying)
	}
	t.rename(comm)
	return t
}

// schedEvent returns what the events said of cpu (nil: a CPU number no
// machine has), counting a scheduler event other than a switch on a CPU
// that has shown no switch yet.
func (a *Analyzer) schedEvent(cpu int32) *cpuSeen {
	c := a.cpu(cpu)
	if c != nil && !c.switched {
		a.beforeSwitch++
	}
	return c
}

// Switch implements trace.FastSink: pid leaves cpu in state, nextPID
// takes it.
func (a *Analyzer) Switch(ts int64, cpu, pid int32, comm string, _ int32, state trace.TaskState, nextPID int32, nextComm string, _ int32) {
	a.step(ts)
	c := a.cpu(cpu)
	var prev, next *task
	dead := false
	if pid != 0 {
		prev = a.taskOr(c.running(pid, true), pid, comm, true)
	}
	if nextPID != 0 {
		next = a.task(nextPID, nextComm, true)
	}
	if c != nil {
		if (c.cur != 0) != (nextPID != 0) {
			if nextPID != 0 {
				a.busy++
			} else {
				a.busy--
			}
		}
		c.cur, c.switched, c.task = nextPID, true, next
	}
	if t := prev; t != nil {
		if !t.onCPU {
			if t.switched {
				a.missedIn++
			} else {
				a.unknownStart++
			}
		}
		t.switched = true
		// A task first seen leaving a CPU ran from an unknown time: no runtime.
		if t.onCPU {
			t.runtime += ts - t.inTS
			t.onCPU = false
		}
		// Whatever was pending belonged to a state the task has left (a
		// wakeup we saw before learning it was running, say).
		a.setState(t, idle)
		switch state {
		case trace.Running:
			a.setState(t, preempted)
			t.readyTS = ts
		case trace.Dead:
			dead = true
		}
	}
	if t := next; t != nil {
		t.switched = true
		t.switches++
		if t.state != idle {
			d := ts - t.readyTS
			if t.state == woken {
				a.wakeupSample(d)
			}
			t.delays++
			t.delaySum += d
			if t.delays == 1 || d > t.maxDelay {
				t.maxDelay, t.maxStart, t.maxEnd = d, t.readyTS, ts
			}
			a.setState(t, idle)
		}
		// A switch-in while we think the task is on a CPU means its
		// switch-out was lost; the slice's end is unknown, so it is dropped.
		t.onCPU, t.inTS, t.cpu = true, ts, cpu
	}
	if dead {
		// Events naming the PID from here on are a new task's.
		a.end(prev)
	}
}

// Wake implements trace.FastSink: a Waking, Wakeup or WakeupNew of pid.
func (a *Analyzer) Wake(_ trace.Kind, ts int64, cpu, pid int32, comm string, _, _ int32) {
	a.step(ts)
	a.schedEvent(cpu)
	if pid == 0 {
		return
	}
	// The wakee is most often the last one, or the child just forked
	// (sched_wakeup after sched_waking, sched_wakeup_new after the
	// fork): a record that holds pid is its current generation, as for
	// cpuSeen.task.
	t := a.wakee
	if t != nil && t.pid == pid && !t.exited {
		t.rename(comm)
	} else {
		t = a.task(pid, comm, false)
		a.wakee = t
	}
	// Only the first wakeup event starts the interval, which makes a
	// sched_wakeup after its sched_waking a no-op and lets a lone
	// sched_wakeup (old kernels) start it.
	if !t.onCPU && t.state == idle {
		a.setState(t, woken)
		t.readyTS = ts
	}
}

// Fork implements trace.FastSink: pid created child.
func (a *Analyzer) Fork(ts int64, cpu, pid, _ int32, comm string, child, _ int32, childComm string) {
	a.step(ts)
	c := a.schedEvent(cpu)
	if pid != 0 { // the parent runs there
		a.taskOr(c.running(pid, false), pid, comm, false)
	}
	if child != 0 {
		a.newTask(child, childComm)
	}
}

// Exit implements trace.FastSink: pid is gone.
func (a *Analyzer) Exit(ts int64, cpu, pid int32, comm string, _ int32) {
	a.step(ts)
	c := a.schedEvent(cpu)
	if pid != 0 { // an exiting task runs there
		t := a.taskOr(c.running(pid, false), pid, comm, false)
		t.exited = true
		a.setState(t, idle)
	}
}

// Migrate implements trace.FastSink: pid moves to another CPU (the
// event names the CPU it is written on; the task is only seen alive).
func (a *Analyzer) Migrate(ts int64, cpu, pid int32, comm string, _, _, _ int32) {
	a.step(ts)
	a.schedEvent(cpu)
	if pid != 0 {
		a.task(pid, comm, true)
	}
}

// Mark implements trace.FastSink: pid wrote mark m about expiry seq of
// timer.
func (a *Analyzer) Mark(ts int64, cpu, pid int32, comm string, m trace.MarkKind, timer int32, seq, expected int64) {
	a.step(ts)
	a.mark(ts, m, timer, seq, expected)
	if pid != 0 {
		// A mark is no scheduler event: a CPU it names that none has
		// named is not added (which would change the idle capacity).
		var c *cpuSeen
		if uint(cpu) < uint(len(a.cpus)) {
			c = &a.cpus[cpu]
		}
		a.taskOr(c.running(pid, true), pid, comm, true)
	}
}

// other is Event of the kinds FastSink does not take.
func (a *Analyzer) other(e *trace.Event) {
	a.step(e.TS)
	if e.Kind == 0 { // nobody should send it; counted as a scheduler event
		a.schedEvent(e.CPU)
	}
	switch e.Kind {
	case trace.Lost:
		a.gap(e)
	case trace.BufferStart:
		a.restart(e.TS)
	}
}

// gap drops what lost events on e.CPU may have ended: every pending
// wakeup or preemption, and the time slice of the task on that CPU.
func (a *Analyzer) gap(e *trace.Event) {
	a.gaps++
	if e.Seq > 0 {
		a.lost += e.Seq
	}
	for _, t := range a.tasks { // order does not matter: each task is reset alone
		if !t.used {
			continue
		}
		a.setState(t, idle)
		if t.onCPU && t.cpu == e.CPU {
			t.onCPU = false
		}
	}
}

// restart forgets everything but the counts of what was repaired, so the
// statistics describe the stream from ts on.
func (a *Analyzer) restart(ts int64) {
	n := NewWith(a.opt)
	n.events = a.events
	n.beforeLast = a.events - 1 // not the BufferStart event itself
	n.restarts, n.restartTS = a.restarts+1, ts
	n.gaps, n.lost = a.gaps, a.lost
	n.beforeSwitch, n.pidReuse, n.unknownStart, n.missedIn = a.beforeSwitch, a.pidReuse, a.unknownStart, a.missedIn
	n.ncpu = a.ncpu
	n.cpus, n.busy = a.cpus, a.busy // what runs where is still the best guess
	for i := range n.cpus {
		n.cpus[i].task = nil // a's records
	}
	n.started, n.lastTS = true, ts
	*a = *n
}

// task returns pid's current task, creating one if there is none or,
// unless dying is true, if the current one has exited.
func (a *Analyzer) task(pid int32, comm string, dying bool) *task {
	j, ok := a.pids.get(pid)
	if !ok {
		return a.newTask(pid, comm)
	}
	t := a.tasks[j]
	if !dying && t.exited {
		return a.newTask(pid, comm)
	}
	t.rename(comm)
	return t
}

// rename gives t the comm an event named it by, if any.
func (t *task) rename(comm string) {
	if comm != "" {
		t.comm = comm
	}
}

func (a *Analyzer) newTask(pid int32, comm string) *task {
	if j, ok := a.pids.get(pid); ok {
		old := a.tasks[j]
		// The old generation's end went unseen, so its last time slice has
		// no known end: drop it rather than count it up to Finish.
		old.onCPU = false
		a.setState(old, idle)
		a.end(old)
	}
	if !a.seen.add(pid) {
		a.pidReuse++
	}
	var t *task
	if n := len(a.free); n > 0 {
		t = a.tasks[a.free[n-1]]
		a.free = a.free[:n-1]
	} else {
		t = new(task)
		t.idx = int32(len(a.tasks))
		a.tasks = append(a.tasks, t)
	}
	// A free record is zero but for idx (end clears it, for the records
	// the CPUs keep), so only these are set.
	t.pid, t.comm, t.used = pid, comm, true
	a.pids.set(pid, int64(t.idx))
	a.wakee = t // a child's sched_wakeup_new comes next
	return t
}

// end folds the generation of record t into the rows of ended tasks and
// frees the record.
func (a *Analyzer) end(t *task) {
	if t.switched {
		r := t.row(0)
		// Tasks of one comm often end one after another (a timer's
		// SIGEV_THREAD callbacks): the row of the last comm folded is
		// tried before the map.
		if j := a.lastEnded; j < len(a.ended) && a.ended[j].Comm == r.Comm {
			a.ended[j].merge(&r)
		} else {
			a.lastEnded = fold(a.comms, &a.ended, &r)
		}
		if a.opt.PerTask {
			a.rows = append(a.rows, r)
		}
	}
	a.pids.del(t.pid)
	*t = task{idx: t.idx}
	a.free = append(a.free, t.idx)
}

// fold adds r to its comm's row in rows (at maps comms to indices) and
// returns the row's index.
func fold(at map[string]int, rows *[]TaskRow, r *TaskRow) int {
	j, ok := at[r.Comm]
	if !ok {
		at[r.Comm] = len(*rows)
		*rows = append(*rows, *r)
		return len(*rows) - 1
	}
	(*rows)[j].merge(r)
	return j
}

// row is t's line, with a time slice still open counted up to end (0: none).
func (t *task) row(end int64) TaskRow {
	r := TaskRow{
		Comm:          t.comm,
		PID:           t.pid,
		Tasks:         1,
		Runtime:       t.runtime,
		Switches:      t.switches,
		Delays:        t.delays,
		DelaySum:      t.delaySum,
		MaxDelay:      t.maxDelay,
		MaxDelayStart: t.maxStart,
		MaxDelayEnd:   t.maxEnd,
	}
	if t.onCPU && end > t.inTS {
		r.Runtime += end - t.inTS
	}
	if t.delays > 0 {
		r.AvgDelay = float64(t.delaySum) / float64(t.delays)
	}
	return r
}

func (a *Analyzer) mark(ts int64, m trace.MarkKind, timer int32, seq, expected int64) {
	switch m {
	case trace.TimerExpiry:
		a.expiry.put(timer, seq, expected)
	case trace.CallbackStart:
		exp, ok := a.expiry.take(timer, seq)
		if !ok && expected != 0 { // a self-contained sample (the host runner's)
			a.timerSample(ts - expected)
			return
		}
		if !ok {
			a.unmatched++
			return
		}
		// One sample per expiry: take removed it, which also keeps the
		// table as small as the number of expiries in flight.
		a.timerSample(ts - exp)
	case trace.TimerMissed:
		a.missed++
	}
}

// Finish closes open intervals at time end and returns the report: a task
// on a CPU has its runtime counted up to end, while a pending wakeup or
// preemption with no switch-in is not a sample. Finish leaves the Analyzer
// usable: it may be called again, with or without more events, and the same
// input always gives an identical Report.
func (a *Analyzer) Finish(end int64) Report {
	wasted := a.wasted
	if a.started && end > a.lastTS {
		wasted += (end - a.lastTS) * int64(min(a.idleCPUs(), a.waiting))
	}
	r := Report{
		TimerLatency:   a.timerHist.Stats(),
		TimerMissed:    a.missed,
		TimerUnmatched: a.unmatched,
		WakeupLatency:  a.wakeupHist.Stats(),
		Events:         a.events,

		Wasted:            wasted,
		BeforeFirstSwitch: a.beforeSwitch,
		UnknownStart:      a.unknownStart,
		MissedSwitchIn:    a.missedIn,
		PIDReuse:          a.pidReuse,
		Gaps:              a.gaps,
		LostEvents:        a.lost,
		Restarts:          a.restarts,
		RestartTS:         a.restartTS,
		BeforeRestart:     a.beforeLast,
	}
	// The live tasks join copies of the ended ones' rows.
	at := make(map[string]int, len(a.comms))
	for c, j := range a.comms {
		at[c] = j
	}
	r.ByComm = slices.Clone(a.ended)
	if a.opt.PerTask {
		r.Tasks = slices.Clone(a.rows)
	}
	for _, t := range a.tasks {
		if !t.used || !t.switched {
			continue
		}
		row := t.row(end)
		fold(at, &r.ByComm, &row)
		if a.opt.PerTask {
			r.Tasks = append(r.Tasks, row)
		}
	}
	sortRows(r.Tasks)
	sortRows(r.ByComm)
	return r
}

// Samples returns copies of the timer-latency and wakeup-latency samples
// (ns) so far, in the order they were taken: what a CDF is drawn from.
// They are nil unless Options.Samples asked for them.
func (a *Analyzer) Samples() (timer, wakeup []int64) {
	return slices.Clone(a.timers), slices.Clone(a.wakeups)
}

func sortRows(rows []TaskRow) {
	slices.SortStableFunc(rows, func(x, y TaskRow) int {
		return cmp.Or(
			cmp.Compare(y.AvgDelay, x.AvgDelay),
			cmp.Compare(y.MaxDelay, x.MaxDelay),
			cmp.Compare(y.Switches, x.Switches),
			cmp.Compare(y.Runtime, x.Runtime),
			cmp.Compare(x.PID, y.PID),
			cmp.Compare(x.Comm, y.Comm),
		)
	})
}

// ByComm merges rows of the same comm, as perf sched latency does by
// default and as Report.ByComm is: runtimes, switches and delays add up,
// the average delay is over all the merged delays, the maximum is the
// largest with its interval; PID is the lowest and Tasks the sum. The
// result is sorted as Report.Tasks is.
func ByComm(rows []TaskRow) []TaskRow {
	at := map[string]int{}
	var merged []TaskRow
	for i := range rows {
		fold(at, &merged, &rows[i])
	}
	sortRows(merged)
	return merged
}
