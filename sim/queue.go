package sim

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"schedlab/internal/cpumask"
)

// timerKind says what an expiring timer means to the engine.
type timerKind uint8

const (
	tkTick     timerKind = iota + 1 // a CPU's periodic scheduler tick
	tkHRTick                        // a CPU's high-resolution slice timer
	tkWorkDone                      // the running task used up its current CPU work
	tkWake                          // a sleeping task's wakeup (sleep or rt-app timer)
	tkStart                         // an initial task's start (after its delay)
	tkPosix                         // a POSIX interval timer's expiry
	tkResched                       // a marked task reaches schedule() (cost_resched_ns)
	tkClass                         // the class stack's timer (RT bandwidth period)
	tkKThread                       // a kernel thread's wakeup at a tick (kthreads.go)
)

// timer is one pending occurrence in the event queue. Owners embed their
// timers and re-arm them, so the queue never allocates per event.
//
// A timer is 32 bytes: a Task's two hot timers (wakeT, doneT) are within
// the lines a wakeup touches, and each of their bytes is one more line in
// the cache for every sleeping task (see Task).
type timer struct {
	when int64
	seq  uint64 // arming number of its entry ·2^idBits (its key's); 0 when not armed
	// owner is what the timer belongs to, by kind: the *Task of a
	// tkWorkDone, tkWake or tkStart timer, the *CPU of a tkTick,
	// tkHRTick or tkResched one, the *posixTimer of a tkPosix one; nil
	// for the others. (One word for the three pointers it was.)
	owner unsafe.Pointer
	// id is the timer's number in the queue (0: none yet), which it
	// keeps while unarmed (see number).
	id   int32
	kind timerKind
	// phase distinguishes the two steps of a timer-driven wakeup: the
	// expiry itself, then the wakeup after the wakeup-path cost.
	phase uint8
	// once: the timer's owner is gone (forget), so its number goes back
	// when its entry leaves the queue.
	once bool
}

func (t *timer) armed() bool { return t.seq != 0 }

// taskTimer, cpuTimer and posixTimerOf make a timer of kind k for its
// owner.
func taskTimer(k timerKind, t *Task) timer { return timer{kind: k, owner: unsafe.Pointer(t)} }
func cpuTimer(k timerKind, c *CPU) timer   { return timer{kind: k, owner: unsafe.Pointer(c)} }
func posixTimerOf(pt *posixTimer) timer    { return timer{kind: tkPosix, owner: unsafe.Pointer(pt)} }

// task, cpu and ptmr are the timer's owner, for a caller that knows the
// timer's kind.
func (t *timer) task() *Task       { return (*Task)(t.owner) }
func (t *timer) cpu() *CPU         { return (*CPU)(t.owner) }
func (t *timer) ptmr() *posixTimer { return (*posixTimer)(t.owner) }

// taskOrNil is the task of a task's timer, and nil for any other.
func (t *timer) taskOrNil() *Task {
	switch t.kind {
	case tkWorkDone, tkWake, tkStart:
		return t.task()
	}
	return nil
}

// eventQueue is the engine's pending timers, ordered by time, then by
// arming order, so that equal times fire in the order they were armed and
// runs are deterministic. Cancelling takes the timer's entry out and
// re-arming moves it, found by its position in loc, so the queue holds
// the armed timers and nothing else (lazily cancelled entries, left until
// their time, made the busy workload's heap four times its 16 timers).
//
// The entries hold no pointers: a 16-byte {when, seq·2^24 + id} naming
// the timer by its number (its slot in loc). Moving one is a plain copy
// and a write to the dense loc array, never into the timers, which sit in
// thousands of task structs, and with no write barrier while the garbage
// collector runs; the collector never scans the entries.
//
// Past splitAt timers the queue splits: those due before horizon are
// near, the others far. With thousands of tasks asleep, their wakeups
// wait far, and the ticks, work and reschedule timers that make most
// events come and go through a near part of a few entries instead of
// through all of them (a pop of 10,000 entries was a quarter of the
// run's time). An entry is near exactly when it is due before the
// horizon (math.MaxInt64 while the queue is whole), so a re-arming or a
// cancel knows from the timer's time which part holds it. The far
// timers wait unordered in buckets, a timer wheel of two levels as the
// kernel's was before 4.8: the current block of
// time (2^blockBits ns, in 2^r0 buckets) in ring0, a bucket each; the
// next 2^ringBits − 1 blocks in ring1, a bucket a block; those
// beyond in a heap (late). When the near part runs dry (peek finds it
// empty), the next bucket of ring0 that holds any timer moves over whole
// and the horizon to its end. The near part is then a sorted run, as a
// small whole queue is, unless the bucket brings nearMax timers or more
// (then the near heap h): they are due after every near timer, so they
// go in at the run's back, ordered among themselves by a few shifts
// each, and leave from its front, where the heap's pop sifted down
// through four children a level (1 CPU with 10,000 tasks 1,207 → 990
// instructions an event); an arming that fills the run makes it the
// near heap until the next refill. When the block is used up, the next
// block's bucket of ring1 is spread over ring0 (each timer moves down at
// most once) and the late timers that ring1 now spans move into it. A
// far heap did the same, but every wakeup's way out of it was a
// sift-down through ten thousand entries, a cache miss a level (a third
// of the misses of 10,000 tasks on one CPU); a bucket is an append and,
// when its time comes, a sequential read. A block is divided into as
// many buckets (up to 2^ring0Bits) as bring the near heap about
// perBucket timers each, counted when it begins (ring0 is empty then,
// so the division can change), or as the last block's buckets brought,
// if more (passed: with a task a CPU most are armed during the block):
// one CPU with 10,000 tasks has a few dozen timers a block, which go
// to the near part in one or a few buckets (finer ones there cost more
// in refills and in moves down from ring1 than they saved), 1,024 CPUs
// take 4 µs buckets, which keep the near part to a few dozen timers
// (with the far heap's 1 ms window it held a millisecond of every CPU's
// ticks, work and wakeups, thousands). The order is (when, arming) in
// the near part and every near entry is due before every far one, so
// the earliest timer is the near part's and the order is the whole
// heap's. A queue of fewer timers than it splits at (splitAt, or
// smallSplitAt on a machine of fewer CPUs than nearMax: sizeFor) stays
// whole, and a whole queue of fewer than runMax timers (the seed loads
// keep three to eight) is not a heap but a sorted run (sortedRun).
type eventQueue struct {
	// small: the near entries (all, while the queue is whole) are in
	// run; otherwise the queue is big, and they are in h. A whole queue
	// grows out of the run at runMax entries and goes back to it at
	// runMin; a split one's near part at nearMax, and back when a refill
	// finds it empty. Before its first number the queue is big (and
	// empty), since peek of a run reads q.loc[0].t.
	small bool
	// whole: small and not split, the case of arm's and pop's fast
	// paths (set with them by setForm). A split queue's run takes the
	// slow paths, which test the horizon and refill: in the fast ones,
	// those tests cost the seed loads 1 %.
	whole bool
	run   sortedRun
	h     heap4
	loc   []loc // by id: the timer and where its entry is
	free  []int32
	seq   uint64 // the last arming's number ·2^idBits
	// split: the far structures are in use, and horizon (a bucket's
	// start) divides near from far: h holds the entries due before it.
	split   bool
	horizon int64
	// block is the current block (due in [block, block+1)·2^blockBits),
	// which holds the horizon (or ends at it). ring0.b[b & (2^r0−1)]
	// holds the far entries of the block's bucket b (due in [b, b+1)·
	// 2^bucketBits, bucketBits = blockBits − r0), ring1.b[k & (n−1)] those
	// of block k, for the n−1 blocks after the current one. late holds the
	// entries past ring1.
	block          int64
	r0, bucketBits int
	mask0          int // 2^r0 − 1
	// passed counts the far entries that buckets have moved to the near
	// part in the current block, for the next block's division (setR0).
	passed       int
	ring0, ring1 wheel
	late         heap4
	// spare holds the arrays of emptied buckets for the next bucket to
	// fill: a bucket's array would otherwise sit unused until its slot's
	// next turn, and every bucket would grow its own (tens of thousands
	// of allocations before 10,000 tasks' run settled).
	spare []heap4
	// blockBits, ringBits and ring0Bits size the blocks, ring1 and ring0,
	// and per the timers a bucket is meant to bring (defaults when
	// ringBits is 0; tests set others), and splitN and joinN the sizes
	// that split and join the queue (splitAt and joinAt when 0).
	blockBits, ringBits, ring0Bits, per int
	splitN, joinN                       int
	// runN and heapN: the sizes that end and begin the run (runMax, or
	// nearMax while split, and runMin when 0; tests set others); runTop
	// is the first, or, while the queue is whole, splitN if less
	// (wholeTop), set with the first number and when the queue splits or
	// joins.
	runN, heapN, runTop int
	// dead: the near heap's root is the entry of the timer popped last,
	// not yet taken out. Nearly every event arms a timer before the
	// next peek (a tick its next tick, a task's work its next piece),
	// and that arming takes the dead root's place and sifts down once,
	// instead of a removal's sift-down and an insertion's sift-up. The
	// dead entry is the least of all, so it stays at the root while other
	// entries move; anything that could carry an entry above it (a
	// re-arming, a cancel, a split, a renumbering) takes it out first.
	// Only a whole queue defers: a split one's next peek would refill
	// the near heap, and the dead root would have to be out first.
	dead bool
	// warmth is the sum of what warm read (warm.go), kept only so that
	// its reads are not dead code.
	warmth uint64
}

// loc is a numbered timer's slot: the timer (nil: the number is free),
// the index i of its entry in h, its bucket or late, and, while the
// queue is split, which of them holds it (in). They share a slot because
// an event reads or writes them together: a pop reads the timer, its
// re-arming or a cancel both the index and the part. With 10,000 tasks'
// timers the slots are spread over 30,000 numbers, and three arrays
// (timers, pos, where) were up to three cache misses an arming.
type loc struct {
	t  *timer
	i  int32
	in where
}

// wheel is one level of the timer wheel: its buckets, unordered (heap4
// only for the type), which of them hold any entry, and how many they
// hold in all. (One pointer to it is what put and take are passed.)
type wheel struct {
	b    []heap4
	full cpumask.Mask
	n    int
}

// where says which far part of a split queue holds a timer's entry
// (a near entry's is not read: it is near by its time).
type where uint8

const (
	inNear where = iota
	inRing0
	inRing1
	inLate
)

// A block is 2^22 ns (4.2 ms), in up to 2^10 buckets (4.1 µs), and
// ring1 spans 2^13 blocks (34 s): a sleep longer than that waits in the
// late heap until ring1 reaches it. perBucket is the timers a bucket is
// meant to bring the near part: 16 keep it a run (below nearMax) with
// 256 and 1,024 CPUs' ticks, work ends and wakeups, where 32 in up to
// 2^7 buckets (33 µs) made it a heap of a few dozen to hundreds (256
// CPUs with 10,000 tasks 1,613 → 1,499 instructions an event, 1,024
// CPUs 1,697 → 1,543). (Blocks of 1 ms sent most ticks and work ends at
// 1,024 CPUs through ring1 first; blocks of 34 ms sent most wakeups on
// one CPU through both rings.)
const blockBits, ringBits, ring0Bits, perBucket = 22, 13, 10, 16

// A whole queue splits when it reaches splitAt timers, and a split one
// is made whole again when its near heap runs dry with fewer than
// joinAt in all; on a machine of fewer than nearMax CPUs, at
// smallSplitAt and smallJoinAt (sizeFor).
//
// A whole heap of a few hundred random wakeups pays for its sift-downs:
// split at 256 rather than 512, one CPU with 300 and 500 sleeping tasks
// cost 972 and 978 instructions an event instead of 1,172 and 1,216
// (more than with 10,000 tasks, 968), and 64 CPUs with 256 tasks 1,392
// instead of 1,456. Lower still, the seed loads on 64 CPUs cost 10-16 %
// more at 128 (sigev-thread 1,144 → 1,326): their 64 ticks come due
// together, more than a near run holds (nearMax), and each refill makes
// the near part a heap. With fewer CPUs than that the split pays from
// 24 timers, before the run is full (runMax), and the whole heap is not
// used: one CPU with 40, 60 and 100 tasks cost 1,116, 1,121 and 1,164
// instructions an event whole and 959, 965 and 969 split, 2 CPUs with 30
// 1,383 and 1,273, 8 with 40 1,441 and 1,355, 32 with 128 1,484 and
// 1,389; and one CPU with 25 and 30 tasks 1,020 and 1,065 in a run of
// 32, whose insertions and cancels shift half of it, and 959 and 961
// split at 24. The seed loads on one CPU, whose timers fit the run,
// and the busy engine are unchanged.
const (
	splitAt, joinAt           = 256, 64
	smallSplitAt, smallJoinAt = 24, 6
)

// sizeFor sets the sizes at which the new queue of a machine of ncpu
// CPUs splits and joins: smallSplitAt and smallJoinAt with fewer CPUs
// than nearMax, else splitAt and joinAt (splitN and joinN left 0).
func (q *eventQueue) sizeFor(ncpu int) {
	if ncpu < nearMax {
		q.splitN, q.joinN = smallSplitAt, smallJoinAt
	}
}

// The run becomes a heap at runMax entries (an arming's shifts, up to a
// quarter of them on average, then cost what a sift-down does), and a
// whole heap becomes a run again at runMin, apart enough that a queue
// does not go back and forth.
const runMax, runMin = 32, 12

// A split queue's near run becomes the near heap at nearMax entries
// (until the next refill). It can be longer than a whole run: its
// timers leave from the front, and most armings go far, so the shifts
// are only the few near armings' (with 33 µs buckets, nearMax 56 against
// 32 took 256 CPUs with 10,000 tasks from 1,613 to 1,573 instructions an
// event, 16 CPUs from 1,569 to 1,527). The run holds at most runCap − 2
// before an arming.
const nearMax = 56

type entry struct {
	when int64
	key  uint64 // seq<<idBits | id: seq is unique, so key orders as seq
}

// idBits bounds the timers numbered at once, armed or keeping their
// number (16.7 million: a task's three timers for each of
// workload.MaxThreads' 4.2 million threads are 12.6 million); seq has the
// other 40 bits, and the queue renumbers when they run out.
const idBits = 24

func (a *entry) less(b *entry) bool {
	return a.when < b.when || a.when == b.when && a.key < b.key
}

func (e *entry) id() int32 { return int32(e.key & (1<<idBits - 1)) }

// arm schedules t at when, replacing any earlier arming.
//
// The common case, a numbered timer going into the run, is all arm does
// itself, with no call before the insertion but a re-arming's removal
// (values live across a call are kept on the stack); the others are
// armSlow's.
func (q *eventQueue) arm(t *timer, when int64) {
	// The number is kept shifted, as it goes in a key, so that the
	// increment's wrap to 0 says the bits are used up.
	q.seq += 1 << idBits
	if q.seq == 0 || t.id == 0 || !q.whole {
		if q.small && q.seq != 0 && t.id != 0 {
			q.armRun(t, when) // most armings of a split queue
			return
		}
		q.armSlow(t, when)
		return
	}
	if t.armed() {
		q.run.remove(t.key())
	}
	t.when, t.seq = when, q.seq
	if s := (entry{when: when, key: t.key()}); !q.run.insertFront(s) {
		q.run.insertBack(s)
	}
	if q.run.len() >= q.runTop {
		q.grown()
	}
}

// armSlow is arm when the arming numbers are used up, t has no number
// yet, or the queue is not a whole run; q.seq is the arming's.
func (q *eventQueue) armSlow(t *timer, when int64) {
	if q.seq == 0 {
		q.bury()
		q.renumber()
		q.seq += 1 << idBits
	}
	if t.id == 0 {
		q.number(t)
	}
	if q.small {
		// (The renumbering may have changed the queue's form.)
		if q.whole {
			if t.armed() {
				q.run.remove(t.key())
			}
			t.when, t.seq = when, q.seq
			q.run.insert(entry{when: when, key: t.key()})
			if q.run.len() >= q.runTop {
				q.grown()
			}
		} else {
			q.armRun(t, when)
		}
		return
	}
	far := q.split && when >= q.horizon
	wasArmed, old := t.armed(), t.when
	t.when, t.seq = when, q.seq
	if wasArmed {
		// A later arming number and any time: the entry may go either
		// way in its heap, or to another part.
		q.bury()
		s := entry{when: when, key: q.seq | uint64(t.id)}
		i := int(q.loc[t.id].i)
		if q.split && (far || old >= q.horizon) {
			q.move(t.id, i, old, far, s)
			return
		}
		if h := q.h; i > 0 && s.less(&h[(i-1)/arity]) {
			h.up(q.loc, i, s)
		} else {
			h.down(q.loc, i, s)
		}
		return
	}
	s := entry{when: when, key: q.seq | uint64(t.id)}
	if far {
		q.place(s)
		return
	}
	if q.dead {
		// The dead root's place, with the heap's length unchanged.
		q.dead = false
		q.h.down(q.loc, 0, s)
		return
	}
	q.h = append(q.h, entry{})
	q.h.up(q.loc, len(q.h)-1, s)
	q.maybeSplit()
}

// armRun is arm of a numbered timer, with numbers to spare, in a split
// queue whose near part is a run: the entries due before the horizon
// are in the run, the others far.
func (q *eventQueue) armRun(t *timer, when int64) {
	if t.armed() {
		if t.when >= q.horizon {
			q.unplace(t.id, int(q.loc[t.id].i), t.when)
		} else {
			q.run.remove(t.key())
		}
	}
	t.when, t.seq = when, q.seq
	s := entry{when: when, key: t.key()}
	if when >= q.horizon {
		q.place(s)
		return
	}
	if !q.run.insertFront(s) {
		q.run.insertNearer(s)
	}
	if q.run.len() >= q.runTop {
		q.grown()
	}
}

// setForm sets small and split, and whole with them.
func (q *eventQueue) setForm(small, split bool) {
	q.small, q.split, q.whole = small, split, small && !split
}

// grown moves a run that has reached runTop to the heap.
func (q *eventQueue) grown() {
	q.toHeap()
	q.maybeSplit()
}

// key returns an armed timer's entry's key.
func (t *timer) key() uint64 { return t.seq | uint64(t.id) }

// maybeSplit splits a whole heap that has grown to splitAt.
func (q *eventQueue) maybeSplit() {
	if !q.split && len(q.h) >= cmp.Or(q.splitN, splitAt) {
		q.splitHeap()
	}
}

// toHeap moves the run's entries to the heap, which is empty: in order,
// they are a heap.
func (q *eventQueue) toHeap() {
	q.setForm(false, q.split)
	q.h = q.h[:0]
	for ; q.run.head != q.run.tail; q.run.popFirst() {
		s := q.run.first()
		q.loc[s.id()].i = int32(len(q.h))
		q.h = append(q.h, *s)
	}
}

// maybeRun makes a whole heap that has shrunk to runMin a run again, and
// says whether it did. The heap must have no dead root (bury).
func (q *eventQueue) maybeRun() bool {
	if q.split || len(q.h) > cmp.Or(q.heapN, runMin) {
		return false
	}
	q.setForm(true, false)
	for _, s := range q.h {
		q.run.insert(s)
	}
	q.h = q.h[:0]
	return true
}

// place files a far entry (due at or after the horizon) in its bucket
// of ring0 or ring1, or in late.
func (q *eventQueue) place(s entry) {
	id := s.id()
	blk := q.blockOf(s.when)
	switch {
	case blk == q.block:
		q.put(&q.ring0, q.slot0(s.when), inRing0, s)
	case blk-q.block < int64(len(q.ring1.b)):
		q.put(&q.ring1, int(blk)&(len(q.ring1.b)-1), inRing1, s)
	default:
		q.loc[id].in = inLate
		q.late.push(q.loc, s)
	}
}

// blockOf returns the block of a time, and slot0 the slot of ring0 of a
// time in the current block. (The shift counts are masked as they are
// anyway below 64: Go defines a shift by 64 or more, and without the
// mask each variable shift was four instructions more.)
func (q *eventQueue) blockOf(when int64) int64 { return when >> (q.blockBits & 63) }

func (q *eventQueue) slot0(when int64) int { return int(when>>(q.bucketBits&63)) & q.mask0 }

// put appends s to bucket k of w, which is part in.
func (q *eventQueue) put(w *wheel, k int, in where, s entry) {
	b := &w.b[k]
	if *b == nil {
		if n := len(q.spare); n > 0 {
			*b, q.spare = q.spare[n-1], q.spare[:n-1]
		} else {
			*b = make(heap4, 0, 8) // most hold a few
		}
		w.full.Set(k, true)
	}
	l := &q.loc[s.id()]
	l.i, l.in = int32(len(*b)), in
	// Appended in place: without growth only the length is written back.
	*b = append(*b, s)
	w.n++
}

// unplace takes out the far entry of timer id, at i of its bucket or of
// late, due at when.
func (q *eventQueue) unplace(id int32, i int, when int64) {
	switch q.loc[id].in {
	case inLate:
		q.late.removeAt(q.loc, i)
		return
	case inRing0:
		q.take(&q.ring0, q.slot0(when), i)
	default:
		q.take(&q.ring1, int(q.blockOf(when))&(len(q.ring1.b)-1), i)
	}
}

// take removes the entry at i of bucket k of w.
func (q *eventQueue) take(w *wheel, k, i int) {
	w.n--
	r := w.b[k]
	n := len(r) - 1
	if i != n {
		r[i] = r[n]
		q.loc[r[i].id()].i = int32(i)
	}
	w.b[k] = r[:n]
	if n == 0 {
		q.emptied(w, k)
	}
}

// emptied gives bucket k's array to the spares (its entries are out, and
// counted out of w.n).
func (q *eventQueue) emptied(w *wheel, k int) {
	q.spare = append(q.spare, w.b[k][:0])
	w.b[k] = nil
	w.full.Set(k, false)
}

// move re-arms a timer whose entry, due at old, is at i of a far part
// or is to go to one.
func (q *eventQueue) move(id int32, i int, old int64, far bool, s entry) {
	if old < q.horizon {
		q.h.removeAt(q.loc, i)
		q.place(s)
		return
	}
	q.unplace(id, i, old)
	if far {
		q.place(s)
		return
	}
	q.h.push(q.loc, s)
}

// farLen is the number of far timers.
func (q *eventQueue) farLen() int { return q.ring0.n + q.ring1.n + len(q.late) }

// splitHeap divides a whole queue at the end of its earliest timer's
// bucket.
func (q *eventQueue) splitHeap() {
	if q.ringBits == 0 {
		q.blockBits, q.ringBits, q.ring0Bits = blockBits, ringBits, ring0Bits
	}
	if q.ring0.b == nil {
		q.ring0 = wheel{b: make([]heap4, 1<<q.ring0Bits), full: cpumask.New(1 << q.ring0Bits)}
		q.ring1 = wheel{b: make([]heap4, 1<<q.ringBits), full: cpumask.New(1 << q.ringBits)}
	}
	q.setForm(false, true)
	q.runTop = cmp.Or(q.runN, nearMax)
	q.setR0(len(q.h))
	q.horizon = (q.h[0].when>>q.bucketBits + 1) << q.bucketBits
	q.block = q.h[0].when >> q.blockBits
	// The near entries, gathered at the front of the old heap's array,
	// go to the run (toNear), or to a new heap if too many.
	near := q.h[:0]
	for _, s := range q.h {
		if s.when >= q.horizon {
			q.place(s)
		} else {
			near = append(near, s)
		}
	}
	q.h = nil
	q.setForm(true, true)
	q.toNear(near)
}

// cancel disarms t. (Small, to be inlined: most calls find t unarmed.)
func (q *eventQueue) cancel(t *timer) {
	if t.armed() {
		q.disarm(t)
	}
}

func (q *eventQueue) disarm(t *timer) {
	if q.whole {
		q.run.remove(t.key())
		q.release(t)
		return
	}
	if q.small {
		if q.split && t.when >= q.horizon {
			q.unplace(t.id, int(q.loc[t.id].i), t.when)
		} else {
			q.run.remove(t.key())
		}
		q.release(t)
		return
	}
	q.bury()
	if q.split && t.when >= q.horizon {
		q.unplace(t.id, int(q.loc[t.id].i), t.when)
	} else {
		q.h.removeAt(q.loc, int(q.loc[t.id].i))
		q.maybeRun()
	}
	q.release(t)
}

// number gives t a number, which it keeps while unarmed: an event's
// timers (a CPU's tick, a task's work and wake) are armed again and again,
// and taking a number from the free list at each arming and giving it
// back at each pop was 3 % of the busy engine's instructions. The number
// goes back when the owner is gone (forget). (Kept numbers spread the
// slots an arming and a sift write over every timer's, where numbers
// reused last-in first-out kept them few and hot; one slot a number
// (loc) instead of three arrays more than made up for it. Giving the
// numbers back in a big queue, last-in first-out, with the free number's
// case written out in armSlow and pop's give-back in popSlow, cost a big
// queue 30 to 50 instructions an event and saved fewer misses than loc.)
func (q *eventQueue) number(t *timer) {
	if n := len(q.free); n > 0 {
		t.id = q.free[n-1]
		q.free = q.free[:n-1]
		q.loc[t.id].t = t
		return
	}
	q.newNumber(t)
}

// newNumber gives t a number no timer has had.
func (q *eventQueue) newNumber(t *timer) {
	if len(q.loc) == 0 {
		q.grow() // number 0 means none
		if max(cmp.Or(q.runN, runMax), nearMax) >= runCap-1 {
			panic("sim: runN must be below runCap-1")
		}
		q.runTop = q.wholeTop()
		q.setForm(true, false)
		q.horizon = math.MaxInt64
	}
	if len(q.loc) == 1<<idBits {
		panic("sim: more than 2^24 timers")
	}
	t.id = int32(len(q.loc))
	q.grow()
	q.loc[t.id].t = t
}

// wholeTop is runTop while the queue is whole: the run's limit, or the
// size that splits the queue if less, since a heap splits.
func (q *eventQueue) wholeTop() int {
	top := cmp.Or(q.runN, runMax)
	if q.splitN > 0 {
		top = min(top, q.splitN)
	}
	return top
}

func (q *eventQueue) grow() {
	q.loc = append(q.loc, loc{})
}

// forget gives t's number back, now, or when its entry leaves the queue
// if it is armed, and every later arming's too: t's owner is gone (a
// dead task, before its Task is recycled and zeroed or dropped), and the
// table must neither hold it nor keep its number.
func (q *eventQueue) forget(t *timer) {
	t.once = true
	if !t.armed() && t.id != 0 {
		q.giveBack(t)
	}
}

// release marks a timer whose entry is out unarmed.
func (q *eventQueue) release(t *timer) {
	t.seq = 0
	if t.once {
		q.giveBack(t)
	}
}

func (q *eventQueue) giveBack(t *timer) {
	q.loc[t.id].t = nil
	q.free = append(q.free, t.id)
	t.id = 0
}

// peek returns the earliest timer without removing it, or nil; it
// refills a split queue's empty near part (peekHeap).
func (q *eventQueue) peek() *timer {
	if q.whole {
		// An empty run's first slot names timer 0, nil. (Inlined: this
		// is the cost model's limit; a "!q.whole" would pass it.)
		return q.loc[q.run.buf[q.run.head&runMask].key&(1<<idBits-1)].t
	}
	return q.peekHeap()
}

// peekHeap is peek of a queue that is not a whole run. A split queue's
// near part is refilled here, when it is found empty, and not where it
// is emptied: every pop, cancel and far arming would otherwise test for
// it, and the run's pop could not share the whole run's fast path.
func (q *eventQueue) peekHeap() *timer {
	if q.small && q.run.head != q.run.tail {
		// A split queue's near run (a whole one's peek is inlined),
		// first: the common case, and a run has no dead root.
		return q.loc[q.run.first().id()].t
	}
	if q.dead {
		q.bury()
		if q.maybeRun() {
			return q.peek()
		}
	}
	if q.split && q.nearLen() == 0 {
		q.refill()
	}
	if q.small {
		return q.loc[q.run.first().id()].t // an empty run's names timer 0, nil
	}
	if len(q.h) == 0 {
		return nil
	}
	return q.loc[q.h[0].id()].t
}

// bury takes out a dead root.
func (q *eventQueue) bury() {
	if q.dead {
		q.dead = false
		q.h.removeAt(q.loc, 0)
	}
}

// refill gives a near part left empty the next far timers, if any.
func (q *eventQueue) refill() {
	if q.split && q.nearLen() == 0 && q.farLen() > 0 {
		q.advance()
	}
}

// nearLen is the number of near timers (all, when the queue is whole).
func (q *eventQueue) nearLen() int {
	if q.small {
		return q.run.len()
	}
	return len(q.h)
}

// advance moves the next bucket that holds any timer to the near heap,
// which is empty, and the horizon to that bucket's end, first moving to
// the next block that holds any when the current one is used up; or,
// with few far timers left, makes the queue whole again.
func (q *eventQueue) advance() {
	// The near part is empty, so its form can be chosen again: a run
	// unless what comes in would overflow it (toNear).
	q.setForm(true, q.split)
	if q.farLen() < cmp.Or(q.joinN, joinAt) {
		q.setForm(true, false)
		q.horizon = math.MaxInt64
		q.runTop = q.wholeTop()
		q.toNear(q.gather())
		return
	}
	if q.ring0.n == 0 {
		// The block is used up: the next one that holds any timer, in
		// ring1 or, with ring1 empty, the earliest late one's.
		var next int64
		if n := len(q.ring1.b); q.ring1.n > 0 {
			k0 := int(q.block+1) & (n - 1)
			k := q.ring1.full.Next(k0, n)
			if k < 0 {
				k = q.ring1.full.Next(0, k0)
			}
			next = q.block + 1 + int64((k-k0)&(n-1))
		} else {
			next = q.late[0].when >> q.blockBits
		}
		k := int(next) & (len(q.ring1.b) - 1)
		// As many buckets as this block's timers need, or as many as
		// the last block's did: with a timer or two a CPU, most of a
		// block's are armed while it runs (a tick a millisecond, a
		// work's end), not due in it when it begins, and buckets sized
		// by those brought a hundred a refill to the near part, a heap.
		q.setR0(max(len(q.ring1.b[k]), q.passed))
		q.passed = 0
		q.block, q.horizon = next, next<<q.blockBits
		// The late timers ring1 now spans (those of this block, when
		// ring1 was empty, go to ring0).
		q.pull()
		if b := q.ring1.b[k]; b != nil {
			q.ring1.n -= len(b)
			if q.r0 == 0 {
				// One bucket: to the near part at once.
				q.toNear(b)
				q.passed += len(b)
			} else {
				for _, s := range b {
					q.place(s)
				}
			}
			q.emptied(&q.ring1, k)
		}
		if q.ring0.n == 0 {
			q.horizon = (next + 1) << q.blockBits
			return
		}
	}
	n := 1 << q.r0
	k := q.ring0.full.Next(int(q.horizon>>q.bucketBits)&(n-1), n)
	q.toNear(q.ring0.b[k])
	q.passed += len(q.ring0.b[k])
	q.ring0.n -= len(q.ring0.b[k])
	q.emptied(&q.ring0, k)
	q.horizon = (q.block<<q.r0 + int64(k) + 1) << q.bucketBits
}

// toNear moves far entries to the near part: into the run, unless they
// would overflow it (then it becomes the near heap). They are due after
// the near ones but those moved in the same advance, so most go in at the
// back; the bucket's are in no order, a few shifts each. They are due
// soon, so their tasks are read ahead (warm).
func (q *eventQueue) toNear(b []entry) {
	q.warm(b)
	if q.small && q.run.len()+len(b) >= q.runTop {
		q.toHeap()
	}
	if q.small {
		for _, s := range b {
			q.run.insert(s)
		}
		return
	}
	for _, s := range b {
		q.h.push(q.loc, s)
	}
}

// setR0 divides the block about to begin, with ring0 empty, into as
// many buckets (up to 2^ring0Bits) as bring the near heap about per
// timers each when n are due in it.
func (q *eventQueue) setR0(n int) {
	q.r0 = min(bits.Len(uint(n/cmp.Or(q.per, perBucket))), q.ring0Bits)
	q.bucketBits = q.blockBits - q.r0
	q.mask0 = 1<<q.r0 - 1
}

// pull moves the late entries that ring1 now spans into their buckets.
func (q *eventQueue) pull() {
	end := q.block + int64(len(q.ring1.b))
	for len(q.late) > 0 && q.late[0].when>>q.blockBits < end {
		s := q.late[0]
		q.late.removeAt(q.loc, 0)
		q.place(s)
	}
}

// gather takes every far entry out and returns them (in no order).
func (q *eventQueue) gather() []entry {
	all := q.late
	q.late = nil
	for _, w := range []*wheel{&q.ring0, &q.ring1} {
		for k := w.full.Next(0, len(w.b)); k >= 0; k = w.full.Next(k+1, len(w.b)) {
			all = append(all, w.b[k]...)
			q.emptied(w, k)
		}
		w.n = 0
	}
	return all
}

// pop removes and returns the earliest timer; peek must have found it.
// A whole queue leaves its entry at the root, dead (see dead).
func (q *eventQueue) pop() *timer {
	if q.small { // whole, or a split queue's near run, which peek refilled
		if t := q.loc[q.run.buf[q.run.head&runMask].key&(1<<idBits-1)].t; !t.once {
			q.run.head++
			t.seq = 0
			return t
		}
	}
	return q.popSlow()
}

// popSlow is pop of a queue that is not a whole run, or of a timer whose
// number goes back.
func (q *eventQueue) popSlow() *timer {
	if q.small {
		t := q.loc[q.run.first().id()].t
		q.run.popFirst()
		q.release(t)
		return t
	}
	q.bury()
	t := q.loc[q.h[0].id()].t
	if q.split {
		q.h.removeAt(q.loc, 0)
	} else {
		q.dead = true
	}
	q.release(t)
	return t
}

// heap4 is a 4-ary min-heap of entries, keeping each entry's index in
// loc (by timer number): half the depth of a binary heap, and four
// 16-byte children fill one cache line.
type heap4 []entry

const arity = 4

func (h *heap4) push(loc []loc, s entry) {
	*h = append(*h, entry{})
	h.up(loc, len(*h)-1, s)
}

// removeAt takes the entry at i out.
func (h *heap4) removeAt(loc []loc, i int) {
	n := len(*h) - 1
	last := (*h)[n]
	*h = (*h)[:n]
	if i != n {
		h.fix(loc, i, last)
	}
}

// fix puts s in the hole at i, moving it whichever way its key needs.
func (h heap4) fix(loc []loc, i int, s entry) {
	if i > 0 && s.less(&h[(i-1)/arity]) {
		h.up(loc, i, s)
	} else {
		h.down(loc, i, s)
	}
}

// up moves s from the hole at i towards the root, shifting parents down
// into the hole instead of swapping (one write per level).
func (h heap4) up(loc []loc, i int, s entry) {
	for i > 0 {
		p := (i - 1) / arity
		if !s.less(&h[p]) {
			break
		}
		h[i] = h[p]
		loc[h[i].id()].i = int32(i)
		i = p
	}
	h[i] = s
	loc[s.id()].i = int32(i)
}

// down moves s from the hole at i towards the leaves.
func (h heap4) down(loc []loc, i int, s entry) {
	n := len(h)
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		if c+arity <= n {
			// All four children: compared without bounds checks.
			ch := (*[arity]entry)(h[c : c+arity])
			j := 0
			if ch[1].less(&ch[0]) {
				j = 1
			}
			if ch[2].less(&ch[j]) {
				j = 2
			}
			if ch[3].less(&ch[j]) {
				j = 3
			}
			m += j
		} else {
			for k := c + 1; k < n; k++ {
				if h[k].less(&h[m]) {
					m = k
				}
			}
		}
		if !h[m].less(&s) {
			break
		}
		h[i] = h[m]
		loc[h[i].id()].i = int32(i)
		i = m
	}
	h[i] = s
	loc[s.id()].i = int32(i)
}

// renumber gives the entries the arming numbers 1, 2, … in their order,
// and each timer its entry's new number, when 2^40 armings have used up
// seq's bits: the order stays as it was.
func (q *eventQueue) renumber() {
	if q.small {
		q.toHeap()
	}
	all := append(q.h, q.gather()...)
	slices.SortFunc(all, func(a, b entry) int {
		if a.less(&b) {
			return -1
		}
		if b.less(&a) {
			return 1
		}
		return 0
	})
	for i := range all {
		e := &all[i]
		seq := uint64(i+1) << idBits
		q.loc[e.id()].t.seq = seq
		e.key = seq | uint64(e.id())
	}
	q.seq = uint64(len(all)) << idBits
	// A sorted array is a heap: the entries before the horizon are the
	// near heap, the rest go back to the far parts.
	k := len(all)
	if q.split {
		k, _ = slices.BinarySearchFunc(all, q.horizon, func(e entry, h int64) int { return cmp.Compare(e.when, h) })
	}
	q.h = all[:k:k]
	for i := range q.h {
		q.loc[q.h[i].id()].i = int32(i)
	}
	for _, s := range all[k:] {
		q.place(s)
	}
	q.refill()
	q.maybeRun()
}
