package trace

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// CPUs is the header's #P, the number of CPUs of the recording.
	CPUs int
	// TGID prints tracefs's record-tgid column, "comm-pid (tgid) [cpu]",
	// with the thread groups the stream's forks give (ChildTGID), so that
	// a viewer such as Perfetto groups threads by process.
	TGID bool
	// Micro prints timestamps to the microsecond ("%5d.%06d"), exactly as
	// tracefs prints them. The default prints nanoseconds ("%5d.%09d",
	// as `trace-cmd report -t` does), so that a simulated trace read back
	// gives the simulation's latencies to the nanosecond.
	Micro bool
	// Meta is written as one "# schedlab: k=v k=v ..." comment after the
	// header (keys in the order given; a value's spaces become '_'), for
	// the parser to read back (ParseStats.Meta).
	Meta [][2]string
}

// Writer is a Sink that writes events as ftrace text in the layout of a
// 6.x kernel's tracefs "trace" file (docs/trace-format.md):
//
//	# tracer: nop
//	#
//	# entries-in-buffer/entries-written: 13377/13377   #P:1
//	# … the 6.x column legend …
//	            make-1001    [000] d..2.     0.004000123: sched_switch: prev_comm=make prev_pid=1001 …
//
// The TASK-PID column is the task the event happened in the context of:
// the previous task for sched_switch, the exiting task, the parent of a
// fork, a mark's writer, and for wakeups and migrations the task then
// running on the event's CPU (idle before its first switch). The flag
// columns are fixed per event kind ("d..2." for scheduler events, "....."
// for fork and exit, "...1." for marks): the simulator has no interrupt
// state to report. Application marks are tracing_mark_write lines with the
// payload of FormatMark.
//
// Lines are built without fmt and written through a 64 KiB buffer; Close
// flushes it. Write errors are sticky and returned by Close.
type Writer struct {
	dst   io.Writer
	bw    *bufio.Writer
	o     WriterOptions
	buf   []byte
	cur   []ctxTask // per CPU: the task running there
	tgid  map[int32]int32
	n     int64 // event lines written
	patch int64 // file offset of the entries line, -1 if it cannot be rewritten
	err   error
}

type ctxTask struct {
	pid  int32
	comm string
}

const entriesWidth = 79 // the entries line is padded to this width so that Close can rewrite it in place

// NewWriter writes the header to w and returns the Writer. When w is an
// io.WriterAt and io.Seeker at offset 0 (an *os.File just created), Close
// rewrites the header's entries-in-buffer/entries-written line with the
// number of events; otherwise the header has no such line.
func NewWriter(w io.Writer, o WriterOptions) *Writer {
	tw := &Writer{dst: w, bw: bufio.NewWriterSize(w, 64<<10), o: o, patch: -1}
	if o.CPUs < 1 {
		tw.o.CPUs = 1
	}
	if _, ok := w.(io.WriterAt); ok {
		if s, ok := w.(io.Seeker); ok {
			if off, err := s.Seek(0, io.SeekCurrent); err == nil && off == 0 {
				tw.patch = int64(len("# tracer: nop\n#\n"))
			}
		}
	}
	b := tw.buf[:0]
	b = append(b, "# tracer: nop\n#\n"...)
	if tw.patch >= 0 {
		b = append(b, tw.entriesLine(0)...)
		b = append(b, "#\n"...)
	}
	if o.TGID {
		b = append(b, header6xTGID...)
	} else {
		b = append(b, header6x...)
	}
	if len(o.Meta) > 0 {
		b = append(b, "# schedlab:"...)
		for _, kv := range o.Meta {
			b = append(b, ' ')
			b = append(b, kv[0]...)
			b = append(b, '=')
			b = append(b, strings.ReplaceAll(strings.TrimSpace(kv[1]), " ", "_")...)
		}
		b = append(b, '\n')
	}
	tw.write(b)
	tw.buf = b[:0]
	return tw
}

// header6x is the column legend of a 6.x tracefs "trace" file.
const header6x = `#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
`

// header6xTGID is the legend with record-tgid's column.
const header6xTGID = `#                                          _-----=> irqs-off/BH-disabled
#                                         / _----=> need-resched
#                                        | / _---=> hardirq/softirq
#                                        || / _--=> preempt-depth
#                                        ||| / _-=> migrate-disable
#                                        |||| /     delay
#           TASK-PID     TGID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |        |   |||||     |         |
`

func (w *Writer) entriesLine(n int64) []byte {
	b := []byte("# entries-in-buffer/entries-written: ")
	b = strconv.AppendInt(b, n, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, n, 10)
	b = append(b, "   #P:"...)
	b = strconv.AppendInt(b, int64(w.o.CPUs), 10)
	for len(b) < entriesWidth {
		b = append(b, ' ')
	}
	return append(b, '\n')
}

func (w *Writer) write(b []byte) {
	if w.err == nil {
		_, w.err = w.bw.Write(b)
	}
}

// Event implements Sink.
func (w *Writer) Event(e *Event) {
	b := w.buf[:0]
	switch e.Kind {
	case Lost:
		b = append(b, "CPU:"...)
		b = strconv.AppendInt(b, int64(e.CPU), 10)
		if e.Seq > 0 {
			b = append(b, " [LOST "...)
			b = strconv.AppendInt(b, e.Seq, 10)
			b = append(b, " EVENTS]\n"...)
		} else {
			b = append(b, " [EVENTS DROPPED]\n"...)
		}
		w.write(b)
		w.buf = b[:0]
		return
	case Begin: // the header says it (WriterOptions.CPUs)
		return
	case BufferStart:
		b = append(b, "##### CPU "...)
		b = strconv.AppendInt(b, int64(e.CPU), 10)
		b = append(b, " buffer started ####\n"...)
		w.write(b)
		w.buf = b[:0]
		return
	}
	ctx := w.context(e)
	switch e.Kind {
	case Switch:
		b = w.prefix(b, ctx, e, "d..2.", "sched_switch")
		b = append(b, "prev_comm="...)
		b = appendComm(b, e.Comm, e.PID, e.CPU)
		b = append(b, " prev_pid="...)
		b = strconv.AppendInt(b, int64(e.PID), 10)
		b = append(b, " prev_prio="...)
		b = strconv.AppendInt(b, int64(e.Prio), 10)
		b = append(b, " prev_state="...)
		switch {
		case e.PID == 0: // the idle task is always runnable, never preempted
			b = append(b, 'R')
		case e.PrevState == Running:
			b = append(b, "R+"...)
		case e.PrevState == Dead:
			b = append(b, 'X')
		default:
			b = append(b, e.PrevState.Letter()...)
		}
		b = append(b, " ==> next_comm="...)
		b = appendComm(b, e.NextComm, e.NextPID, e.CPU)
		b = append(b, " next_pid="...)
		b = strconv.AppendInt(b, int64(e.NextPID), 10)
		b = append(b, " next_prio="...)
		b = strconv.AppendInt(b, int64(e.NextPrio), 10)
		w.setCur(e.CPU, ctxTask{e.NextPID, e.NextComm})
	case Waking, Wakeup, WakeupNew:
		b = w.prefix(b, ctx, e, "d..2.", e.Kind.String())
		b = appendTask(b, "comm=", e.Comm, e.PID, e.CPU)
		b = append(b, " prio="...)
		b = strconv.AppendInt(b, int64(e.Prio), 10)
		b = append(b, " target_cpu="...)
		b = appendPad(b, int64(e.TargetCPU), 3, '0')
	case Fork:
		w.learnTGID(e.PID, e.TGID)
		w.learnTGID(e.ChildPID, e.ChildTGID)
		b = w.prefix(b, ctx, e, ".....", "sched_process_fork")
		b = appendTask(b, "comm=", e.Comm, e.PID, e.CPU)
		b = append(b, " child_comm="...)
		b = appendComm(b, e.ChildComm, e.ChildPID, e.CPU)
		b = append(b, " child_pid="...)
		b = strconv.AppendInt(b, int64(e.ChildPID), 10)
	case Exit:
		b = w.prefix(b, ctx, e, ".....", "sched_process_exit")
		b = appendTask(b, "comm=", e.Comm, e.PID, e.CPU)
		b = append(b, " prio="...)
		b = strconv.AppendInt(b, int64(e.Prio), 10)
		// A single-threaded process's exit ends its group (the simulated
		// processes are); a thread's does not.
		if g, ok := w.tgid[e.PID]; ok && g == e.PID {
			b = append(b, " group_dead=true"...)
		} else {
			b = append(b, " group_dead=false"...)
		}
	case Migrate:
		b = w.prefix(b, ctx, e, "d..2.", "sched_migrate_task")
		b = appendTask(b, "comm=", e.Comm, e.PID, e.CPU)
		b = append(b, " prio="...)
		b = strconv.AppendInt(b, int64(e.Prio), 10)
		b = append(b, " orig_cpu="...)
		b = strconv.AppendInt(b, int64(e.OrigCPU), 10)
		b = append(b, " dest_cpu="...)
		b = strconv.AppendInt(b, int64(e.DestCPU), 10)
	case Mark:
		b = w.prefix(b, ctx, e, "...1.", "tracing_mark_write")
		if g, ok := w.tgid[e.PID]; ok && e.TGID == 0 {
			m := *e
			m.TGID = g
			b = AppendMark(b, &m)
		} else {
			b = AppendMark(b, e)
		}
	default:
		return
	}
	b = append(b, '\n')
	w.n++
	w.write(b)
	w.buf = b[:0]
}

// learnTGID keeps a task's thread group for the record-tgid column.
func (w *Writer) learnTGID(pid, tgid int32) {
	if tgid == 0 || !w.o.TGID {
		return
	}
	if w.tgid == nil {
		w.tgid = map[int32]int32{}
	}
	w.tgid[pid] = tgid
}

// context returns the task in whose context e is printed.
func (w *Writer) context(e *Event) ctxTask {
	switch e.Kind {
	case Switch, Fork, Exit, Mark:
		return ctxTask{e.PID, e.Comm}
	}
	if e.CPU >= 0 && int(e.CPU) < len(w.cur) {
		return w.cur[e.CPU]
	}
	return ctxTask{}
}

func (w *Writer) setCur(cpu int32, t ctxTask) {
	if cpu < 0 || cpu > 1<<16 {
		return
	}
	for int(cpu) >= len(w.cur) {
		w.cur = append(w.cur, ctxTask{})
	}
	w.cur[cpu] = t
}

// prefix appends "%16s-%-7d [%03d] FLAGS %5d.%09d: NAME: ".
func (w *Writer) prefix(b []byte, ctx ctxTask, e *Event, flags, name string) []byte {
	comm := ctx.comm
	if ctx.pid == 0 {
		comm = "<idle>"
	} else if comm == "" {
		comm = "<...>"
	}
	for i := len(comm); i < 16; i++ {
		b = append(b, ' ')
	}
	b = appendClean(b, comm)
	b = append(b, '-')
	n := len(b)
	b = strconv.AppendInt(b, int64(ctx.pid), 10)
	for len(b)-n < 7 {
		b = append(b, ' ')
	}
	if w.o.TGID {
		b = append(b, " ("...)
		if g, ok := w.tgid[ctx.pid]; ok || ctx.pid == 0 {
			b = appendPad(b, int64(g), 7, ' ')
		} else {
			b = append(b, "-------"...)
		}
		b = append(b, ')')
	}
	b = append(b, " ["...)
	b = appendPad(b, int64(e.CPU), 3, '0')
	b = append(b, "] "...)
	b = append(b, flags...)
	b = append(b, ' ')
	ts := e.TS
	if ts < 0 {
		b = append(b, '-')
		ts = -ts
	}
	b = appendPad(b, ts/1e9, 5, ' ')
	b = append(b, '.')
	if w.o.Micro {
		b = appendPad(b, ts%1e9/1e3, 6, '0')
	} else {
		b = appendPad(b, ts%1e9, 9, '0')
	}
	b = append(b, ": "...)
	b = append(b, name...)
	return append(b, ": "...)
}

// appendComm appends a payload comm; the idle task is "swapper/CPU", as
// 6.x kernels name it, and a missing comm is "<...>".
func appendComm(b []byte, comm string, pid, cpu int32) []byte {
	switch {
	case pid == 0 && (comm == "" || comm == "swapper"):
		b = append(b, "swapper/"...)
		return strconv.AppendInt(b, int64(max(cpu, 0)), 10)
	case comm == "":
		return append(b, "<...>"...)
	}
	return appendClean(b, comm)
}

// appendClean appends s with control characters (a newline would end the
// line) replaced by '?'.
func appendClean(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			b = append(b, '?')
		} else {
			b = append(b, c)
		}
	}
	return b
}

func appendTask(b []byte, key, comm string, pid, cpu int32) []byte {
	b = append(b, key...)
	b = appendComm(b, comm, pid, cpu)
	b = append(b, " pid="...)
	return strconv.AppendInt(b, int64(pid), 10)
}

// appendPad appends v right-aligned in width, padded with pad.
func appendPad(b []byte, v int64, width int, pad byte) []byte {
	var tmp [20]byte
	d := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, pad)
	}
	return append(b, d...)
}

// Close writes the trailer "# schedlab: end_ns=END events=N" (END is when
// the recording ended: a simulation's end time), flushes the buffer and,
// where it can, rewrites the header's entries line with the event count.
// It does not close the underlying writer.
func (w *Writer) Close(end int64) error {
	b := append(w.buf[:0], "# schedlab: end_ns="...)
	b = strconv.AppendInt(b, end, 10)
	b = append(b, " events="...)
	b = strconv.AppendInt(b, w.n, 10)
	b = append(b, '\n')
	w.write(b)
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	if w.err == nil && w.patch >= 0 {
		_, w.err = w.dst.(io.WriterAt).WriteAt(w.entriesLine(w.n), w.patch)
	}
	return w.err
}

// Events returns the number of event lines written so far.
func (w *Writer) Events() int64 { return w.n }
