package cfs

import (
	"math"
	"testing"

	"schedlab/sched"
	"schedlab/uapi"
)

// Each 6.1 rule against 2.6.36's on the same state: the test fails when
// the rule is missing (the 2.6.36 column says what the class does then).

// moveTo requeues the waiting task t at vruntime v (a queued entity's key
// must not change in place).
func moveTo(cl *CFS, rq *fakeRQ, t *sched.Task, v uint64) {
	cl.Dequeue(rq, t, 0)
	taskSE(t).vruntime = v - cl.cpus[0].root.minV
	cl.Enqueue(rq, t, 0)
}

// 2.6.38's fix of the 64-bit sign bug: curr left of the leftmost is not
// preempted by the tick.
func TestTickSignFixed61(t *testing.T) {
	for policy, want := range map[string]bool{"cfs-2.6.36": true, "cfs-6.1": false, "cfs-5.10": false} {
		cl := newClass(t, policy, nil, nil)
		rq := &fakeRQ{}
		ts := runnable(cl, rq, 2)
		rq.curr = cl.PickNext(rq)
		curr := taskSE(rq.curr)
		rq.now = 2500000 // past min_granularity (0.75 ms), within the 3 ms slice
		cl.rq(rq)
		cl.updateCurr(curr.q)
		taskSE(ts[1]).vruntime = curr.vruntime + 1000000
		cl.Tick(rq, rq.curr, false)
		if rq.resched != want {
			t.Errorf("%s: resched = %v, want %v", policy, rq.resched, want)
		}
	}
}

// BASE_SLICE: among ten nice-0 tasks a nice-19 task's share of the 8.25
// ms period (11 × 0.75 ms) is 15/10255 of it, 12 µs; 6.1 floors it at
// min_granularity, and a SCHED_IDLE task's at the idle granularity.
func TestBaseSlice61(t *testing.T) {
	const idleGran = 300000
	for _, c := range []struct {
		policy string
		feats  map[string]bool
		pol    uapi.Policy
		want   uint64
	}{
		{"cfs-6.1", nil, uapi.SchedNormal, 750000},
		{"cfs-6.1", nil, uapi.SchedIdle, idleGran},
		{"cfs-6.1", map[string]bool{BaseSlice: false}, uapi.SchedNormal, 12066},
		{"cfs-2.6.36", nil, uapi.SchedNormal, 12066},
		// Debian's 5.10: BASE_SLICE (5.13, taken into 5.10.y), no idle
		// granularity (5.15).
		{"cfs-5.10", nil, uapi.SchedNormal, 750000},
		{"cfs-5.10", nil, uapi.SchedIdle, 750000},
		{"cfs-5.10", map[string]bool{BaseSlice: false}, uapi.SchedNormal, 12066},
	} {
		var set map[string]int64
		if c.policy == "cfs-6.1" {
			set = map[string]int64{IdleMinGranularity: idleGran}
		}
		cl := newClass(t, c.policy, c.feats, set)
		rq := &fakeRQ{}
		runnable(cl, rq, 10)
		light := newTask(cl, 19)
		light.Policy = c.pol
		taskSE(light).load = sched.NiceWeight(19, uapi.SchedNormal) // the same weight either way
		taskSE(light).vruntime = cl.cpus[0].root.minV
		cl.Enqueue(rq, light, sched.EnqueueWakeup)
		se := taskSE(light)
		if got := cl.schedSlice(se.q, se); got != c.want {
			t.Errorf("%s %v %v: slice %d ns, want %d", c.policy, c.feats, c.pol, got, c.want)
		}
	}
}

// ALT_PERIOD: a task alone in group /a beside nine root hogs has a queue
// of one but shares a CPU with ten tasks: the period is 10 × 0.75 ms
// instead of the 6 ms latency.
func TestAltPeriod61(t *testing.T) {
	slice := func(policy string, feats map[string]bool) float64 {
		cl := newClass(t, policy, feats, nil)
		rq := &fakeRQ{}
		runnable(cl, rq, 9)
		g := &sched.Group{Path: "/a", Shares: 1024, Depth: 1}
		nextPID++
		task := &sched.Task{PID: nextPID, Comm: "g", Group: g}
		cl.TaskNew(task, nil)
		cl.Enqueue(rq, task, sched.EnqueueWakeup)
		se := taskSE(task)
		return float64(cl.schedSlice(se.q, se))
	}
	noBase := map[string]bool{BaseSlice: false}
	alt, plain := slice("cfs-6.1", noBase), slice("cfs-6.1", map[string]bool{BaseSlice: false, AltPeriod: false})
	if r := alt / plain; math.Abs(r-7.5/6) > 1e-5 {
		t.Errorf("ALT_PERIOD slice %.0f ns / without %.0f ns = %.6f, want 1.25", alt, plain, r)
	}
	if old := slice("cfs-2.6.36", nil); old != plain {
		t.Errorf("2.6.36 slice %.0f ns, want the queue-local %.0f", old, plain)
	}
}

// A wakee that preempts becomes the next buddy; and a next buddy within
// the granularity of the leftmost wins over the last buddy (2.6.35's last
// buddy won).
func TestBuddies61(t *testing.T) {
	for policy, want := range map[string]bool{"cfs-2.6.36": false, "cfs-6.1": true, "cfs-5.10": true} {
		cl := newClass(t, policy, nil, nil)
		rq := &fakeRQ{}
		hog := runnable(cl, rq, 1)[0]
		rq.curr = cl.PickNext(rq)
		w := newTask(cl, 0)
		// Enqueue with flags 0 adds min_vruntime (equal to the hog's).
		taskSE(w).vruntime = taskSE(hog).vruntime - 2000000 - cl.cpus[0].root.minV
		cl.Enqueue(rq, w, 0)
		cl.CheckPreempt(rq, w, 0)
		if !rq.resched {
			t.Fatalf("%s: a wakee 2 ms left did not preempt", policy)
		}
		if got := cl.cpus[0].root.next == taskSE(w); got != want {
			t.Errorf("%s: preempting wakee is the next buddy = %v, want %v", policy, got, want)
		}

		cl = newClass(t, policy, nil, nil)
		rq = &fakeRQ{}
		ts := runnable(cl, rq, 3)
		q := &cl.cpus[0].root
		q.next, q.last = taskSE(ts[1]), taskSE(ts[2])
		got := cl.PickNext(rq)
		if wantPick := map[bool]*sched.Task{true: ts[1], false: ts[2]}[want]; got != wantPick {
			t.Errorf("%s: picked pid %d with next %d and last %d buddies, want %d", policy, got.PID, ts[1].PID, ts[2].PID, wantPick.PID)
		}
	}
}

// sched_yield: 6.1 makes the yielder the skip buddy, so the pick passes to
// a task 0.5 ms right of it; 2.6.36 only charges it and picks it again.
func TestYieldSkipBuddy61(t *testing.T) {
	for policy, wantOther := range map[string]bool{"cfs-2.6.36": false, "cfs-6.1": true, "cfs-5.10": true} {
		cl := newClass(t, policy, nil, nil)
		rq := &fakeRQ{}
		ts := runnable(cl, rq, 2)
		rq.curr = cl.PickNext(rq)
		other := ts[1]
		if rq.curr == other {
			other = ts[0]
		}
		moveTo(cl, rq, other, taskSE(rq.curr).vruntime+500000)
		cl.Yield(rq, rq.curr)
		cl.PutPrev(rq, rq.curr)
		if got := cl.PickNext(rq) == other; got != wantOther {
			t.Errorf("%s: after yield the other task runs = %v, want %v", policy, got, wantOther)
		}
	}
}

// place_entity: a sleeper gone over 2^63/1024 ns is placed at
// min_vruntime − latency/2 even if its old vruntime was right of that; and a
// SCHED_IDLE sleeper's credit is min_granularity/2, not latency/2.
func TestPlaceEntity61(t *testing.T) {
	for _, c := range []struct {
		policy string
		idle   bool
		slept  int64
		old    int64 // vruntime before the sleep, relative to min_vruntime
		want   int64 // placement relative to min_vruntime
	}{
		{"cfs-6.1", false, longSleeperNS + 1, 10000000, -3000000},
		{"cfs-2.6.36", false, longSleeperNS + 1, 10000000, 10000000},
		{"cfs-6.1", false, longSleeperNS, 10000000, 10000000},
		{"cfs-6.1", true, 1e9, -1e9, -375000},
		{"cfs-2.6.36", true, 1e9, -1e9, -3000000},
		{"cfs-5.10", false, longSleeperNS + 1, 10000000, -3000000},
		{"cfs-5.10", true, 1e9, -1e9, -3000000}, // 5.10: latency/2 for SCHED_IDLE too
	} {
		cl := newClass(t, c.policy, nil, nil)
		rq := &fakeRQ{}
		runnable(cl, rq, 1)
		q := &cl.cpus[0].root
		s := newTask(cl, 0)
		if c.idle {
			s.Policy = uapi.SchedIdle
		}
		se := taskSE(s)
		se.execStart = 1
		se.vruntime = q.minV + uint64(c.old)
		rq.now = 1 + c.slept
		cl.rq(rq)
		cl.placeEntity(q, se, false)
		if got := int64(se.vruntime - q.minV); got != c.want {
			t.Errorf("%s idle=%v slept %d: placed %d ns from min_vruntime, want %d", c.policy, c.idle, c.slept, got, c.want)
		}
	}
}

// update_min_vruntime: 6.1 ignores a curr that has been dequeued, so the
// queue's clock moves up to the leftmost when the running task sleeps.
func TestMinVruntimeIgnoresSleepingCurr61(t *testing.T) {
	for policy, wantLeft := range map[string]bool{"cfs-2.6.36": false, "cfs-6.1": true, "cfs-5.10": true} {
		cl := newClass(t, policy, nil, nil)
		rq := &fakeRQ{}
		ts := runnable(cl, rq, 2)
		rq.curr = cl.PickNext(rq)
		other := ts[1]
		if rq.curr == other {
			other = ts[0]
		}
		q := &cl.cpus[0].root
		moveTo(cl, rq, other, taskSE(rq.curr).vruntime+1000000)
		cl.Dequeue(rq, rq.curr, sched.DequeueSleep)
		if got := q.minV == taskSE(other).vruntime; got != wantLeft {
			t.Errorf("%s: min_vruntime %d after curr slept, leftmost %d: at the leftmost = %v, want %v",
				policy, q.minV, taskSE(other).vruntime, got, wantLeft)
		}
	}
}

// A wakeup that marks curr requests a clock skip in 6.1: schedule() keeps
// the wakeup's clock, so curr is not charged for the 1 µs until it gets
// there; 2.6.36 refreshes the clock in put_prev_task and charges it.
func TestScheduleClockSkip61(t *testing.T) {
	for policy, want := range map[string]uint64{"cfs-2.6.36": 1000, "cfs-6.1": 0, "cfs-5.10": 0} {
		cl := newClass(t, policy, nil, nil)
		rq := &fakeRQ{}
		hog := runnable(cl, rq, 1)[0]
		rq.curr = cl.PickNext(rq)
		rq.now = 5000000
		w := newTask(cl, 0)
		taskSE(w).vruntime = cl.cpus[0].root.minV
		cl.Enqueue(rq, w, sched.EnqueueWakeup)
		cl.CheckPreempt(rq, w, 0)
		if !rq.resched {
			t.Fatalf("%s: the sleeper did not preempt", policy)
		}
		before := taskSE(hog).sumExec
		rq.now += 1000
		cl.PutPrev(rq, hog)
		cl.PickNext(rq)
		if got := taskSE(hog).sumExec - before; got != want {
			t.Errorf("%s: preempted task charged %d ns at put_prev, want %d", policy, got, want)
		}
	}
}

// A SCHED_IDLE curr is preempted by any non-idle wakee in 6.1, a
// SCHED_BATCH one included; 2.6.36 lets no BATCH wakee preempt.
func TestIdleCurrPreemptedByBatch61(t *testing.T) {
	for policy, want := range map[string]bool{"cfs-2.6.36": false, "cfs-6.1": true, "cfs-5.10": true} {
		cl := newClass(t, policy, nil, nil)
		rq := &fakeRQ{}
		idle := newTask(cl, 0)
		idle.Policy = uapi.SchedIdle
		taskSE(idle).load = sched.NiceWeight(0, uapi.SchedIdle)
		cl.Enqueue(rq, idle, 0)
		rq.curr = cl.PickNext(rq)
		b := newTask(cl, 0)
		b.Policy = uapi.SchedBatch
		cl.Enqueue(rq, b, 0)
		cl.CheckPreempt(rq, b, 0)
		if rq.resched != want {
			t.Errorf("%s: batch wakee preempts an idle curr = %v, want %v", policy, rq.resched, want)
		}
	}
}

// dequeue_entity: 6.1 makes a moved task's vruntime relative before
// min_vruntime advances past it, so the leftmost task keeps its place
// (relative 0); 2.6.36 measures it against the advanced clock (−2 ms).
func TestDequeueNormalizesFirst61(t *testing.T) {
	for policy, want := range map[string]int64{"cfs-2.6.36": -2000000, "cfs-6.1": 0} {
		cl := newClass(t, policy, nil, nil)
		rq := &fakeRQ{}
		ts := runnable(cl, rq, 3)
		rq.curr = cl.PickNext(rq)
		var wait []*sched.Task
		for _, x := range ts {
			if x != rq.curr {
				wait = append(wait, x)
			}
		}
		m := cl.cpus[0].root.minV
		moveTo(cl, rq, wait[1], m+2000000)
		rq.now = 5000000 // curr ran 5 ms: the leftmost holds min_vruntime back
		cl.rq(rq)
		cl.updateCurr(taskSE(rq.curr).q)
		cl.Dequeue(rq, wait[0], 0)
		if got := int64(taskSE(wait[0]).vruntime); got != want {
			t.Errorf("%s: moved leftmost task's relative vruntime %d, want %d", policy, got, want)
		}
	}
}

// The order in which a task's children first run turns on what else is
// queued while it forks them (docs/vm.md, debian-6.1's traces of the host
// runner's spawns). START_DEBIT places each child a vslice right of
// min_vruntime. With the forking task alone on its CPU, the first child
// sees the shortest queue and gets the longest slice, so the children run
// last-created first. With two more tasks queued at the root level
// (kernel threads woken by a tick), ALT_PERIOD counts them, and the
// group's share of the root queue falls to a third. Then every child
// after the first gets a slice below min_granularity (6 ms × 1/3 × 1/3 =
// 0.67 ms and less). BASE_SLICE floors those at 0.75 ms, so they run in
// creation order, and the first child (1 ms) runs after all of them.
func TestForkOrderBaseSlice61(t *testing.T) {
	for _, c := range []struct {
		others int
		fifo   bool
	}{{0, false}, {2, true}} {
		cl := newClass(t, "cfs-6.1", nil, nil)
		rq := &fakeRQ{}
		g := &sched.Group{Path: "/session", Shares: 1024, Depth: 1}
		nextPID++
		root := &sched.Task{PID: nextPID, Comm: "root", Group: g}
		cl.TaskNew(root, nil)
		taskSE(root).vruntime = cl.cpus[0].root.minV
		cl.Enqueue(rq, root, sched.EnqueueWakeup)
		rq.curr = cl.PickNext(rq)
		rq.now = 1000000
		for range c.others {
			k := newTask(cl, 0)
			taskSE(k).vruntime = cl.cpus[0].root.minV
			cl.Enqueue(rq, k, sched.EnqueueWakeup)
		}
		var v []int64
		for range 5 {
			rq.now += 50000 // the runner's spawns, ~50–65 µs apart
			nextPID++
			child := &sched.Task{PID: nextPID, Comm: "child", Group: g}
			cl.TaskNew(child, root)
			cl.Fork(rq, rq, root, child)
			cl.Enqueue(rq, child, 0)
			v = append(v, int64(taskSE(child).vruntime))
		}
		for k := 1; k+1 < len(v); k++ {
			if later := v[k+1] > v[k]; later != c.fifo {
				t.Errorf("%d others queued: child %d at %d, child %d at %d: want creation order %v", c.others, k, v[k], k+1, v[k+1], c.fifo)
			}
		}
		if c.fifo && v[0] < v[4] {
			t.Errorf("%d others queued: the first child (%d) runs before the last (%d)", c.others, v[0], v[4])
		}
		if !c.fifo && v[0] < v[1] {
			t.Errorf("%d others queued: the first child (%d) runs before the second (%d)", c.others, v[0], v[1])
		}
	}
}

// sched_wakeup_granularity_ns=4000000 on debian-6.1's trace of fidelity's
// sleeper-under-hogs: a periodic task, placed 3 ms left of min_vruntime
// (GENTLE_FAIR_SLEEPERS, half the 6 ms latency), preempts a busy loop only
// when that loop has run more than 1 ms since it was picked (vdiff =
// 3 ms + its run > 4 ms). The trace's expiries alternate between tick +
// 0.1 ms (none of 98 preempted) and tick + 2.1 ms (96 of 98 did).
func TestWakeupGranularity4ms61(t *testing.T) {
	for _, c := range []struct {
		ran  int64
		want bool
	}{{100000, false}, {900000, false}, {1100000, true}, {2100000, true}} {
		cl := newClass(t, "cfs-6.1", nil, map[string]int64{WakeupGran: 4000000})
		rq := &fakeRQ{}
		runnable(cl, rq, 3)
		rq.curr = cl.PickNext(rq)
		sleeper := newTask(cl, 0) // long asleep: far left of min_vruntime
		taskSE(sleeper).vruntime = cl.cpus[0].root.minV - 100000000
		rq.now += c.ran
		cl.Enqueue(rq, sleeper, sched.EnqueueWakeup)
		if d := int64(cl.cpus[0].root.minV - taskSE(sleeper).vruntime); d != 3000000 {
			t.Fatalf("the sleeper is placed %d ns left of min_vruntime, want 3 ms", d)
		}
		cl.CheckPreempt(rq, sleeper, 0)
		if rq.resched != c.want {
			t.Errorf("curr ran %d ns: preempted %v, want %v", c.ran, rq.resched, c.want)
		}
	}
}
