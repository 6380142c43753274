package sim

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"schedlab/workload"
)

// The queue fires live timers in (when, arming order), drops cancelled
// and re-armed entries, lets a timer keep its number while unarmed until
// it is forgotten (then gives it back, at once or when it fires), and
// keeps all of it across a renumbering of the arming counter, with the
// far buckets from one ns (nearly every timer far) to more than every
// timer's span (all near), blocks of buckets from two (most far timers
// in ring1 or late) to more than the span, and with timers armed before the time
// of the last one fired (past; the engine arms none, but a popped
// timer's entry, left at the root for the next arming, must not come
// back whatever the arming), and with a split queue's near part a run
// (from most of the time to never, with runs of four that a bucket or a
// few armings overflow, making it the near heap).
func TestEventQueueOrder(t *testing.T) {
	for _, c := range []struct {
		nearWrap    bool
		bits, ring  int // log2 of the finest bucket and of the rings; 0, 0: the defaults
		split, join int
		past        bool
		run, heap   int // the sizes that end and begin the sorted run; 0, 0: the defaults
	}{{false, 0, 0, 0, 0, false, 0, 0}, {true, 0, 0, 0, 0, false, 0, 0}, {false, 0, 0, 1, 1, false, 0, 0}, {false, 0, 1, 1, 1, false, 0, 0}, {true, 0, 1, 1, 1, false, 0, 0},
		{false, 0, 11, 1, 1, false, 0, 0}, {false, 5, 1, 1, 1, false, 0, 0}, {true, 5, 3, 1, 1, false, 0, 0}, {false, 6, 6, 1, 1, false, 0, 0}, {false, 3, 3, 1, 1, false, 0, 0},
		{false, 6, 2, 40, 60, false, 0, 0}, {true, 6, 2, 40, 60, false, 0, 0}, {false, 9, 1, 1, 1, false, 0, 0}, {true, 9, 4, 1, 1, false, 0, 0},
		{false, 0, 0, 0, 0, true, 0, 0}, {true, 0, 0, 0, 0, true, 0, 0}, {false, 6, 2, 40, 60, true, 0, 0}, {false, 0, 3, 1, 1, true, 0, 0},
		{false, 0, 0, 0, 0, false, 50, 20}, {true, 0, 0, 0, 0, true, 50, 20}, {false, 0, 0, 0, 0, false, 2, 1}, {false, 6, 2, 50, 60, false, 40, 25},
		{false, 4, 2, 1, 1, false, 4, 2}, {true, 5, 3, 1, 1, true, 4, 2}, {false, 3, 3, 1, 1, false, 6, 3}, {true, 6, 2, 40, 60, true, 4, 2}} {
		nearWrap := c.nearWrap
		rng := rand.New(rand.NewPCG(7, 8))
		// Blocks of 2^ring finest buckets, each bucket meant to bring
		// 4 timers (the default 32 would leave most blocks whole here).
		q := eventQueue{blockBits: c.bits + c.ring, ringBits: c.ring, ring0Bits: c.ring, per: 4, splitN: c.split, joinN: c.join, runN: c.run, heapN: c.heap}
		if nearWrap {
			q.seq = (1<<(64-idBits) - 1 - 500) << idBits // renumbers after 500 armings
		}
		if q.peek() != nil {
			t.Fatal("a new queue has a timer")
		}
		timers := make([]timer, 200)
		type want struct {
			when int64
			seq  uint64
			t    *timer
		}
		live := map[*timer]want{}
		var fired []*timer
		now := int64(0)
		order := uint64(0) // arming order, independent of q.seq
		farSeen, ring1Seen, lateSeen, r0Seen, joins, forgot := 0, 0, 0, 0, 0, 0
		runSeen, toHeap, toRun := 0, 0, 0
		// Steps with a split queue's near part a run and a heap, and
		// the near runs that armings made a heap.
		nearRun, nearHeap, nearGrown := 0, 0, 0
		for step := 0; step < 20000; step++ {
			farSeen, ring1Seen, lateSeen = max(farSeen, q.farLen()), max(ring1Seen, q.ring1.n), max(lateSeen, len(q.late))
			r0Seen = max(r0Seen, q.r0)
			if step%8 == 0 {
				for tm := range live {
					checkSlot(t, &q, tm, step)
				}
			}
			if q.small {
				runSeen = max(runSeen, q.run.len())
			}
			split, big := q.split, !q.small
			if split && q.small {
				nearRun++
			} else if split {
				nearHeap++
			}
			r := rng.IntN(10)
			if step/1000%2 == 1 && r < 5 && rng.IntN(2) == 0 {
				r = 9 // every other thousand steps the queue drains
			}
			switch {
			case r < 5:
				tm := &timers[rng.IntN(len(timers))]
				when := now + rng.Int64N(1000)
				if c.past && rng.IntN(4) == 0 {
					when = now - rng.Int64N(100)
				}
				q.arm(tm, when)
				if !big && !q.small {
					toHeap++
					if split && q.split {
						nearGrown++
					}
				}
				order++
				live[tm] = want{when, order, tm}
			case r < 6:
				tm := &timers[rng.IntN(len(timers))]
				if rng.IntN(8) == 0 {
					// Its owner is gone: armed, it still fires, and its
					// number goes back then.
					q.forget(tm)
					forgot++
					continue
				}
				q.cancel(tm)
				delete(live, tm)
			default:
				got := q.peek()
				if len(live) == 0 {
					if got != nil {
						t.Fatalf("step %d: peek found a timer with none armed", step)
					}
					continue
				}
				var ws []want
				for _, w := range live {
					ws = append(ws, w)
				}
				first := slices.MinFunc(ws, func(a, b want) int {
					if a.when != b.when {
						return int(a.when - b.when)
					}
					return int(a.seq) - int(b.seq)
				})
				if got != first.t || got.when != first.when {
					t.Fatalf("step %d (near wrap %v, buckets 2^%d, ring 2^%d, split %d/%d): peek = timer at %d, want the one at %d", step, nearWrap, c.bits, c.ring, c.split, c.join, got.when, first.when)
				}
				q.pop()
				if split && !q.split {
					joins++
				}
				if big && q.small {
					toRun++
				}
				now = got.when
				delete(live, got)
				fired = append(fired, got)
				if got.once {
					// As a recycled Task's: its number must be back.
					*got = timer{}
				}
			}
		}
		for q.peek() != nil {
			q.pop()
		}
		if len(q.h)+q.farLen()+q.run.len() != 0 {
			t.Errorf("drained: %d entries", len(q.h)+q.farLen()+q.run.len())
		}
		// Unarmed timers keep their numbers until forgotten; then every
		// number is free and the table names no timer.
		for i := range timers {
			if timers[i].id != 0 && q.loc[timers[i].id].t != &timers[i] {
				t.Errorf("timer %d has number %d, which names another", i, timers[i].id)
			}
			q.forget(&timers[i])
		}
		if len(q.free) != len(q.loc)-1 || slices.ContainsFunc(q.loc, func(l loc) bool { return l.t != nil }) {
			t.Errorf("forgotten: %d of %d numbers free", len(q.free), len(q.loc)-1)
		}
		for k := range q.ring0.b {
			if len(q.ring0.b[k]) > 0 || q.ring0.full.Has(k) || len(q.ring1.b[k]) > 0 || q.ring1.full.Has(k) {
				t.Errorf("drained: bucket %d holds %d and %d entries (marked full: %v, %v)", k, len(q.ring0.b[k]), len(q.ring1.b[k]), q.ring0.full.Has(k), q.ring1.full.Has(k))
			}
		}
		if q.ring0.n != 0 || q.ring1.n != 0 {
			t.Errorf("drained: the rings count %d and %d entries", q.ring0.n, q.ring1.n)
		}
		if len(q.loc) > len(timers)+1 {
			t.Errorf("%d numbers for %d timers", len(q.loc), len(timers))
		}
		if nearWrap && q.seq>>idBits > 1<<20 {
			t.Errorf("not renumbered: seq %d", q.seq>>idBits)
		}
		if c.split > 0 && c.ring > 0 && c.bits < 7 && farSeen < 10 {
			t.Errorf("buckets 2^%d: at most %d timers were far", c.bits, farSeen)
		}
		if c.split > 0 && c.ring > 0 && c.bits+2*c.ring < 8 && lateSeen < 10 {
			t.Errorf("buckets 2^%d, ring 2^%d: at most %d timers were late", c.bits, c.ring, lateSeen)
		}
		if c.split > 0 && c.ring >= 2 && c.bits+c.ring <= 9 && r0Seen == 0 {
			t.Errorf("buckets 2^%d, ring 2^%d: no block was divided", c.bits, c.ring)
		}
		if c.split > 0 && c.ring > 0 && c.bits+c.ring <= 8 && c.bits+2*c.ring >= 9 && ring1Seen < 10 {
			t.Errorf("buckets 2^%d, ring 2^%d: at most %d timers were in ring1", c.bits, c.ring, ring1Seen)
		}
		if c.split == 40 && joins == 0 {
			t.Errorf("split at %d, joined at %d: never joined", c.split, c.join)
		}
		// The run holds up to runMax and is left at or past it, and a heap
		// that shrinks to runMin becomes a run again.
		if top := cmp.Or(c.run, runMax); (c.split == 0 || c.split > top) && (runSeen < top-1 || toHeap < 3 || toRun < 3) {
			t.Errorf("run up to %d: held up to %d entries, became a heap %d times and a run %d", top, runSeen, toHeap, toRun)
		}
		// A split queue's near part is a run but when a run of at most
		// four or six timers is too short for it.
		if c.split > 0 && c.ring > 0 && (nearRun < 300 || c.run > 0 && c.run <= 6 && (nearHeap < 100 || c.past && nearGrown < 5)) {
			t.Errorf("split at %d, run up to %d: the near part was a run in %d steps, a heap in %d; %d runs grew into heaps", c.split, c.run, nearRun, nearHeap, nearGrown)
		}
		if forgot < 100 {
			t.Errorf("only %d timers forgotten", forgot)
		}
		if len(fired) < 1000 {
			t.Errorf("only %d timers fired", len(fired))
		}
	}
}

// checkSlot fails unless armed timer tm's slot names it and, in a big
// queue, says where its entry is.
func checkSlot(t *testing.T, q *eventQueue, tm *timer, step int) {
	t.Helper()
	l := q.loc[tm.id]
	if l.t != tm {
		t.Fatalf("step %d: the slot of number %d names another timer", step, tm.id)
	}
	if q.small && tm.when < q.horizon {
		return // the run's entries have no index
	}
	var part []entry
	switch {
	case tm.when < q.horizon: // near, or the queue is whole
		part = q.h
	case l.in == inRing0:
		part = q.ring0.b[int(tm.when>>q.bucketBits)&(1<<q.r0-1)]
	case l.in == inRing1:
		part = q.ring1.b[int(tm.when>>q.blockBits)&(len(q.ring1.b)-1)]
	default:
		part = q.late
	}
	if int(l.i) >= len(part) || part[l.i].key != tm.key() || part[l.i].when != tm.when {
		t.Fatalf("step %d: the slot of number %d (part %d, index %d) does not find its entry", step, tm.id, l.in, l.i)
	}
}

// A split queue fires what a whole one fires, in the same order: runs of
// 300 sleeping and running tasks, whole (split at 2^30 timers), emit the
// same events with the queue split from its second timer and at the
// default splitAt, with
// buckets from 4 µs to 65 µs and blocks from 8 buckets (most sleeps
// late) to the default's, and joined and split again over and over.
func TestSplitQueueRunsAsWhole(t *testing.T) {
	js := `{"tasks": {
		"t": {"instance": 300, "run": {"dist": "exponential", "mean": 400}, "sleep": {"dist": "exponential", "mean": 5000}},
		"tick": {"timer": {"ref": "p", "period": 700, "notify": "signal"}, "run": 30},
		"spawner": {"run": 100, "fork": "child", "sleep": {"dist": "exponential", "mean": 2000}},
		"child": {"instance": 0, "loop": 1, "run": 300, "sleep": 3000, "run1": 100}}}`
	sp, err := workload.Parse("test.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, c := range []struct {
		bits, ring  int
		split, join int
	}{{0, 0, 1 << 30, 0}, {0, 0, 2, 1}, {12, 3, 2, 1}, {16, 5, 2, 100}, {0, 0, 2, 1000}, {0, 0, 0, 0}} {
		s := &hashSink{h: sha256.New()}
		e, err := New(Config{Spec: sp, Sched: policyConfig(t, "cfs-2.6.35", 8), Params: DefaultParams(), Duration: 1e8, Seed: 4, Sink: s, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.ring > 0 {
			e.q.blockBits, e.q.ringBits, e.q.ring0Bits, e.q.per = c.bits+c.ring, c.ring, c.ring, 4
		}
		e.q.splitN, e.q.joinN = c.split, c.join
		farSeen := 0
		for now := int64(0); now < 1e8; now += 1e6 {
			if err := e.Advance(now); err != nil {
				t.Fatal(err)
			}
			farSeen = max(farSeen, e.q.farLen())
		}
		if _, err := e.Run(); err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%x", s.h.Sum(nil))
		if c.split == 1<<30 {
			if farSeen > 0 {
				t.Fatalf("a queue that splits at 2^30 timers split with %d far timers", farSeen)
			}
			want = got
			continue
		}
		if c.split != 0 && c.join < 1000 && farSeen < 50 {
			t.Errorf("buckets 2^%d, ring 2^%d, split at %d, join at %d: at most %d timers far", c.bits, c.ring, c.split, c.join, farSeen)
		}
		if got != want {
			t.Errorf("buckets 2^%d, ring 2^%d, split at %d, join at %d: the events differ from the whole queue's", c.bits, c.ring, c.split, c.join)
		}
	}
}

// With a timer or two a CPU (256 CPUs, a task each), most of a block's
// timers are armed while it runs (ticks, the ends of work), not due in it
// when it begins: the block's buckets are sized by the last block's
// count too (passed), so that a refill brings the near part a few dozen
// timers, a sorted run, not a hundred or more, the near heap (before:
// the near part a heap of 49 entries on average, 1,484 instructions an
// event against 1,300).
func TestBucketsSizedByTheLastBlock(t *testing.T) {
	js := `{"tasks": {"t": {"instance": 256, "run": {"dist": "exponential", "mean": 500},
		"sleep": {"dist": "exponential", "mean": 56}}}}`
	sp, err := workload.Parse("test.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Spec: sp, Sched: policyConfig(t, "cfs-2.6.35", 256), Params: DefaultParams(), Duration: 2e8})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Advance(1e8); err != nil {
		t.Fatal(err)
	}
	runs, n := 0, 0
	for now := int64(1e8); now < 2e8; now += 1e5 {
		if err := e.Advance(now); err != nil {
			t.Fatal(err)
		}
		if !e.q.split {
			t.Fatalf("at %d ns the queue of %d timers is whole", now, e.q.farLen()+e.q.nearLen())
		}
		n++
		if e.q.small {
			runs++
		}
	}
	if runs < n*9/10 {
		t.Errorf("the near part was a run at %d of %d samples, want 90 %%", runs, n)
	}
}

// On a machine of fewer CPUs than a near run holds ticks (nearMax), the
// queue splits from smallSplitAt timers (sizeFor): 100
// sleeping tasks on one CPU wait far, where a whole heap of them cost
// 1,164 instructions an event against 969; on 64 CPUs it stays whole
// below splitAt.
func TestSmallMachinesSplitEarly(t *testing.T) {
	for _, c := range []struct {
		ncpu, tasks int
		split       bool
	}{{1, 100, true}, {16, 100, true}, {64, 100, false}} {
		js := fmt.Sprintf(`{"tasks": {"t": {"instance": %d, "run": {"dist": "exponential", "mean": 500},
			"sleep": {"dist": "exponential", "mean": %d}}}}`, c.tasks, 500*c.tasks/c.ncpu)
		sp, err := workload.Parse("test.json", []byte(js))
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Config{Spec: sp, Sched: policyConfig(t, "cfs-2.6.35", c.ncpu), Params: DefaultParams(), Duration: 1e9})
		if err != nil {
			t.Fatal(err)
		}
		split := 0
		for now := int64(1e8); now < 1e9; now += 1e7 {
			if err := e.Advance(now); err != nil {
				t.Fatal(err)
			}
			if e.q.split {
				split++
			}
		}
		if got := split > 45; got != c.split {
			t.Errorf("%d CPUs, %d tasks: the queue split at %d of 90 samples, want split %v", c.ncpu, c.tasks, split, c.split)
		}
	}
}
