package cfs

import (
	"strings"
	"testing"

	"schedlab/sched"
)

// forkUnderLoad runs a parent picked among two other queued tasks, marks it
// as timer-woken, and forks a child; it returns the child's offset from
// min_vruntime after the enqueue.
func forkUnderLoad(t *testing.T, feats map[string]bool) (child int64, parentW, childW uint64, resched bool) {
	cl := newClass(t, "cfs-2.6.35", feats, nil)
	rq := &fakeRQ{}
	ts := runnable(cl, rq, 3)
	rq.curr = cl.PickNext(rq)
	parent := rq.curr
	q := &cl.cpus[0].root
	taskSE(parent).marks.WakeTimer = true // woken by a timer, as glibc's SIGEV_THREAD helper
	_ = ts
	c := newTask(cl, 0)
	cl.Fork(rq, rq, parent, c)
	cl.Enqueue(rq, c, 0)
	return int64(taskSE(c).vruntime - q.minV), taskSE(parent).load.Weight, taskSE(c).load.Weight, rq.resched
}

func TestTimerForkExpedited(t *testing.T) {
	base, _, _, _ := forkUnderLoad(t, nil)
	// START_DEBIT: one vslice of a 4-entity period (8 ms × 1/4 ≈ 2 ms).
	if base < 1990000 || base > 2000000 {
		t.Fatalf("baseline child at min_vruntime%+d, want ≈ +2 ms", base)
	}
	exp, _, _, _ := forkUnderLoad(t, map[string]bool{Timer: true, TimerForkExpedited: true})
	// Placed as a wakeup: max(parent.v, min_v − 3 ms) = the parent's
	// vruntime, which is min_vruntime itself here.
	if exp != 0 {
		t.Fatalf("expedited child at min_vruntime%+d, want +0 (the parent's vruntime)", exp)
	}
	// The interactive variant ignores timer marks.
	if ie, _, _, _ := forkUnderLoad(t, map[string]bool{Interactive: true, InteractiveForkExpedite: true}); ie != base {
		t.Fatalf("INTERACTIVE_FORK_EXPEDITED expedited a timer-chain fork: %d", ie)
	}
}

func TestStartNice(t *testing.T) {
	off, pw, cw, resched := forkUnderLoad(t, map[string]bool{StartNice: true})
	if off != 0 {
		t.Errorf("START_NICE child at min_vruntime%+d, want max(parent, min_vruntime) = +0", off)
	}
	if pw != 526 || cw != 526 {
		t.Errorf("weights after fork: parent %d child %d, want 526 (nice +3)", pw, cw)
	}
	if !resched {
		t.Error("the reniced running parent must be rescheduled (set_user_nice rule)")
	}
	// The penalty ends at the first deschedule after the task has run,
	// not at one that follows the fork immediately.
	for _, ran := range []int64{0, 1000000} {
		cl := newClass(t, "cfs-2.6.35", map[string]bool{StartNice: true}, map[string]int64{ForkStaleClock: 0})
		rq := &fakeRQ{}
		runnable(cl, rq, 2)
		rq.curr = cl.PickNext(rq)
		parent := rq.curr
		c := newTask(cl, 0)
		cl.Fork(rq, rq, parent, c)
		cl.Enqueue(rq, c, 0)
		rq.now = ran
		cl.PutPrev(rq, parent)
		want := uint64(526)
		if ran > 0 {
			want = 1024
		}
		if w := taskSE(parent).load.Weight; w != want {
			t.Errorf("ran %d ns after the fork, then descheduled: weight %d, want %d", ran, w, want)
		}
		if err := cl.CheckInvariants(rq.now, [][]*sched.Task{{}}); err == nil || !strings.Contains(err.Error(), "reachable") {
			// Loads must still add up; only the engine's (empty) task
			// list passed here differs.
			t.Fatalf("load bookkeeping broken by the reweight: %v", err)
		}
	}
}

// The two readings of START_NICE's placement, for a parent woken with
// sleeper credit: 1.5 ms behind min_vruntime when it forks. R1 floors the
// child at min_vruntime (offset 0, NO_START_DEBIT's place); R2 leaves it at
// the parent's vruntime (offset -1.5 ms); with START_DEBIT kept, both put
// it one vslice after min_vruntime: the period is 4 × 2 ms, the queue's
// load two nice-0 tasks, the reniced parent and the reniced child
// (2·1024 + 2·526), so the slice 8 ms × 526/3100 converted to the child's
// virtual time is 8 ms × 1024/3100 = 2.6426 ms (less the fixed point's
// rounding).
func TestStartNiceReadings(t *testing.T) {
	const behind = 1500000
	for _, c := range []struct {
		reading, keepsDebit int64
		want                int64
	}{{1, 0, 0}, {2, 0, -behind}, {1, 1, 2642580}, {2, 1, 2642580}} {
		cl := newClass(t, "cfs-2.6.35", map[string]bool{StartNice: true},
			map[string]int64{StartNiceReading: c.reading, StartNiceKeepsDebit: c.keepsDebit})
		rq := &fakeRQ{}
		runnable(cl, rq, 3)
		rq.curr = cl.PickNext(rq)
		parent := rq.curr
		q := &cl.cpus[0].root
		taskSE(parent).vruntime = q.minV - behind
		ch := newTask(cl, 0)
		cl.Fork(rq, rq, parent, ch)
		cl.Enqueue(rq, ch, 0)
		if got := int64(taskSE(ch).vruntime - q.minV); got < c.want-1000 || got > c.want+1000 {
			t.Errorf("R%d keeps_debit=%d: child at min_vruntime%+d, want %+d", c.reading, c.keepsDebit, got, c.want)
		}
	}
}

func TestCPTFixComparesVirtualWithVirtual(t *testing.T) {
	// curr is nice +5 (weight 335) against one nice-0 task: its slice is
	// 6 ms × 335/1359 ≈ 1.48 ms wall, ≈ 4.52 ms in its virtual time. After
	// 1 ms of running (past the 0.75 ms min_granularity) with a 3 ms
	// virtual lead over the leftmost, mainline compares 3 ms with the wall
	// slice and preempts; CPT_FIX compares with the virtual slice and not.
	for _, c := range []struct {
		feats   map[string]bool
		resched bool
	}{{nil, true}, {map[string]bool{CPTFix: true}, false}} {
		cl := newClass(t, "cfs-2.6.35", c.feats, map[string]int64{ArchBits: 32, MinGranularity: 750000})
		rq := &fakeRQ{}
		hog, other := newTask(cl, 5), newTask(cl, 0)
		for _, tk := range []*sched.Task{hog, other} {
			taskSE(tk).vruntime = cl.cpus[0].root.minV
			cl.Enqueue(rq, tk, sched.EnqueueWakeup)
		}
		rq.curr = cl.PickNext(rq)
		if rq.curr != hog {
			t.Fatal("hog not picked first")
		}
		rq.now = 1000000
		cl.rq(rq)
		cl.updateCurr(taskSE(hog).q)
		// The only waiting entity: its key in the timeline is not
		// consulted again, so moving it is safe here.
		taskSE(other).vruntime = taskSE(hog).vruntime - 3000000
		cl.Tick(rq, hog, false)
		if rq.resched != c.resched {
			t.Errorf("features %v: resched = %v, want %v", c.feats, rq.resched, c.resched)
		}
	}
}

func TestTimerChainMarksMakeNextBuddy(t *testing.T) {
	for _, on := range []bool{false, true} {
		cl := newClass(t, "cfs-2.6.35", map[string]bool{Timer: on}, nil)
		rq := &fakeRQ{}
		ts := runnable(cl, rq, 2)
		rq.curr = cl.PickNext(rq)
		waker := rq.curr
		taskSE(waker).marks.WakeTimer = true
		u := newTask(cl, 0)
		taskSE(u).vruntime = taskSE(waker).vruntime + 500000 // no wakeup preemption
		u.Wake = sched.WakeInfo{Source: sched.WakeTask, Waker: waker}
		cl.Enqueue(rq, u, sched.EnqueueWakeup)
		cl.CheckPreempt(rq, u, 0)
		q := &cl.cpus[0].root
		if got := q.next == taskSE(u); got != on {
			t.Errorf("TIMER=%v: wakee is next buddy = %v", on, got)
		}
		if got := taskSE(u).marks.SETimer; got != on {
			t.Errorf("TIMER=%v: chain mark = %v", on, got)
		}
		// Blocking clears the marks.
		cl.Dequeue(rq, u, sched.DequeueSleep)
		if taskSE(u).marks.Timer() {
			t.Error("marks survive a block")
		}
		_ = ts
	}
}

func TestDynMinVruntimeRefused(t *testing.T) {
	prof, _ := sched.Lookup("cfs-2.6.35")
	if _, err := prof.ParseFeatures("DYN_MIN_VRUNTIME"); err == nil || !strings.Contains(err.Error(), "only its name") {
		t.Fatalf("DYN_MIN_VRUNTIME: %v", err)
	}
	if _, err := prof.ParseFeatures("NO_DYN_MIN_VRUNTIME"); err != nil {
		t.Fatalf("turning it off must be accepted: %v", err)
	}
	p36, _ := sched.Lookup("cfs-2.6.36")
	if _, err := p36.ParseFeatures("TIMER"); err == nil {
		t.Fatal("the RFC features belong to the 2.6.35 profile only")
	}
}

func TestReconstructionsAreListedWithParameters(t *testing.T) {
	prof, _ := sched.Lookup("cfs-2.6.35")
	cfg, err := prof.NewConfig(1, map[string]bool{StartNice: true, Timer: true}, map[string]int64{StartNiceDelta: 5})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.Reconstructions(), "; ")
	want := "START_NICE@R1 (start_nice_delta=5 start_nice_end=0 start_nice_keeps_debit=0); TIMER@R1"
	if got != want {
		t.Fatalf("reconstructions:\n got %s\nwant %s", got, want)
	}
	r2, _ := prof.NewConfig(1, map[string]bool{StartNice: true}, map[string]int64{StartNiceReading: 2})
	if got := strings.Join(r2.Reconstructions(), "; "); got != "START_NICE@R2 (start_nice_delta=3 start_nice_end=0 start_nice_keeps_debit=0)" {
		t.Fatalf("R2 listed as %s", got)
	}
	plain, _ := prof.NewConfig(1, nil, nil)
	if len(plain.Reconstructions()) != 0 {
		t.Fatal("a default run lists reconstructions")
	}
}
