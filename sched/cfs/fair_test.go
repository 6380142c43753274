package cfs

import (
	"testing"
	"unsafe"

	"schedlab/sched"
)

// fakeRQ is a run queue whose time and current task a test sets by hand.
type fakeRQ struct {
	now     int64
	curr    *sched.Task
	resched bool
	hrtick  int64
}

func (r *fakeRQ) CPU() int                { return 0 }
func (r *fakeRQ) Now() int64              { return r.now }
func (r *fakeRQ) Curr() *sched.Task       { return r.curr }
func (r *fakeRQ) Resched()                { r.resched = true }
func (r *fakeRQ) NeedResched() bool       { return r.resched }
func (r *fakeRQ) StartHRTick(delay int64) { r.hrtick = delay }
func (r *fakeRQ) HRTickActive() bool      { return r.hrtick != 0 }

func newClass(t *testing.T, policy string, features map[string]bool, set map[string]int64) *CFS {
	t.Helper()
	prof, err := sched.Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := prof.NewConfig(1, features, set)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c.(*CFS)
}

var nextPID = 100

func newTask(c *CFS, nice int) *sched.Task {
	nextPID++
	t := &sched.Task{PID: nextPID, Comm: "t", Nice: nice}
	c.TaskNew(t, nil)
	return t
}

// runnable creates n nice-0 tasks queued as woken sleepers.
func runnable(c *CFS, rq *fakeRQ, n int) []*sched.Task {
	var ts []*sched.Task
	for i := 0; i < n; i++ {
		t := newTask(c, 0)
		taskSE(t).vruntime = c.cpus[0].root.minV
		c.Enqueue(rq, t, sched.EnqueueWakeup)
		ts = append(ts, t)
	}
	return ts
}

func TestResolveDerivesNrLatency(t *testing.T) {
	for _, c := range []struct {
		policy string
		set    map[string]int64
		ncpu   int
		want   map[string]int64
	}{
		{"cfs-2.6.35", nil, 1, map[string]int64{Latency: 6000000, MinGranularity: 2000000, NrLatency: 3, WakeupGran: 1000000}},
		{"cfs-2.6.36", nil, 1, map[string]int64{MinGranularity: 750000, NrLatency: 8}},
		{"cfs-2.6.35", map[string]int64{MinGranularity: 750000}, 1, map[string]int64{NrLatency: 8}},
		// 2 CPUs: factor 1+log2(2) = 2 on the scaled tunables only.
		{"cfs-2.6.35", nil, 2, map[string]int64{Latency: 12000000, MinGranularity: 4000000, NrLatency: 3, WakeupGran: 2000000}},
		{"cfs-2.6.35", nil, 16, map[string]int64{Latency: 24000000}},
	} {
		prof, _ := sched.Lookup(c.policy)
		cfg, err := prof.NewConfig(c.ncpu, nil, c.set)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.want {
			if got := cfg.Tunables[k]; got != v {
				t.Errorf("%s ncpu=%d set=%v: %s = %d, want %d", c.policy, c.ncpu, c.set, k, got, v)
			}
		}
	}
	prof, _ := sched.Lookup("cfs-2.6.35")
	if _, err := prof.NewConfig(1, nil, map[string]int64{NrLatency: 5}); err == nil {
		t.Error("setting the derived sched_nr_latency should fail")
	}
}

// 10 runnable nice-0 tasks and one being forked: period(11) = 11 × 2 ms.
func TestSchedSliceForkUnderLoad(t *testing.T) {
	for _, c := range []struct {
		policy      string
		period, sl  uint64
		vslice      uint64
		description string
	}{
		{"cfs-2.6.35", 22000000, 1999825, 1999825, "22 ms period, ≈2 ms slice"},
		{"cfs-2.6.36", 8250000, 749933, 749933, "8.25 ms period, ≈0.75 ms slice"},
	} {
		cl := newClass(t, c.policy, nil, nil)
		rq := &fakeRQ{}
		runnable(cl, rq, 10)
		child := newTask(cl, 0)
		q := &cl.cpus[0].root
		if got := cl.period(q.nr + 1); got != c.period {
			t.Errorf("%s: period(11) = %d, want %d", c.policy, got, c.period)
		}
		if got := cl.schedSlice(q, taskSE(child)); got != c.sl {
			t.Errorf("%s: sched_slice of the fork = %d, want %d (%s)", c.policy, got, c.sl, c.description)
		}
		if got := cl.schedVslice(q, taskSE(child)); got != c.vslice {
			t.Errorf("%s: sched_vslice = %d, want %d", c.policy, got, c.vslice)
		}
	}
}

func TestSchedSliceTwoTasks(t *testing.T) {
	cl := newClass(t, "cfs-2.6.35", nil, nil)
	ts := runnable(cl, &fakeRQ{}, 2)
	if got := cl.schedSlice(&cl.cpus[0].root, taskSE(ts[0])); got != 2998537 {
		t.Fatalf("slice of one of two nice-0 tasks = %d, want 2998537", got)
	}
	cl32 := newClass(t, "cfs-2.6.35", nil, map[string]int64{ArchBits: 32})
	ts = runnable(cl32, &fakeRQ{}, 2)
	if got := cl32.schedSlice(&cl32.cpus[0].root, taskSE(ts[0])); got != 2998535 {
		t.Fatalf("32-bit slice = %d, want 2998535", got)
	}
}

// A group's task gets the period of its own queue times the group's share
// of the root (one task in one of ten equal groups).
func TestSchedSliceHierarchy(t *testing.T) {
	cl := newClass(t, "cfs-2.6.35", nil, nil)
	rq := &fakeRQ{}
	var first *sched.Task
	for i := 0; i < 10; i++ {
		g := &sched.Group{Path: "/g", Shares: 1024, Depth: 1}
		tk := &sched.Task{PID: 500 + i, Group: g}
		cl.TaskNew(tk, nil)
		cl.Enqueue(rq, tk, sched.EnqueueWakeup)
		if first == nil {
			first = tk
		}
	}
	se := taskSE(first)
	// period(1) = 6 ms; ×1024/1024 at the group level (lazy inverse of a
	// 1024 queue), then ×1024/10240 at the root.
	lw := sched.LoadWeight{Weight: 1024}
	want := sched.Arch64.CalcDeltaMine(6000000, 1024, &lw)
	lw = sched.LoadWeight{Weight: 10240}
	want = sched.Arch64.CalcDeltaMine(want, 1024, &lw)
	if got := cl.schedSlice(se.q, se); got != want || got < 590000 || got > 600000 {
		t.Fatalf("slice in one of ten groups = %d, want %d (≈0.6 ms)", got, want)
	}
}

func TestPlaceEntityWakeup(t *testing.T) {
	for _, c := range []struct {
		features map[string]bool
		credit   uint64
	}{
		{nil, 3000000}, // GENTLE_FAIR_SLEEPERS: half of sched_latency
		{map[string]bool{GentleFairSleepers: false}, 6000000},
	} {
		cl := newClass(t, "cfs-2.6.35", c.features, nil)
		q := &cl.cpus[0].root
		q.minV = 100000000
		long := &entity{vruntime: 50000000}  // slept long: its vruntime is far behind
		short := &entity{vruntime: 99000000} // slept briefly: keeps its own
		cl.placeEntity(q, long, false)
		cl.placeEntity(q, short, false)
		if long.vruntime != q.minV-c.credit {
			t.Errorf("long sleeper placed at %d, want min_vruntime−%d = %d", long.vruntime, c.credit, q.minV-c.credit)
		}
		if short.vruntime != 99000000 {
			t.Errorf("short sleeper moved to %d; it must keep 99000000", short.vruntime)
		}
	}
}

func TestForkPlacement(t *testing.T) {
	for _, c := range []struct {
		name     string
		features map[string]bool
		set      map[string]int64
		// expected child offset from min_vruntime, and parent offset after
		childOff, parentOff int64
		resched             bool
	}{
		// START_DEBIT: one vslice of the 3-entity period (6 ms × 1/3).
		{"START_DEBIT", nil, nil, 1999349, 500000, false},
		{"NO_START_DEBIT", map[string]bool{StartDebit: false}, nil, 500000, 500000, false},
		// child_runs_first swaps so that the child is left of the parent.
		{"child_runs_first", nil, map[string]int64{ChildRunsFirst: 1}, 500000, 1999349, true},
	} {
		cl := newClass(t, "cfs-2.6.35", c.features, c.set)
		rq := &fakeRQ{}
		ts := runnable(cl, rq, 2)
		q := &cl.cpus[0].root
		parent := ts[0]
		rq.curr = cl.PickNext(rq)
		if rq.curr != parent {
			t.Fatalf("%s: picked %d, want the first task", c.name, rq.curr.PID)
		}
		base := q.minV
		taskSE(parent).vruntime = base + 500000
		child := newTask(cl, 0)
		cl.Fork(rq, rq, parent, child)
		// The child is stored relative to min_vruntime until it is enqueued.
		if got := int64(taskSE(child).vruntime); got != c.childOff {
			t.Errorf("%s: child at min_vruntime%+d, want %+d", c.name, got, c.childOff)
		}
		if got := int64(taskSE(parent).vruntime - base); got != c.parentOff {
			t.Errorf("%s: parent at min_vruntime%+d, want %+d", c.name, got, c.parentOff)
		}
		if rq.resched != c.resched {
			t.Errorf("%s: resched = %v, want %v", c.name, rq.resched, c.resched)
		}
		cl.Enqueue(rq, child, 0)
		if got := int64(taskSE(child).vruntime - q.minV); got != c.childOff {
			t.Errorf("%s: enqueued child at min_vruntime%+d, want %+d", c.name, got, c.childOff)
		}
	}
}

// The stale fork clock of 2.6.35 leaves the parent's run since its last
// clock update out of the vruntime its child copies; 2.6.36 refreshes it.
func TestForkClock(t *testing.T) {
	for _, c := range []struct {
		policy string
		want   uint64
	}{{"cfs-2.6.35", 0}, {"cfs-2.6.36", 300000}} {
		cl := newClass(t, c.policy, map[string]bool{StartDebit: false}, nil)
		rq := &fakeRQ{}
		parent := runnable(cl, rq, 1)[0]
		rq.curr = cl.PickNext(rq)
		v0 := taskSE(parent).vruntime
		rq.now = 300000 // the parent ran 300 µs since it was picked
		child := newTask(cl, 0)
		cl.Fork(rq, rq, parent, child)
		if got := taskSE(parent).vruntime - v0; got != c.want {
			t.Errorf("%s: parent charged %d ns at fork, want %d", c.policy, got, c.want)
		}
	}
}

func TestWakeupPreemptionGranularity(t *testing.T) {
	for _, c := range []struct {
		lag     int64
		nice    int
		preempt bool
	}{
		{1000001, 0, true},
		{1000000, 0, false}, // must exceed the granularity, not reach it
		{-5000, 0, false},
		{1946768, 3, false}, // a nice +3 wakee's granularity is 1.95 ms virtual
		{1946769, 3, true},
	} {
		cl := newClass(t, "cfs-2.6.35", nil, nil)
		rq := &fakeRQ{}
		hog := runnable(cl, rq, 1)[0]
		rq.curr = cl.PickNext(rq)
		w := newTask(cl, c.nice)
		taskSE(w).vruntime = taskSE(hog).vruntime - uint64(c.lag)
		cl.Enqueue(rq, w, 0) // flags 0 would de-normalize; undo it:
		taskSE(w).vruntime = taskSE(hog).vruntime - uint64(c.lag)
		cl.CheckPreempt(rq, w, 0)
		if rq.resched != c.preempt {
			t.Errorf("lag %d nice %d: preempt = %v, want %v", c.lag, c.nice, rq.resched, c.preempt)
		}
	}
}

// The 64-bit sign bug (fixed in 2.6.38 by d7d8294415f0): on 64-bit, curr
// left of the leftmost looks like a huge distance once min_granularity has
// passed, and the tick ends its slice; 32-bit kernels compare signed and do
// not.
func TestTickSignBug(t *testing.T) {
	for _, c := range []struct {
		arch    int64
		resched bool
	}{{64, true}, {32, false}} {
		cl := newClass(t, "cfs-2.6.35", nil, map[string]int64{ArchBits: c.arch})
		rq := &fakeRQ{}
		ts := runnable(cl, rq, 2)
		rq.curr = cl.PickNext(rq)
		curr := taskSE(rq.curr)
		other := taskSE(ts[1])
		rq.now = 2500000 // ran 2.5 ms: past min_granularity, within the 3 ms slice
		cl.rq(rq)
		cl.updateCurr(curr.q)
		// Put curr 1 ms left of the leftmost.
		other.vruntime = curr.vruntime + 1000000
		cl.Tick(rq, rq.curr, false)
		if rq.resched != c.resched {
			t.Errorf("arch %d: resched = %v, want %v", c.arch, rq.resched, c.resched)
		}
	}
}

func TestTimelineFIFOTies(t *testing.T) {
	var tl timeline
	a, b, c := &entity{vruntime: 5, idx: -1}, &entity{vruntime: 5, idx: -1}, &entity{vruntime: 3, idx: -1}
	tl.insert(a)
	tl.insert(b)
	if tl.leftmost() != a {
		t.Fatal("equal keys must keep insertion order")
	}
	tl.insert(c)
	if tl.leftmost() != c {
		t.Fatal("smaller key must be leftmost")
	}
	tl.remove(c)
	tl.remove(a)
	if tl.leftmost() != b || tl.len() != 1 {
		t.Fatal("remove broke the order")
	}
	// Wrap-around: a vruntime just below 2^64 is before one just above 0.
	x, y := &entity{vruntime: ^uint64(0) - 5, idx: -1}, &entity{vruntime: 10, idx: -1}
	tl.insert(y)
	tl.insert(x)
	if tl.leftmost() != x {
		t.Fatal("ordering is not wrap-safe")
	}
}

// The entity's layout (see entity): what a wakeup touches lies in the
// first cache line, and the entity fills a 128-byte size class, whose
// objects start on a line.
func TestEntityLayout(t *testing.T) {
	var se entity
	if s := unsafe.Sizeof(se); s != 128 {
		t.Errorf("entity is %d bytes, want 128", s)
	}
	for name, end := range map[string]uintptr{
		"vruntime": unsafe.Offsetof(se.vruntime) + 8, "load": unsafe.Offsetof(se.load) + 16,
		"q": unsafe.Offsetof(se.q) + 8, "parent": unsafe.Offsetof(se.parent) + 8,
		"task": unsafe.Offsetof(se.task) + 8, "seq": unsafe.Offsetof(se.seq) + 8,
		"idx": unsafe.Offsetof(se.idx) + 4, "onRQ": unsafe.Offsetof(se.onRQ) + 1,
		"idleCounted": unsafe.Offsetof(se.idleCounted) + 1,
	} {
		if end > 64 {
			t.Errorf("entity.%s ends at byte %d, past the first cache line", name, end)
		}
	}
}

// A CPU's fair queue keeps what a wakeup and a switch touch in three
// lines (cfsRQ): the queues' array starts each on a line (newCPURQs), the
// queue's fields up to the timeline fill the first two with the
// timeline's seq, big and heap length, and the run's head, tail and the
// slots about runStart share one.
func TestRunQueueLayout(t *testing.T) {
	var r cpuRQ
	if s := unsafe.Sizeof(r); s != 512 {
		t.Errorf("cpuRQ is %d bytes, want 512 (newCPURQs)", s)
	}
	for _, n := range []int{1, 2, 3, 64, 65, 1024} {
		rs := newCPURQs(n)
		for i := range rs {
			if a := uintptr(unsafe.Pointer(&rs[i])); a%64 != 0 {
				t.Fatalf("newCPURQs(%d): queue %d is at %#x, not on a cache line", n, i, a)
			}
		}
	}
	base := uintptr(unsafe.Pointer(&r))
	line := func(p unsafe.Pointer, size uintptr) (first, last uintptr) {
		off := uintptr(p) - base
		return off / 64, (off + size - 1) / 64
	}
	q := &r.root
	for _, c := range []struct {
		name string
		p    unsafe.Pointer
		size uintptr
		want uintptr
	}{
		{"clock", unsafe.Pointer(&r.clock), 8, 0}, {"hNr", unsafe.Pointer(&r.hNr), 8, 0},
		{"skipClock", unsafe.Pointer(&r.skipClock), 1, 0}, {"load", unsafe.Pointer(&q.load), 16, 0},
		{"nr", unsafe.Pointer(&q.nr), 8, 0}, {"minV", unsafe.Pointer(&q.minV), 8, 0},
		{"curr", unsafe.Pointer(&q.curr), 8, 0}, {"next", unsafe.Pointer(&q.next), 8, 1},
		{"last", unsafe.Pointer(&q.last), 8, 1}, {"skip", unsafe.Pointer(&q.skip), 8, 1},
		{"cpu", unsafe.Pointer(&q.cpu), 8, 1},
		{"tree.seq", unsafe.Pointer(&q.tree.seq), 8, 1}, {"tree.big", unsafe.Pointer(&q.tree.big), 1, 1},
		{"tree.h (to its length)", unsafe.Pointer(&q.tree.h), 16, 1},
	} {
		if first, last := line(c.p, c.size); first != c.want || last != c.want {
			t.Errorf("cpuRQ: %s is in lines %d-%d, want line %d", c.name, first, last, c.want)
		}
	}
	hl, _ := line(unsafe.Pointer(&q.tree.run.head), 16)
	for i := runStart - 1; i <= runStart+2; i++ {
		if first, _ := line(unsafe.Pointer(&q.tree.run.buf[i]), 8); first != hl {
			t.Errorf("cpuRQ: the run's slot %d is in line %d, its head in line %d", i, first, hl)
		}
	}
	if _, last := line(unsafe.Pointer(&q.tree.run.head), 16); last != hl {
		t.Errorf("cpuRQ: the run's head and tail straddle lines %d and %d", hl, last)
	}
}
