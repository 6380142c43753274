package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// Parse reads scheduler events from ftrace text and hands them to sink in
// time order. It reads
//
//   - a tracefs "trace" or "trace_pipe" file of any kernel since 2.6.27:
//     0, 4 or 5 flag columns, pid widths 5 or 7, an optional "(TGID)"
//     column, key=value payloads and the positional payloads of 2.6.28–31;
//   - `trace-cmd report` text, with or without its sched plugin's
//     payloads ("prev:pid [prio] S ==> next:pid [prio]"), with -t
//     (nanosecond) timestamps and with --ts-diff;
//   - `perf script` text of the sched tracepoints ("comm pid [cpu] ts:
//     sched:sched_switch: ...");
//
// and what schedlab's Writer writes (docs/trace-format.md). Lines are
// anchored on the "[CPU]" column, so a comm may contain spaces, dashes
// and brackets. The events used are sched_switch, sched_waking,
// sched_wakeup, sched_wakeup_new, sched_process_fork, sched_process_exit,
// sched_migrate_task and schedlab's tracing_mark_write marks (see
// ParseMark); other events are counted and skipped.
//
// Parse is robust to what real traces contain and counts each case in the
// returned ParseStats instead of failing: lines it cannot read, lost-events
// lines (tracefs "CPU:N [LOST M EVENTS]", trace-cmd "CPU:N [M EVENTS
// DROPPED]", which become Lost events), "##### CPU N buffer started ####"
// annotations (BufferStart events), a header whose entries-in-buffer is
// below entries-written, failed wakeups (success=0, dropped), and a last
// line without its newline (a truncated file: that line is ignored).
//
// Events whose CPUs interleave out of time order are put back in order
// within a reorder window; an event whose timestamp cannot be placed
// (unreadable, before its CPU's previous event, ahead of its CPU's next
// events, or further out of place than the window reaches) is dropped
// and counted as damage, and costs only itself (order.go says how).
//
// The error is an I/O error, or a *FormatError when the input is empty,
// binary, has no event lines, has events but no scheduler events and no
// schedlab marks, or most of its scheduler events and marks are unusable.
func Parse(r io.Reader, sink Sink) (*ParseStats, error) {
	p := &parser{comms: map[string]string{}, st: ParseStats{Meta: map[string]string{}}}
	p.ord = newOrderer(sink, &p.st)
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4096)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return &p.st, err
	}
	if len(head) == 0 {
		return &p.st, &FormatError{"is empty"}
	}
	if msg := sniffBinary(head); msg != "" {
		return &p.st, &FormatError{msg}
	}
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer is not a trace line.
			p.lineNo++
			p.st.Lines++
			p.bad(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return &p.st, err
			}
			continue
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			p.line(line[:len(line)-1])
		} else if len(bytes.TrimSpace(line)) > 0 {
			p.lineNo++
			p.st.Lines++
			p.st.TruncatedLast = true
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return &p.st, err
		}
	}
	p.ord.finish()
	p.st.finish(p)
	if p.st.EventLines == 0 && p.st.TruncatedLast && p.firstText == "" {
		return &p.st, &FormatError{"has no complete line: its only line has no newline, so it was taken as cut off (add the newline)"}
	}
	if p.st.EventLines == 0 {
		first := p.firstText
		if first == "" {
			return &p.st, &FormatError{"has no ftrace event lines (TASK-PID [CPU] TIMESTAMP: EVENT: ...)"}
		}
		return &p.st, &FormatError{fmt.Sprintf("has no ftrace event lines (TASK-PID [CPU] TIMESTAMP: EVENT: ...); line %d reads %q", p.firstTextLine, first)}
	}
	if msg := p.st.damaged(); msg != "" {
		return &p.st, &FormatError{msg}
	}
	if p.st.SchedEvents == 0 && p.st.Marks == 0 {
		return &p.st, &FormatError{fmt.Sprintf("has %d event lines but no sched_switch, sched_waking, sched_wakeup, sched_wakeup_new, sched_process_fork, sched_process_exit or sched_migrate_task event and no schedlab mark: enable the sched events when recording (events/sched/<name>/enable)", p.st.EventLines)}
	}
	return &p.st, nil
}

// FormatError says why an input is not a trace Parse can read.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return e.Msg }

// ParseStats count what Parse read, skipped and repaired.
type ParseStats struct {
	Format string // what the text looked like, e.g. "tracefs text, 5 flag columns (6.x)"

	Lines       int // lines read, comments and blanks included
	EventLines  int // lines in the TASK-PID [CPU] TIMESTAMP: EVENT: layout
	SchedEvents int // scheduler events handed to the sink
	Kinds       [16]int
	Marks       int // schedlab marks handed to the sink
	BadMarks    int // schedlab marks with missing or malformed fields (skipped)
	OtherMarks  int // tracing_mark_write lines that are not schedlab marks (skipped)
	// OtherSignals are signal_generate lines of signals other than a
	// POSIX timer's queued for a thread (skipped).
	OtherSignals int
	Other        []NameCount
	Unparsable   int        // lines that are neither comments nor readable events
	Examples     []LineText // the first few of them
	BadPayload   int        // sched events whose payload lacked a needed field (skipped)

	TruncatedLast bool // the last line had no newline and was ignored
	LostLines     int  // lost-events lines (each became a Lost event)
	LostEvents    int64
	LostUnknown   int   // lost-events lines that do not say how many
	Overwritten   int64 // header: entries-written minus entries-in-buffer
	BufferStarts  int   // "CPU N buffer started" annotations (BufferStart events)
	FailedWakeups int   // wakeups with success=0 (dropped)
	RawClock      bool  // timestamps without a fraction (trace_clock counter or x86-tsc): taken as ns

	// Timestamp damage: scheduler events and schedlab marks dropped
	// because their time cannot be placed (order.go), each count with the
	// line of its first. Damaged is their sum.
	BadTimestamps    int // negative, or too large to be a trace clock (over 9e9 s)
	BadTimestampLine int
	BadTimestampText string // that line, shortened
	Backwards        int    // before the previous event of its CPU
	BackwardsLine    int
	ForwardJumps     int // ahead of the next events of its CPU (or of the other CPUs'; for the trace's last event, a day past the rest)
	ForwardJumpLine  int
	Late             int // further out of time order than the reorder window reaches
	LateLine         int
	// Reordered counts events that came after a later event in the text
	// and were put back in time order (repaired, not dropped).
	Reordered int

	HeaderCPUs int   // #P: of the tracefs header or cpus= of trace-cmd, 0 if absent
	CPUs       int   // highest CPU number seen plus one
	First      int64 // first and last event timestamps (ns)
	Last       int64
	// Meta holds the key=value pairs of "# schedlab:" comment lines
	// (a schedlab Writer's header and trailer).
	Meta map[string]string

	flags                 [8]int // event lines per number of flag columns (7: other)
	positional, kv        int
	perfStyle, traceCmd   bool
	tracer                string
	entriesIn, entriesAll int64
	haveEntries           bool
	other                 map[string]int
}

// Damaged is the number of scheduler events and schedlab marks dropped
// because their timestamps could not be placed.
func (st *ParseStats) Damaged() int {
	return st.BadTimestamps + st.Backwards + st.ForwardJumps + st.Late
}

// Unusable is the number of scheduler events and schedlab marks the
// analysis cannot use: their timestamps are damaged or their fields
// missing. (Failed wakeups and other events are not damage: they are
// skipped by design.)
func (st *ParseStats) Unusable() int { return st.Damaged() + st.BadPayload + st.BadMarks }

// damaged says, when most of the scheduler events and marks were unusable,
// why: a report of what is left would describe a fraction of the trace as
// if it were the whole.
func (st *ParseStats) damaged() string {
	bad := st.Unusable()
	all := bad + st.SchedEvents + st.Marks
	if bad == 0 || 2*bad <= all {
		return ""
	}
	var why []string
	add := func(n, line int, what string) {
		if n > 0 {
			why = append(why, fmt.Sprintf("%d %s (first at line %d)", n, what, line))
		}
	}
	if st.BadTimestamps > 0 {
		why = append(why, fmt.Sprintf("%d with a negative or out-of-range timestamp (first at line %d: %q)", st.BadTimestamps, st.BadTimestampLine, st.BadTimestampText))
	}
	add(st.Backwards, st.BackwardsLine, "earlier than their CPU's previous event")
	add(st.ForwardJumps, st.ForwardJumpLine, "ahead of their CPU's next events")
	add(st.Late, st.LateLine, fmt.Sprintf("more than %d events out of time order", window))
	if st.BadPayload > 0 {
		why = append(why, fmt.Sprintf("%d lacking a needed field", st.BadPayload))
	}
	if st.BadMarks > 0 {
		why = append(why, fmt.Sprintf("%d schedlab marks lacking a field", st.BadMarks))
	}
	return fmt.Sprintf("is too damaged to analyse: %d of its %d scheduler events and marks are unusable (%s)", bad, all, strings.Join(why, ", "))
}

// NameCount is an event name and how many lines had it.
type NameCount struct {
	Name  string
	Count int
}

// LineText is a line number and (the start of) its text.
type LineText struct {
	Line int
	Text string
}

func (st *ParseStats) finish(p *parser) {
	if st.haveEntries && st.entriesAll > st.entriesIn {
		st.Overwritten = st.entriesAll - st.entriesIn
	}
	for name, n := range st.other {
		st.Other = append(st.Other, NameCount{name, n})
	}
	sort.Slice(st.Other, func(i, j int) bool {
		if st.Other[i].Count != st.Other[j].Count {
			return st.Other[i].Count > st.Other[j].Count
		}
		return st.Other[i].Name < st.Other[j].Name
	})
	var parts []string
	switch {
	case st.perfStyle:
		parts = append(parts, "perf script text")
	case st.traceCmd:
		parts = append(parts, "trace-cmd report text")
	case st.tracer != "":
		parts = append(parts, "tracefs text (tracer "+st.tracer+")")
	default:
		parts = append(parts, "ftrace text")
	}
	best, bestN := -1, 0
	for i, n := range st.flags {
		if n > bestN {
			best, bestN = i, n
		}
	}
	switch best {
	case 0:
		parts = append(parts, "no flag columns (2.6-era layout)")
	case 4:
		parts = append(parts, "4 flag columns (kernels up to 5.12)")
	case 5:
		parts = append(parts, "5 flag columns (6.x layout)")
	case -1:
	default:
		parts = append(parts, fmt.Sprintf("%d flag columns", best))
	}
	if st.positional > 0 {
		parts = append(parts, fmt.Sprintf("%d positional payloads (2.6.28-31 or trace-cmd's sched plugin)", st.positional))
	}
	st.Format = strings.Join(parts, ", ")
}

type parser struct {
	st    ParseStats
	ord   *orderer
	ev    Event
	comms map[string]string

	lineNo        int
	firstText     string
	firstTextLine int
	text          string // the current line, valid while it is read
	badTS         bool   // the current line's timestamp is unreadable

	// The TASK-PID column of the current line.
	taskPID  int32
	taskComm string
}

const maxCPU = 1 << 16

func sniffBinary(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x17\x08\x44tracing")):
		return "is a trace-cmd binary file (trace.dat): convert it with `trace-cmd report FILE > FILE.txt` and analyze the text"
	case bytes.HasPrefix(head, []byte("PERFILE2")) || bytes.HasPrefix(head, []byte("PERFFILE")):
		return "is a perf.data file: convert it with `perf script -i FILE > FILE.txt` and analyze the text"
	case bytes.HasPrefix(head, []byte("\x1f\x8b")):
		return "is gzip-compressed: decompress it first (gunzip)"
	case bytes.HasPrefix(head, []byte("\xfd7zXZ")), bytes.HasPrefix(head, []byte("\x28\xb5\x2f\xfd")), bytes.HasPrefix(head, []byte("BZh")):
		return "is compressed (xz, zstd or bzip2): decompress it first"
	}
	ctl := 0
	for i, c := range head {
		if c == 0 {
			return fmt.Sprintf("is not text (a NUL byte at offset %d): not an ftrace text trace", i)
		}
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b {
			ctl++
		}
	}
	if ctl*50 > len(head) {
		return "is not text (binary data): not an ftrace text trace"
	}
	return ""
}

func (p *parser) bad(b []byte) {
	p.st.Unparsable++
	if len(p.st.Examples) < 3 {
		t := string(b)
		if len(t) > 100 {
			t = t[:100] + "…"
		}
		p.st.Examples = append(p.st.Examples, LineText{p.lineNo, strings.ToValidUTF8(t, "?")})
	}
}

func (p *parser) line(b []byte) {
	p.lineNo++
	p.st.Lines++
	// A comment starts the line; an event line whose comm starts with '#'
	// has it right-aligned after spaces.
	comment := len(b) > 0 && b[0] == '#'
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	s := unsafe.String(unsafe.SliceData(b), len(b)) // valid until the next read; nothing keeps it
	p.text = s
	if p.firstText == "" {
		p.firstText, p.firstTextLine = strings.Clone(s), p.lineNo
		if len(p.firstText) > 80 {
			p.firstText = p.firstText[:80] + "…"
		}
		p.firstText = strings.ToValidUTF8(p.firstText, "?")
	}
	switch {
	case comment:
		p.comment(s)
		return
	case strings.HasPrefix(s, "CPU:"):
		if p.lost(s) {
			return
		}
	case strings.HasPrefix(s, "cpus="):
		if n, ok := atoi(s[5:]); ok {
			p.setCPUs(n)
			p.st.traceCmd = true
			return
		}
	case strings.HasPrefix(s, "version = "), strings.HasPrefix(s, "CPU ") && strings.HasSuffix(s, " is empty"):
		p.st.traceCmd = true
		return
	}
	if !p.event(s) {
		p.bad(b)
	}
}

func (p *parser) comment(s string) {
	switch {
	case strings.HasPrefix(s, "##### CPU ") && strings.HasSuffix(s, " buffer started ####"):
		n, ok := atoi(strings.TrimSuffix(strings.TrimPrefix(s, "##### CPU "), " buffer started ####"))
		if ok && n < maxCPU {
			p.st.BufferStarts++
			p.ord.add(&Event{Kind: BufferStart, CPU: int32(n)}, p.lineNo)
		}
	case strings.HasPrefix(s, "# tracer:"):
		p.st.tracer = strings.Clone(strings.TrimSpace(s[len("# tracer:"):]))
	case strings.HasPrefix(s, "# entries-in-buffer/entries-written:"):
		f := strings.Fields(s[len("# entries-in-buffer/entries-written:"):])
		if len(f) >= 1 {
			a, b, ok := strings.Cut(f[0], "/")
			x, ok1 := atoi(a)
			y, ok2 := atoi(b)
			if ok && ok1 && ok2 {
				p.st.entriesIn, p.st.entriesAll, p.st.haveEntries = x, y, true
			}
		}
		for _, t := range f {
			if n, ok := atoi(strings.TrimPrefix(t, "#P:")); ok && strings.HasPrefix(t, "#P:") {
				p.setCPUs(n)
			}
		}
	case strings.HasPrefix(s, "# schedlab:"):
		for _, kv := range strings.Fields(s[len("# schedlab:"):]) {
			if k, v, ok := strings.Cut(kv, "="); ok && len(p.st.Meta) < 64 {
				p.st.Meta[strings.Clone(k)] = strings.Clone(v)
				if n, ok := atoi(v); ok && k == "cpus" {
					p.setCPUs(n)
				}
			}
		}
	}
}

// setCPUs passes on a header's CPU count as a Begin event: CPUs that never
// show an event still count for some statistics.
func (p *parser) setCPUs(n int64) {
	if n < 1 || n > maxCPU {
		return
	}
	p.st.HeaderCPUs = max(p.st.HeaderCPUs, int(n))
	p.ord.begin(int32(p.st.HeaderCPUs))
}

// lost reads "CPU:N [LOST M EVENTS]", "CPU:N [M EVENTS DROPPED]" and
// "CPU:N [EVENTS DROPPED]".
func (p *parser) lost(s string) bool {
	cpuText, rest, ok := strings.Cut(s[4:], " ")
	cpu, ok2 := atoi(cpuText)
	if !ok || !ok2 || cpu >= maxCPU {
		return false
	}
	rest = strings.TrimSpace(rest)
	var n int64 = -1
	switch {
	case len(rest) > len("[LOST  EVENTS]") && strings.HasPrefix(rest, "[LOST ") && strings.HasSuffix(rest, " EVENTS]"):
		v, ok := atoi(rest[len("[LOST ") : len(rest)-len(" EVENTS]")])
		if !ok {
			return false
		}
		n = v
	case rest == "[EVENTS DROPPED]":
		n = 0
	case len(rest) > len("[ EVENTS DROPPED]") && strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, " EVENTS DROPPED]"):
		v, ok := atoi(rest[1 : len(rest)-len(" EVENTS DROPPED]")])
		if !ok {
			return false
		}
		n = v
	default:
		return false
	}
	p.st.LostLines++
	if n > 0 {
		p.st.LostEvents += n
	} else {
		p.st.LostUnknown++
	}
	p.ord.add(&Event{Kind: Lost, CPU: int32(cpu), Seq: n}, p.lineNo)
	return true
}

// event reads one event line; false means it is not one.
func (p *parser) event(s string) bool {
	// Try every "[digits]" between a space (or the ')' of a TGID column)
	// and a space as the CPU column, so that a comm with brackets in it
	// does not stop the line. (A comm holding "-PID [CPU] TIMESTAMP:
	// EVENT:" itself is ambiguous in the kernel's format too.) The
	// column is near the start (a comm has at most 15 bytes on Linux; the
	// first KiB leaves room for padding, a TGID column and the long comms
	// a simulated workload may have), which also keeps a long garbage line
	// from costing time quadratic in its length.
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '[')
		if i < 0 || from+i > 1024 {
			return false
		}
		i += from
		from = i + 1
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 || j+1 >= len(s) || s[j] != ']' || (s[j+1] != ' ' && s[j+1] != '\t') || i == 0 || (s[i-1] != ' ' && s[i-1] != ')') {
			continue
		}
		cpu, ok := atoi(s[i+1 : j])
		if !ok || cpu >= maxCPU {
			continue
		}
		perf, ok := p.task(s[:i])
		if !ok {
			continue
		}
		ts, name, payload, flags, ok := p.afterCPU(s[j+1:])
		if !ok {
			continue
		}
		p.badTS = ts < 0
		p.st.EventLines++
		p.st.perfStyle = p.st.perfStyle || perf
		if flags > 6 {
			flags = 7
		}
		p.st.flags[flags]++
		if int(cpu)+1 > p.st.CPUs {
			p.st.CPUs = int(cpu) + 1
		}
		p.dispatch(int32(cpu), ts, name, payload)
		return true
	}
}

// task reads the TASK-PID column: "comm-pid", "comm-pid (tgid)" or, from
// perf script, "comm pid".
func (p *parser) task(s string) (perf, ok bool) {
	s = strings.TrimRight(s, " ")
	// trace-cmd report puts the buffer's name first when it reports an
	// instance: "schedlab-1234:       bash-4242  [001] ...".
	if p.st.traceCmd {
		if i := strings.Index(s, ": "); i > 0 && !strings.ContainsAny(s[:i], " \t") {
			s = s[i+2:]
		}
	}
	if strings.HasSuffix(s, ")") {
		open := strings.LastIndexByte(s, '(')
		if open < 0 {
			return false, false
		}
		s = strings.TrimRight(s[:open], " ")
	}
	k := len(s)
	for k > 0 && s[k-1] >= '0' && s[k-1] <= '9' {
		k--
	}
	if k == len(s) || k == 0 || len(s)-k > 10 {
		return false, false
	}
	pid, ok := atoi(s[k:])
	if !ok || pid > 1<<31-1 {
		return false, false
	}
	var comm string
	switch s[k-1] {
	case '-':
		comm = strings.TrimLeft(s[:k-1], " ")
	case ' ':
		comm = strings.TrimSpace(s[:k-1])
		perf = true
	default:
		return false, false
	}
	p.taskPID = int32(pid)
	switch comm {
	case "<...>", "<idle>":
		p.taskComm = ""
	default:
		p.taskComm = p.intern(comm)
	}
	return perf, true
}

// afterCPU reads "[FLAGS] TIMESTAMP: [(+diff)] EVENT: PAYLOAD". A
// timestamp that has a number's shape but no usable value (negative, or
// too large) still makes an event line, with ts -1: the line is damaged,
// not something other than a trace.
func (p *parser) afterCPU(s string) (ts int64, name, payload string, flags int, ok bool) {
	tok, rest := nextToken(s)
	if !strings.HasSuffix(tok, ":") || !isNumber(tok[:len(tok)-1]) {
		if tok == "" || strings.ContainsRune(tok, ':') {
			return
		}
		flags = len(tok)
		tok, rest = nextToken(rest)
		if !strings.HasSuffix(tok, ":") || !isNumber(tok[:len(tok)-1]) {
			return
		}
	}
	ts, ok = p.timestamp(tok[:len(tok)-1])
	if !ok {
		ts = -1
	}
	tok, rest = nextToken(rest)
	if strings.HasPrefix(tok, "(+") && strings.HasSuffix(tok, ")") { // trace-cmd report --ts-diff
		tok, rest = nextToken(rest)
	}
	if len(tok) < 2 || !strings.HasSuffix(tok, ":") {
		ok = false
		return
	}
	name = tok[:len(tok)-1]
	if c := strings.LastIndexByte(name, ':'); c >= 0 { // perf script: "sched:sched_switch"
		name = name[c+1:]
	}
	return ts, name, strings.TrimSpace(rest), flags, name != ""
}

func nextToken(s string) (tok, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// isNumber says whether s has a timestamp's shape, perhaps with a sign.
func isNumber(s string) bool { return isTimestamp(strings.TrimPrefix(s, "-")) }

// isTimestamp says whether s is digits with at most one '.' after the
// first.
func isTimestamp(s string) bool {
	if s == "" {
		return false
	}
	dot := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !dot && i > 0:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

// timestamp converts "secs.frac" (any number of fraction digits) or a raw
// integer count to nanoseconds. Seconds up to 9e9 keep nanoseconds within
// int64; no trace clock comes near (CLOCK_TAI, the one that counts from
// 1970, is at 1.8e9).
func (p *parser) timestamp(s string) (int64, bool) {
	secText, frac, dot := strings.Cut(s, ".")
	sec, ok := atoi(secText)
	if !ok {
		return 0, false
	}
	if !dot {
		p.st.RawClock = true
		return sec, true
	}
	if sec > 9e9 || frac == "" {
		return 0, false
	}
	var ns int64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			ns += int64(c - '0')
		}
	}
	for i := 9; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return 0, false
		}
	}
	return sec*1e9 + ns, true
}

func (p *parser) intern(s string) string {
	if c, ok := p.comms[s]; ok {
		return c
	}
	c := strings.Clone(s)
	if len(p.comms) < 1<<16 {
		p.comms[c] = c
	}
	return c
}

var (
	switchKeys  = []string{"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"}
	wakeKeys    = []string{"comm", "pid", "prio", "success", "target_cpu"}
	forkKeys    = []string{"comm", "pid", "child_comm", "child_pid", "parent_comm", "parent_pid"}
	exitKeys    = []string{"comm", "pid", "prio"}
	signalKeys  = []string{"sig", "code", "comm", "pid", "grp", "res"}
	migrateKeys = []string{"comm", "pid", "prio", "orig_cpu", "dest_cpu"}
)

func (p *parser) dispatch(cpu int32, ts int64, name, payload string) {
	e := &p.ev
	*e = Event{TS: ts, CPU: cpu}
	var ok bool
	switch name {
	case "sched_switch":
		e.Kind = Switch
		ok = p.switchEvent(e, payload)
	case "sched_waking", "sched_wakeup", "sched_wakeup_new":
		switch name {
		case "sched_waking":
			e.Kind = Waking
		case "sched_wakeup":
			e.Kind = Wakeup
		default:
			e.Kind = WakeupNew
		}
		var failed bool
		ok, failed = p.wakeEvent(e, payload)
		if failed {
			p.st.FailedWakeups++
			return
		}
	case "sched_process_fork":
		e.Kind = Fork
		ok = p.forkEvent(e, payload)
	case "sched_process_exit":
		e.Kind = Exit
		ok = p.exitEvent(e, payload)
	case "sched_migrate_task":
		e.Kind = Migrate
		ok = p.migrateEvent(e, payload)
	case "signal_generate":
		var timer bool
		if timer, ok = p.signalEvent(e, payload); ok && !timer {
			p.st.OtherSignals++
			return
		}
		e.Kind = TimerSignal
	case "tracing_mark_write", "print", "0":
		if name == "print" {
			// trace-cmd prints "print: tracing_mark_write: TEXT".
			if tok, rest := nextToken(payload); strings.HasSuffix(tok, ":") {
				payload = rest
			}
		}
		e.Kind, e.PID, e.Comm = Mark, p.taskPID, p.taskComm
		switch parseMark(payload, e) {
		case markOther:
			p.st.OtherMarks++
			return
		case markBad:
			p.st.BadMarks++
			return
		}
		p.emit(e)
		return
	default:
		if p.st.other == nil {
			p.st.other = map[string]int{}
		}
		if _, seen := p.st.other[name]; seen || len(p.st.other) < 256 {
			p.st.other[p.intern(name)]++
		}
		return
	}
	if !ok {
		p.st.BadPayload++
		return
	}
	p.emit(e)
}

// emit hands e on to be put in time order (the orderer counts it when it
// reaches the sink), unless its timestamp was unreadable.
func (p *parser) emit(e *Event) {
	if p.badTS {
		if p.st.BadTimestamps == 0 {
			p.st.BadTimestampLine, p.st.BadTimestampText = p.lineNo, shorten(p.text, 100)
		}
		p.st.BadTimestamps++
		return
	}
	p.ord.add(e, p.lineNo)
}

// shorten copies the start of s, as valid UTF-8. (A copy: s may be a view
// of the read buffer, and ToValidUTF8 returns valid text as it is.)
func shorten(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "?") + "…"
	}
	return strings.Clone(strings.ToValidUTF8(s, "?"))
}

// kv finds key=value fields of payload. A token that does not start with
// one of keys continues the value of a comm field (a comm with spaces) and
// ends any other; "==>" ends a field. fields[i] is the value of keys[i], set[i] whether it
// was found. It returns false when the payload does not start with a key.
func kv(payload string, keys []string, fields []string, set []bool) bool {
	cur := -1
	start, end := 0, 0
	for i := 0; i < len(payload); {
		for i < len(payload) && payload[i] == ' ' {
			i++
		}
		if i >= len(payload) {
			break
		}
		j := i
		for j < len(payload) && payload[j] != ' ' {
			j++
		}
		tok := payload[i:j]
		k := -1
		if eq := strings.IndexByte(tok, '='); eq > 0 {
			for n, key := range keys {
				if key == tok[:eq] {
					k = n
					break
				}
			}
			if k >= 0 {
				if cur >= 0 {
					fields[cur] = payload[start:end]
				}
				cur, start, end = k, i+eq+1, j
				set[k] = true
			}
		}
		if k < 0 {
			switch {
			case cur < 0 && i == 0:
				return false
			case cur >= 0 && tok != "==>" && strings.HasSuffix(keys[cur], "comm"):
				end = j // a comm with a space in it
			case cur >= 0:
				// "==>", or an unknown field after a value: it ends the value.
				fields[cur] = payload[start:end]
				cur = -1
			}
		}
		i = j
	}
	if cur >= 0 {
		fields[cur] = payload[start:end]
	}
	return true
}

func (p *parser) switchEvent(e *Event, payload string) bool {
	var f [7]string
	var set [7]bool
	if kv(payload, switchKeys, f[:], set[:]) {
		p.st.kv++
		if !set[1] || !set[5] {
			return false
		}
		prev, ok1 := atoi32(f[1])
		next, ok2 := atoi32(f[5])
		if !ok1 || !ok2 {
			return false
		}
		e.PID, e.NextPID = prev, next
		e.Comm, e.NextComm = p.comm(f[0]), p.comm(f[4])
		e.Prio, _ = atoi32(f[2])
		e.NextPrio, _ = atoi32(f[6])
		e.PrevState = stateOf(f[3])
		return true
	}
	// Positional: "[task ]prev:pid [prio] [(]S[)] ==> next:pid [prio]".
	left, right, ok := strings.Cut(payload, " ==> ")
	if !ok {
		return false
	}
	p.st.positional++
	left = strings.TrimSpace(strings.TrimPrefix(left, "task "))
	state := "S"
	if t := lastField(left); t != "" && t != left && isState(strings.Trim(t, "()")) {
		state = strings.Trim(t, "()")
		left = strings.TrimSpace(left[:len(left)-len(t)])
	}
	var okL, okR bool
	e.Comm, e.PID, e.Prio, okL = p.commPidPrio(left)
	e.NextComm, e.NextPID, e.NextPrio, okR = p.commPidPrio(right)
	e.PrevState = stateOf(state)
	return okL && okR
}

func (p *parser) wakeEvent(e *Event, payload string) (ok, failed bool) {
	var f [5]string
	var set [5]bool
	if kv(payload, wakeKeys, f[:], set[:]) {
		p.st.kv++
		pid, ok := atoi32(f[1])
		if !set[1] || !ok {
			return false, false
		}
		if set[3] && f[3] == "0" {
			return true, true
		}
		e.PID, e.Comm = pid, p.comm(f[0])
		e.Prio, _ = atoi32(f[2])
		e.TargetCPU, _ = atoi32(f[4])
		return true, false
	}
	// Positional: "[task ]comm:pid [prio] [success=N] [CPU:NNN|[NNN]]"
	// or 2.6.28's "task comm:pid succeeded|failed".
	p.st.positional++
	s := strings.TrimSpace(strings.TrimPrefix(payload, "task "))
	if t := lastField(s); t != s {
		switch {
		case strings.HasPrefix(t, "CPU:"):
			e.TargetCPU, _ = atoi32(t[4:])
			s = strings.TrimSpace(s[:len(s)-len(t)])
		case strings.HasPrefix(t, "[") && strings.Contains(s, "success="):
			e.TargetCPU, _ = atoi32(strings.Trim(t, "[]"))
			s = strings.TrimSpace(s[:len(s)-len(t)])
		}
	}
	if t := lastField(s); t != s {
		switch {
		case strings.HasPrefix(t, "success="):
			if t == "success=0" {
				return true, true
			}
			s = strings.TrimSpace(s[:len(s)-len(t)])
		case t == "failed":
			return true, true
		case t == "succeeded":
			s = strings.TrimSpace(s[:len(s)-len(t)])
		}
	}
	var okp bool
	e.Comm, e.PID, e.Prio, okp = p.commPidPrio(s)
	return okp, false
}

func (p *parser) forkEvent(e *Event, payload string) bool {
	var f [6]string
	var set [6]bool
	if kv(payload, forkKeys, f[:], set[:]) {
		p.st.kv++
		if !set[1] && set[5] { // parent_comm/parent_pid spelling
			f[0], f[1], set[1] = f[4], f[5], true
		}
		parent, ok1 := atoi32(f[1])
		child, ok2 := atoi32(f[3])
		if !set[1] || !set[3] || !ok1 || !ok2 {
			return false
		}
		e.PID, e.Comm = parent, p.comm(f[0])
		e.ChildPID, e.ChildComm = child, p.comm(f[2])
		return true
	}
	// 2.6.31: "parent comm:pid  child comm:pid".
	s, ok := strings.CutPrefix(payload, "parent ")
	if !ok {
		return false
	}
	p.st.positional++
	par, ch, ok := strings.Cut(s, " child ")
	if !ok {
		return false
	}
	var okP, okC bool
	e.Comm, e.PID, _, okP = p.commPidPrio(par)
	e.ChildComm, e.ChildPID, _, okC = p.commPidPrio(ch)
	return okP && okC
}

func (p *parser) exitEvent(e *Event, payload string) bool {
	var f [3]string
	var set [3]bool
	if kv(payload, exitKeys, f[:], set[:]) {
		p.st.kv++
		pid, ok := atoi32(f[1])
		if !set[1] || !ok {
			return false
		}
		e.PID, e.Comm = pid, p.comm(f[0])
		e.Prio, _ = atoi32(f[2])
		return true
	}
	s, ok := strings.CutPrefix(payload, "task ")
	if !ok {
		return false
	}
	p.st.positional++
	e.Comm, e.PID, e.Prio, ok = p.commPidPrio(s)
	return ok
}

// signalEvent reads signal_generate ("sig=32 errno=0 code=-2 comm=C
// pid=P grp=0 res=0"); timer says whether it is a POSIX timer's signal
// (code SI_TIMER, -2) queued for one thread (grp=0) and not found
// already pending or ignored (res=0): a TimerSignal.
func (p *parser) signalEvent(e *Event, payload string) (timer, ok bool) {
	var f [6]string
	var set [6]bool
	if !kv(payload, signalKeys, f[:], set[:]) || !set[1] || !set[3] {
		return false, false
	}
	code, ok1 := atoi32(f[1])
	pid, ok2 := atoi32(f[3])
	if !ok1 || !ok2 {
		return false, false
	}
	e.PID, e.Comm = pid, p.comm(f[2])
	return code == -2 && f[4] == "0" && f[5] == "0", true
}

func (p *parser) migrateEvent(e *Event, payload string) bool {
	var f [5]string
	var set [5]bool
	if kv(payload, migrateKeys, f[:], set[:]) {
		p.st.kv++
		pid, ok := atoi32(f[1])
		o, ok1 := atoi32(f[3])
		d, ok2 := atoi32(f[4])
		if !set[1] || !ok || !ok1 || !ok2 {
			return false
		}
		e.PID, e.Comm = pid, p.comm(f[0])
		e.Prio, _ = atoi32(f[2])
		e.OrigCPU, e.DestCPU = o, d
		return true
	}
	// 2.6.31: "task comm:pid [prio] from: N  to: M".
	s, ok := strings.CutPrefix(payload, "task ")
	if !ok {
		return false
	}
	p.st.positional++
	task, cpus, ok := strings.Cut(s, " from: ")
	if !ok {
		return false
	}
	from, to, ok := strings.Cut(cpus, " to: ")
	if !ok {
		return false
	}
	o, ok1 := atoi32(strings.TrimSpace(from))
	d, ok2 := atoi32(strings.TrimSpace(to))
	var okT bool
	e.Comm, e.PID, e.Prio, okT = p.commPidPrio(task)
	e.OrigCPU, e.DestCPU = o, d
	return ok1 && ok2 && okT
}

// commPidPrio reads "comm:pid" with an optional " [prio]".
func (p *parser) commPidPrio(s string) (comm string, pid, prio int32, ok bool) {
	s = strings.TrimSpace(s)
	if t := lastField(s); t != s && strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		prio, _ = atoi32(t[1 : len(t)-1])
		s = strings.TrimSpace(s[:len(s)-len(t)])
	}
	c := strings.LastIndexByte(s, ':')
	if c < 0 {
		return "", 0, 0, false
	}
	pid, ok = atoi32(s[c+1:])
	if !ok {
		return "", 0, 0, false
	}
	return p.comm(s[:c]), pid, prio, true
}

// comm interns a payload comm; "<...>" (unknown) becomes "".
func (p *parser) comm(s string) string {
	if s == "" || s == "<...>" {
		return ""
	}
	return p.intern(s)
}

func lastField(s string) string {
	i := strings.LastIndexByte(s, ' ')
	return s[i+1:]
}

func isState(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("RSDTtXZxWPIKN+|", rune(s[i])) {
			return false
		}
	}
	return true
}

// stateOf maps a prev_state string to a TaskState: R (with or without
// the 6.x "+" of a preempted task) is Running, D Uninterruptible, X, Z
// and x (2.6.35's TASK_DEAD) Dead, anything else Sleeping.
func stateOf(s string) TaskState {
	if s == "" {
		return Sleeping
	}
	switch s[0] {
	case 'R':
		return Running
	case 'D':
		return Uninterruptible
	case 'X', 'Z', 'x':
		return Dead
	}
	return Sleeping
}

// atoi parses a non-negative decimal of at most 18 digits.
func atoi(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// atoi32 parses a decimal int32, with an optional sign.
func atoi32(s string) (int32, bool) {
	n, err := strconv.ParseInt(s, 10, 32)
	return int32(n), err == nil
}
