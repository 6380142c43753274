// Package perfetto writes the event stream as a Perfetto trace: the
// protobuf format that Perfetto's recorder (traced) writes and that the
// Perfetto UI and trace_processor read natively (a ".perfetto-trace" or
// ".pftrace" file).
//
// trace.Writer's ftrace text reaches Perfetto too, but its text importer
// drops sched_wakeup_new, sched_process_fork and sched_process_exit, so it
// cannot put threads under their processes. Here every event is an ftrace
// event in a per-CPU bundle, as traced records them, and the thread groups
// the stream's forks carry (trace.Event's TGID and ChildTGID) become the
// task_newtask events and the process tree from which trace_processor
// builds its process and thread tables.
//
// A Trace message is a sequence of TracePacket fields, so the file is
// written packet by packet and never held whole: the Writer buffers at most
// Options.Pending events, then writes one bundle per CPU that has any. What
// it keeps for the end, the process tree, grows with the number of tasks,
// not of events.
package perfetto

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"schedlab/trace"
)

// MaxCPUs is the most CPUs a trace can have: trace_processor refuses a
// bundle of a CPU numbered 1024 or more as corrupt.
const MaxCPUs = 1024

// IsPath says whether a file name asks for this format: its extension is
// Perfetto's own (.perfetto-trace) or the UI's (.pftrace).
func IsPath(name string) bool {
	return strings.HasSuffix(name, ".perfetto-trace") || strings.HasSuffix(name, ".pftrace")
}

// Options configure a Writer.
type Options struct {
	// CPUs is the recording's number of CPUs (SystemInfo.num_cpus); a Begin
	// event in the stream raises it.
	CPUs int
	// Release is the kernel release the trace states (uname -r). sched_switch's
	// prev_state is written in the state bits of kernels since 4.14 (the
	// layout schedlab's text writes), and trace_processor decodes those bits
	// by the release it is told, so a release before 4.14, or one that is not
	// a version, is replaced by DefaultRelease.
	Release string
	// Version is the trace's uname version string (a free text, such as what
	// produced the trace).
	Version string
	// Pending is how many events are buffered before the bundles are
	// written (default 4096).
	Pending int
}

// DefaultRelease is the release a trace states when Options does not give
// one from 4.14 on: the first release of the 6.x tracefs layout that
// schedlab's events follow.
const DefaultRelease = "6.0.0-schedlab"

// seqID is the trusted_packet_sequence_id of every packet. Only packets that
// refer to state kept per sequence (interned strings, packet defaults)
// need one, and these packets do not; but traced stamps every packet with
// its writer's nonzero id (zero means "invalid"), so the file looks like one
// writer's output to every reader.
const seqID = 1

// The kernel's sched_switch prev_state bits since 4.14 (TASK_REPORT in
// include/linux/sched.h; preemption reported as TASK_REPORT_MAX).
const (
	stateRunning         = 0x0000
	stateInterruptible   = 0x0001 // S
	stateUninterruptible = 0x0002 // D
	stateExitDead        = 0x0010 // X
	statePreempted       = 0x0100 // R+
)

// The clone flags task_newtask reports, from include/uapi/linux/sched.h.
// trace_processor tells a new thread from a new process by CLONE_THREAD
// alone; the rest are what glibc passes, so the event reads as a real one.
const (
	cloneVM            = 0x00000100
	cloneFS            = 0x00000200
	cloneFiles         = 0x00000400
	cloneSighand       = 0x00000800
	cloneThread        = 0x00010000
	cloneSysvsem       = 0x00040000
	cloneSettls        = 0x00080000
	cloneParentSettid  = 0x00100000
	cloneChildCleartid = 0x00200000
	cloneChildSettid   = 0x01000000
	sigchld            = 17

	// pthread_create's flags, and fork()'s.
	clonePthread = cloneVM | cloneFS | cloneFiles | cloneSighand | cloneThread | cloneSysvsem |
		cloneSettls | cloneParentSettid | cloneChildCleartid
	cloneFork = cloneChildSettid | cloneChildCleartid | sigchld
)

// Writer is a trace.Sink that writes the stream as a Perfetto trace:
//
//   - first a SystemInfo packet (the kernel release whose prev_state bits
//     the switches use, and the CPU count);
//   - then FtraceEventBundle packets, one per CPU per flush, each with its
//     CPU's events in time order: sched_switch, sched_waking, sched_wakeup,
//     sched_wakeup_new, sched_process_fork (preceded, where the fork's
//     thread group is known, by the task_newtask the kernel emits first),
//     sched_process_exit, sched_migrate_task, and the application marks as
//     print events with trace.AppendMark's text;
//   - at Close, a ProcessTree packet naming every process and thread whose
//     thread group the stream said.
//
// Each event's pid (ftrace's common_pid) is the task it happened in the
// context of, as in the text's TASK-PID column: trace_processor takes a
// sched_waking's as the waker, which draws the wakeup arrows.
//
// Write errors are sticky and returned by Close.
type Writer struct {
	bw   *bufio.Writer
	o    Options
	cpus []cpuState
	// pending is the number of events buffered over all CPUs.
	pending int
	started bool // the SystemInfo packet is written
	tasks   map[int32]*task
	n       int64
	last    int64 // the latest event's time
	sub, ev []byte
	mark    trace.Event
	err     error
}

// cpuState is one CPU's bundle in the making.
type cpuState struct {
	events  []byte // encoded FtraceEventBundle.event fields
	n       int
	cur     int32 // the task running there
	lost    bool  // the next bundle follows lost events
	bundled bool  // a bundle of this CPU has been written
	// start is when this CPU's recording began (a BufferStart before its
	// first bundle), -1 if not said.
	start int64
	idle  string // the idle task's comm
}

// task is what the process tree says of one task.
type task struct {
	tgid int32
	// ppid is the parent process of a process whose fork the stream
	// showed; hasPPID is false for one that was already running.
	ppid    int32
	hasPPID bool
	comm    string
}

// NewWriter returns a Writer writing to w. Nothing is written until the
// first event (or Close).
func NewWriter(w io.Writer, o Options) *Writer {
	if o.Pending < 1 {
		o.Pending = 4096
	}
	if !releaseOK(o.Release) {
		o.Release = DefaultRelease
	}
	return &Writer{bw: bufio.NewWriterSize(w, 64<<10), o: o, tasks: map[int32]*task{}}
}

// releaseOK says whether trace_processor reads release as 4.14 or later.
func releaseOK(release string) bool {
	major, rest, _ := strings.Cut(release, ".")
	minor, _, _ := strings.Cut(rest, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	return err1 == nil && err2 == nil && (a > 4 || a == 4 && b >= 14)
}

// Event implements trace.Sink.
func (w *Writer) Event(e *trace.Event) {
	if w.err != nil {
		return
	}
	switch e.Kind {
	case trace.Begin:
		w.o.CPUs = max(w.o.CPUs, int(e.CPUs))
		return
	case trace.Lost, trace.BufferStart, trace.Switch, trace.Waking, trace.Wakeup, trace.WakeupNew,
		trace.Fork, trace.Exit, trace.Migrate, trace.Mark:
	default:
		return
	}
	if e.CPU < 0 || e.CPU >= MaxCPUs {
		w.err = fmt.Errorf("perfetto: an event on CPU %d: a Perfetto trace has CPUs 0 to %d", e.CPU, MaxCPUs-1)
		return
	}
	w.start()
	c := w.cpu(e.CPU)
	w.last = max(w.last, e.TS)
	switch e.Kind {
	case trace.Lost:
		// lost_events marks the bundle read after the loss, so what came
		// before goes out first.
		if c.n > 0 {
			w.flushCPU(e.CPU)
		}
		c.lost = true
		return
	case trace.BufferStart:
		// trace_processor's counterpart is the time the first bundle of a
		// CPU says its data starts from: before the latest of them it
		// keeps the events but draws nothing, as analyze restarts there.
		if !c.bundled && c.n == 0 {
			c.start = max(e.TS, 0)
		}
		return
	}
	w.learn(e)
	switch e.Kind {
	case trace.Switch:
		b := appendString(w.sub[:0], fSwitchPrevComm, w.comm(e.Comm, e.PID, e.CPU))
		b = appendInt(b, fSwitchPrevPID, e.PID)
		b = appendInt(b, fSwitchPrevPrio, e.Prio)
		b = appendVarint(b, fSwitchPrevState, prevState(e))
		b = appendString(b, fSwitchNextComm, w.comm(e.NextComm, e.NextPID, e.CPU))
		b = appendInt(b, fSwitchNextPID, e.NextPID)
		b = appendInt(b, fSwitchNextPrio, e.NextPrio)
		w.add(c, e.TS, e.PID, fFtraceEventSchedSwitch, b)
		c.cur = e.NextPID
	case trace.Waking, trace.Wakeup, trace.WakeupNew:
		b := appendString(w.sub[:0], fWakeComm, w.comm(e.Comm, e.PID, e.CPU))
		b = appendInt(b, fWakePID, e.PID)
		b = appendInt(b, fWakePrio, e.Prio)
		b = appendInt(b, fWakeSuccess, 1) // a stream's wakeups all succeeded (the parser drops success=0)
		b = appendInt(b, fWakeTargetCPU, e.TargetCPU)
		f := fFtraceEventSchedWaking
		switch e.Kind {
		case trace.Wakeup:
			f = fFtraceEventSchedWakeup
		case trace.WakeupNew:
			f = fFtraceEventWakeupNew
		}
		w.add(c, e.TS, c.cur, f, b)
	case trace.Fork:
		// trace_processor makes threads and processes from task_newtask,
		// not from sched_process_fork (which it only lists), so the fork
		// is told twice, in the kernel's order; only when the stream says
		// whether the child is a thread.
		if e.ChildTGID != 0 {
			flags := uint64(cloneFork)
			if e.ChildTGID != e.ChildPID {
				flags = clonePthread
			}
			b := appendInt(w.sub[:0], fNewtaskPID, e.ChildPID)
			b = appendString(b, fNewtaskComm, w.comm(e.ChildComm, e.ChildPID, e.CPU))
			b = appendVarint(b, fNewtaskCloneFlags, flags)
			w.add(c, e.TS, e.PID, fFtraceEventTaskNewtask, b)
		}
		b := appendString(w.sub[:0], fForkParentComm, w.comm(e.Comm, e.PID, e.CPU))
		b = appendInt(b, fForkParentPID, e.PID)
		b = appendString(b, fForkChildComm, w.comm(e.ChildComm, e.ChildPID, e.CPU))
		b = appendInt(b, fForkChildPID, e.ChildPID)
		w.add(c, e.TS, e.PID, fFtraceEventFork, b)
	case trace.Exit:
		b := appendString(w.sub[:0], fExitComm, w.comm(e.Comm, e.PID, e.CPU))
		b = appendInt(b, fExitPID, e.PID)
		if t := w.tasks[e.PID]; t != nil {
			b = appendInt(b, fExitTGID, t.tgid)
		}
		b = appendInt(b, fExitPrio, e.Prio)
		w.add(c, e.TS, e.PID, fFtraceEventExit, b)
	case trace.Migrate:
		b := appendString(w.sub[:0], fMigrateComm, w.comm(e.Comm, e.PID, e.CPU))
		b = appendInt(b, fMigratePID, e.PID)
		b = appendInt(b, fMigratePrio, e.Prio)
		b = appendInt(b, fMigrateOrigCPU, e.OrigCPU)
		b = appendInt(b, fMigrateDestCPU, e.DestCPU)
		w.add(c, e.TS, c.cur, fFtraceEventMigrate, b)
	case trace.Mark:
		// The atrace text's number is the writer's process: for an
		// instant, trace_processor files the writing thread under that
		// process, so the thread's own id there would split a thread off
		// its process. 0 claims no process where the group is unknown.
		w.mark = *e
		w.mark.PID = 0
		if t := w.tasks[e.PID]; t != nil {
			w.mark.PID = t.tgid
		}
		b := protowire.AppendTag(w.sub[:0], fPrintBuf, protowire.BytesType)
		b = protowire.AppendBytes(b, trace.AppendMark(w.ev[:0], &w.mark))
		w.add(c, e.TS, e.PID, fFtraceEventPrint, b)
	}
	w.n++
	if w.pending >= w.o.Pending {
		w.flush()
	}
}

// learn keeps what the process tree will say of the tasks e names.
func (w *Writer) learn(e *trace.Event) {
	switch e.Kind {
	case trace.Fork:
		// The parent may have been running since before the recording
		// (rt-app's main thread is the first fork's parent).
		if p := w.tasks[e.PID]; e.TGID != 0 && (p == nil || p.tgid != e.TGID) {
			w.tasks[e.PID] = &task{tgid: e.TGID, comm: e.Comm}
		}
		if e.ChildTGID != 0 {
			// A fork's child is a new task even where its pid was
			// another's before.
			t := &task{tgid: e.ChildTGID, comm: e.ChildComm}
			w.tasks[e.ChildPID] = t
			// A new process's parent is the forking thread's process.
			if p := w.tasks[e.PID]; e.ChildTGID == e.ChildPID && p != nil {
				t.ppid, t.hasPPID = p.tgid, true
			}
		} else {
			delete(w.tasks, e.ChildPID)
		}
	case trace.Switch:
		w.rename(e.PID, e.Comm)
		w.rename(e.NextPID, e.NextComm)
	default:
		w.rename(e.PID, e.Comm)
	}
}

// rename keeps a task's latest comm (exec changes it after the fork).
func (w *Writer) rename(pid int32, comm string) {
	if pid == 0 || comm == "" {
		return
	}
	if t := w.tasks[pid]; t != nil {
		t.comm = comm
	}
}

func (w *Writer) cpu(n int32) *cpuState {
	for int(n) >= len(w.cpus) {
		w.cpus = append(w.cpus, cpuState{start: -1})
	}
	return &w.cpus[n]
}

// add appends one FtraceEvent (timestamp, common pid, then the event, the
// order traced writes and trace_processor's fast path reads) to c's bundle.
func (w *Writer) add(c *cpuState, ts int64, pid int32, field protowire.Number, payload []byte) {
	ev := appendVarint(w.ev[:0], fFtraceEventTimestamp, uint64(max(ts, 0)))
	ev = appendVarint(ev, fFtraceEventPID, uint64(uint32(pid)))
	ev = protowire.AppendTag(ev, field, protowire.BytesType)
	ev = protowire.AppendBytes(ev, payload)
	c.events = protowire.AppendTag(c.events, fBundleEvent, protowire.BytesType)
	c.events = protowire.AppendBytes(c.events, ev)
	c.n++
	w.pending++
	w.ev, w.sub = ev[:0], payload[:0]
}

// start writes the SystemInfo packet, once, before any bundle.
func (w *Writer) start() {
	if w.started {
		return
	}
	w.started = true
	uts := appendString(nil, fUtsnameSysname, "Linux")
	if w.o.Version != "" {
		uts = appendString(uts, fUtsnameVersion, w.o.Version)
	}
	uts = appendString(uts, fUtsnameRelease, w.o.Release)
	si := appendBytes(nil, fSystemInfoUtsname, uts)
	if w.o.CPUs > 0 {
		si = appendVarint(si, fSystemInfoNumCPUs, uint64(w.o.CPUs))
	}
	w.packet(appendBytes(nil, fPacketSystemInfo, si))
}

// packet writes one TracePacket with the sequence id added.
func (w *Writer) packet(body ...[]byte) {
	seq := appendVarint(nil, fPacketTrustedSeqID, seqID)
	n := len(seq)
	for _, b := range body {
		n += len(b)
	}
	head := protowire.AppendTag(w.ev[:0], fTracePacket, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(n))
	w.write(head)
	for _, b := range body {
		w.write(b)
	}
	w.write(seq)
}

func (w *Writer) write(b []byte) {
	if w.err == nil {
		_, w.err = w.bw.Write(b)
	}
}

// flush writes the bundle of every CPU with events, in CPU order: all cover
// the same span, after the previous flush's.
func (w *Writer) flush() {
	for i := range w.cpus {
		if w.cpus[i].n > 0 {
			w.flushCPU(int32(i))
		}
	}
}

// flushCPU writes CPU n's bundle.
func (w *Writer) flushCPU(n int32) {
	c := &w.cpus[n]
	head := appendVarint(nil, fBundleCPU, uint64(n))
	var tail []byte
	if c.lost {
		tail = appendVarint(tail, fBundleLostEvents, 1)
	}
	if !c.bundled && c.start >= 0 {
		tail = appendVarint(tail, fBundlePrevBundleEndTS, uint64(c.start))
	}
	size := len(head) + len(c.events) + len(tail)
	field := protowire.AppendTag(nil, fPacketFtraceEvents, protowire.BytesType)
	field = protowire.AppendVarint(field, uint64(size))
	w.packet(field, head, c.events, tail)
	w.pending -= c.n
	c.events, c.n, c.lost, c.bundled = c.events[:0], 0, false, true
}

// Close writes the buffered bundles (and an empty one for a CPU whose last
// events were lost), then the process tree as of end (or of the last
// event, if later), and flushes. It does not close the underlying writer.
func (w *Writer) Close(end int64) error {
	w.start()
	if w.err != nil {
		return w.err
	}
	for i := range w.cpus {
		if c := &w.cpus[i]; c.n > 0 || c.lost {
			w.flushCPU(int32(i))
		}
	}
	w.processTree(max(end, w.last, 0))
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	return w.err
}

// treeChunk is how many processes and threads one ProcessTree packet
// holds, so that no packet grows with the run.
const treeChunk = 1024

// processTree writes the ProcessTree packets: every thread whose group is
// known (tid, tgid, its latest comm), and the process of every group whose
// main thread the stream named (pid, its parent process where the fork was
// seen, and the main thread's comm as the command line, said to be one). trace_processor files a tree by its packet's time, and
// a tree at the end names the tasks that task_newtask has already made
// (one at the start would make them twice: a fork starts a new process).
func (w *Writer) processTree(ts int64) {
	pids := make([]int32, 0, len(w.tasks))
	groups := map[int32]bool{}
	for pid, t := range w.tasks {
		pids = append(pids, pid)
		groups[t.tgid] = true
	}
	slices.Sort(pids)
	procs := make([]int32, 0, len(groups))
	for g := range groups {
		procs = append(procs, g)
	}
	slices.Sort(procs)
	var body []byte
	items := 0
	emit := func() {
		if items == 0 {
			return
		}
		stamp := appendVarint(nil, fPacketTimestamp, uint64(ts))
		field := appendBytes(nil, fPacketProcessTree, body)
		w.packet(stamp, field)
		body, items = body[:0], 0
	}
	var msg []byte
	for _, g := range procs {
		// A process is named by its main thread; trace_processor skips
		// one without a command line, and its threads still make it.
		t := w.tasks[g]
		if t == nil || t.tgid != g || t.comm == "" {
			continue
		}
		msg = appendInt(msg[:0], fProcessPID, g)
		if t.hasPPID {
			msg = appendInt(msg, fProcessPPID, t.ppid)
		}
		msg = appendString(msg, fProcessCmdline, t.comm)
		msg = appendVarint(msg, fProcessCmdlineIsComm, 1)
		body = appendBytes(body, fProcessTreeProcesses, msg)
		if items++; items == treeChunk {
			emit()
		}
	}
	for _, pid := range pids {
		t := w.tasks[pid]
		msg = appendInt(msg[:0], fThreadTID, pid)
		msg = appendInt(msg, fThreadTGID, t.tgid)
		if t.comm != "" {
			msg = appendString(msg, fThreadName, t.comm)
		}
		body = appendBytes(body, fProcessTreeThreads, msg)
		if items++; items == treeChunk {
			emit()
		}
	}
	emit()
}

// Events returns the number of stream events written so far.
func (w *Writer) Events() int64 { return w.n }

// Convert writes the ftrace text r as a Perfetto trace to dst: trace.Parse
// into a Writer.
func Convert(dst io.Writer, r io.Reader, o Options) (*trace.ParseStats, error) {
	w := NewWriter(dst, o)
	st, err := trace.Parse(r, w)
	if err != nil {
		return st, err
	}
	return st, w.Close(0)
}

// prevState returns a switch's prev_state in the kernel's bits.
func prevState(e *trace.Event) uint64 {
	switch {
	case e.PID == 0: // the idle task is always runnable, never preempted
		return stateRunning
	case e.PrevState == trace.Running:
		return statePreempted
	case e.PrevState == trace.Sleeping:
		return stateInterruptible
	case e.PrevState == trace.Uninterruptible:
		return stateUninterruptible
	case e.PrevState == trace.Dead:
		return stateExitDead
	}
	return stateRunning
}

// comm is a task's name as the kernel gives it: the idle task is
// "swapper/CPU", and a name the stream lacks is "<...>", as in the text.
func (w *Writer) comm(c string, pid, cpu int32) string {
	switch {
	case pid == 0 && (c == "" || c == "swapper"):
		s := w.cpu(cpu)
		if s.idle == "" {
			s.idle = "swapper/" + strconv.Itoa(int(cpu))
		}
		return s.idle
	case c == "":
		return "<...>"
	}
	return c
}

func appendVarint(b []byte, f protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, f, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendInt appends an int32 field: a negative value is sign-extended to
// 64 bits, as protobuf encodes int32.
func appendInt(b []byte, f protowire.Number, v int32) []byte {
	return appendVarint(b, f, uint64(int64(v)))
}

func appendString(b []byte, f protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, f, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, f protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, f, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}
