package trace

// Putting a trace's events in time order, and telling damage from order.
//
// A Sink needs events in time order, and the text of a tracefs "trace"
// file, of trace-cmd report and of perf script is already merged across
// CPUs by time. But trace_pipe interleaves CPUs only roughly, a
// concatenation restarts the clock, and one corrupted line can put a
// timestamp years ahead; taking the text's order as the truth then makes
// every later event look as if it went back in time. What holds in every
// real trace is narrower: each CPU's events are in time order, because each
// CPU's ring buffer is written in order. So the orderer judges each event
// by its own CPU's neighbours, and merges the CPUs with a reorder window,
// as trace-cmd and perf merge their per-CPU streams:
//
//   - An event is judged once lookahead more entries have been read (or at
//     the end of the input), against its CPU's last accepted event before
//     it and its CPU's next events after it (up to voters of them, not
//     counting any that are themselves before that last accepted event):
//     earlier than its CPU's previous event, it is damage (Backwards);
//     later than two or more of its CPU's next events, or than more of
//     them than not, it jumped ahead and is damage (ForwardJumps). The
//     vote is what keeps one bad line from costing more than itself,
//     whichever way it jumped.
//   - With no next event of its CPU in sight, the next events of the other
//     CPUs vote instead, allowing them crossSlack of disorder: real text
//     interleaves CPUs to within microseconds, a corruption is off by far
//     more.
//   - With no event after it at all (the trace's last), nothing can vouch
//     for it: it is damage when it jumps more than maxJump past the trace,
//     unless the trace's previous step was as long (a sparse trace is
//     sparse throughout). This rule is the only one that can drop an event
//     of a time-ordered stream, and it never drops one twice: after the
//     drop, the trace ends on a short step.
//   - Accepted events wait in a window of `window` events and leave it in
//     order of time, then of text, so text that is already in order comes
//     out unchanged. An event whose time the output has already passed
//     (further out of place than the window reaches) is damage (Late);
//     one the window moved back is counted (Reordered). Real disorder
//     (trace_pipe's) spans a few events; the window is kept small because
//     every event passes through it.
//   - Lost and BufferStart annotations take the time of the next accepted
//     event in the text, the event they were printed before.

const (
	lookahead  = 256                // entries read after an event before it is judged
	voters     = 8                  // next events that judge one
	window     = 1 << 12            // accepted events held to restore time order
	crossSlack = int64(1e9)         // disorder allowed between CPUs (ns)
	maxJump    = int64(24 * 3600e9) // an unconfirmed last step longer than this is damage (ns)
	noSeq      = ^uint64(0)         // no entry
)

func isAnnotation(k Kind) bool { return k == Lost || k == BufferStart }

// entry is an event waiting in the lookahead, with its place in the text.
type entry struct {
	ev   Event
	seq  uint64 // text order
	line int
	next uint64 // seq of the next entry of the same CPU, or noSeq
}

// held is the order of an event in the window: time, then text.
type held struct {
	ts   int64
	seq  uint64
	slot int32 // a stray's index in orderer.store
}

type timed struct {
	ev Event
	k  held
}

type orderer struct {
	sink Sink
	st   *ParseStats

	ring       []entry // undecided entries, seq s at ring[s%lookahead]
	first, end uint64  // seqs [first, end) are in the ring
	tail       []uint64
	last       []int64 // CPU → TS of its last accepted event
	seen       []bool  // CPU → it has an accepted event
	floating   []entry // annotations waiting for the next accepted event
	run        []timed // the window's FIFO, at run[(runHead+i) mod len(run)]
	runHead    int
	runLen     int
	strays     []held // the window's heap, of events in store
	store      []Event
	free       []int32
	out        int64 // TS of the last event handed to the sink
	delivered  bool
	max1, max2 int64 // the latest two accepted timestamps (max2 ≤ max1)
	accepted   int
}

func newOrderer(sink Sink, st *ParseStats) *orderer {
	return &orderer{sink: sink, st: st, ring: make([]entry, lookahead)}
}

func (o *orderer) cpu(c int32) int {
	for int(c) >= len(o.last) {
		o.last, o.seen, o.tail = append(o.last, 0), append(o.seen, false), append(o.tail, noSeq)
	}
	return int(c)
}

// add takes the next event of the text (copied); line is its line number.
func (o *orderer) add(e *Event, line int) {
	if o.end-o.first == lookahead {
		o.decide()
	}
	seq := o.end
	o.end++
	en := &o.ring[seq%lookahead]
	*en = entry{ev: *e, seq: seq, line: line, next: noSeq}
	if isAnnotation(e.Kind) {
		return
	}
	c := o.cpu(e.CPU)
	if t := o.tail[c]; t != noSeq && t >= o.first {
		o.ring[t%lookahead].next = seq
	}
	o.tail[c] = seq
}

// begin passes on a header's CPU count at once, at the output's time: it
// is no event of the recording and needs no place among them.
func (o *orderer) begin(cpus int32) {
	o.sink.Event(&Event{TS: o.out, Kind: Begin, CPU: -1, CPUs: cpus})
}

// finish judges what is left and empties the window.
func (o *orderer) finish() {
	for o.first < o.end {
		o.decide()
	}
	// Annotations after the last event take the trace's last time.
	for i := range o.floating {
		o.floating[i].ev.TS = o.max1
		o.hold(&o.floating[i])
	}
	o.floating = o.floating[:0]
	for o.runLen+len(o.strays) > 0 {
		o.pop()
	}
}

type verdict uint8

const (
	accept verdict = iota
	backwards
	forward
)

// decide judges the oldest entry of the lookahead.
func (o *orderer) decide() {
	en := &o.ring[o.first%lookahead]
	o.first++
	if isAnnotation(en.ev.Kind) {
		o.floating = append(o.floating, *en)
		return
	}
	switch o.judge(en) {
	case backwards:
		o.damage(&o.st.Backwards, &o.st.BackwardsLine, en.line)
		return
	case forward:
		o.damage(&o.st.ForwardJumps, &o.st.ForwardJumpLine, en.line)
		return
	}
	c := int(en.ev.CPU)
	o.last[c], o.seen[c] = en.ev.TS, true
	if o.delivered && en.ev.TS < o.out {
		o.damage(&o.st.Late, &o.st.LateLine, en.line)
		return
	}
	if o.accepted > 0 && en.ev.TS < o.max1 {
		o.st.Reordered++
	}
	switch {
	case o.accepted == 0:
		o.max1, o.max2 = en.ev.TS, en.ev.TS
	case en.ev.TS >= o.max1:
		o.max1, o.max2 = en.ev.TS, o.max1
	case en.ev.TS > o.max2:
		o.max2 = en.ev.TS
	}
	o.accepted++
	for i := range o.floating {
		o.floating[i].ev.TS = en.ev.TS
		o.hold(&o.floating[i])
	}
	o.floating = o.floating[:0]
	o.hold(en)
}

// damage counts a skipped event and keeps the line of the first of its kind.
func (o *orderer) damage(count, first *int, line int) {
	if *count == 0 {
		*first = line
	}
	*count++
}

// judge says whether en keeps its CPU's time order with its neighbours.
func (o *orderer) judge(en *entry) verdict {
	c, ts := int(en.ev.CPU), en.ev.TS
	if o.seen[c] && ts < o.last[c] {
		return backwards
	}
	ahead, with := 0, 0
	n := 0
	for s := en.next; s != noSeq && n < voters; n++ {
		v := &o.ring[s%lookahead]
		s = v.next
		if o.seen[c] && v.ev.TS < o.last[c] {
			continue // already out of order itself: no say
		}
		if v.ev.TS < ts {
			ahead++
		} else {
			with++
		}
	}
	if ahead+with == 0 {
		n = 0
		for s := en.seq + 1; s < o.end && n < voters; s++ {
			v := &o.ring[s%lookahead]
			d := int(v.ev.CPU)
			if isAnnotation(v.ev.Kind) || d == c {
				continue
			}
			n++
			if o.seen[d] && v.ev.TS < o.last[d] {
				continue
			}
			if v.ev.TS < ts-crossSlack {
				ahead++
			} else {
				with++
			}
		}
	}
	// Keeping en would cost the next events it is ahead of (they would
	// come out as going backwards); dropping it costs one. So it goes
	// when it is ahead of two or more, or when it is ahead of more than
	// not. (One event ahead of it, among others that are not, is more
	// likely that one's damage: it will go as Backwards.)
	if ahead >= 2 || ahead > with {
		return forward
	}
	if ahead+with == 0 && o.accepted > 0 && ts-o.max1 > maxJump && o.max1-o.max2 <= maxJump {
		return forward
	}
	return accept
}

// The window holds accepted events in two parts: a FIFO of those that
// came in time order (in real text, nearly all: holding them costs a copy
// and no comparison beyond the tail's), and a heap of the strays that came
// after a later event. Its earliest is the earlier of the FIFO's head and
// the heap's top.

// hold puts an accepted entry in the window, and passes the window's
// earliest on when the window is full.
func (o *orderer) hold(en *entry) {
	k := en.key()
	if o.runLen == 0 || !k.less(&o.run[(o.runHead+o.runLen-1)&(len(o.run)-1)].k) {
		if o.runLen == len(o.run) {
			o.growRun()
		}
		r := &o.run[(o.runHead+o.runLen)&(len(o.run)-1)]
		r.ev, r.k = en.ev, k
		o.runLen++
	} else {
		o.pushStray(en)
	}
	if o.runLen+len(o.strays) > window {
		o.pop()
	}
}

func (en *entry) key() held { return held{ts: en.ev.TS, seq: en.seq} }

// growRun doubles the FIFO (a power of two, so that an index wraps with a
// mask), keeping its order.
func (o *orderer) growRun() {
	n := max(64, 2*len(o.run))
	run := make([]timed, n)
	for i := 0; i < o.runLen; i++ {
		run[i] = o.run[(o.runHead+i)&(len(o.run)-1)]
	}
	o.run, o.runHead = run, 0
}

func (o *orderer) pushStray(en *entry) {
	var i int32
	if n := len(o.free); n > 0 {
		i, o.free = o.free[n-1], o.free[:n-1]
	} else {
		i = int32(len(o.store))
		o.store = append(o.store, Event{})
	}
	o.store[i] = en.ev
	k := en.key()
	k.slot = i
	h := append(o.strays, k)
	for j := len(h) - 1; j > 0; {
		parent := (j - 1) / 2
		if !h[j].less(&h[parent]) {
			break
		}
		h[j], h[parent] = h[parent], h[j]
		j = parent
	}
	o.strays = h
}

func (a *held) less(b *held) bool {
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	return a.seq < b.seq
}

// pop hands the window's earliest event to the sink.
func (o *orderer) pop() {
	if o.runLen > 0 && (len(o.strays) == 0 || o.run[o.runHead].k.less(&o.strays[0])) {
		r := &o.run[o.runHead]
		o.runHead = (o.runHead + 1) & (len(o.run) - 1)
		o.runLen--
		o.deliver(&r.ev)
		return
	}
	h := o.strays
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for j := 0; ; {
		l := 2*j + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && h[r].less(&h[l]) {
			l = r
		}
		if !h[l].less(&h[j]) {
			break
		}
		h[j], h[l] = h[l], h[j]
		j = l
	}
	o.strays = h
	o.free = append(o.free, top.slot)
	o.deliver(&o.store[top.slot])
}

func (o *orderer) deliver(e *Event) {
	st := o.st
	if !o.delivered {
		st.First = e.TS
	}
	o.delivered, o.out, st.Last = true, e.TS, e.TS
	switch {
	case e.Kind == Mark:
		st.Marks++
	case isAnnotation(e.Kind): // counted as their lines were read
	default:
		st.SchedEvents++
		st.Kinds[e.Kind]++
	}
	o.sink.Event(e)
}
