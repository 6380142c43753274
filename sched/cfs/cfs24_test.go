package cfs

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"schedlab/sched"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// rq24 is a run queue whose clock and running task a test drives (CPU 0
// unless cpu says otherwise).
type rq24 struct {
	cpu     int
	now     int64
	curr    *sched.Task
	resched bool
}

func (r *rq24) CPU() int           { return r.cpu }
func (r *rq24) Now() int64         { return r.now }
func (r *rq24) Curr() *sched.Task  { return r.curr }
func (r *rq24) Resched()           { r.resched = true }
func (r *rq24) NeedResched() bool  { return r.resched }
func (r *rq24) StartHRTick(int64)  {}
func (r *rq24) HRTickActive() bool { return false }

// advance lets the running task run for d ns and ticks.
func (r *rq24) advance(c *CFS24, d int64) {
	r.now += d
	if r.curr != nil {
		c.Tick(r, r.curr, false)
	}
}

// schedule puts the running task back and picks the next, as schedule() does.
func (r *rq24) schedule(c *CFS24) {
	if r.curr != nil {
		c.PutPrev(r, r.curr)
	}
	r.curr = c.PickNext(r)
	r.resched = false
}

func newClass24(t *testing.T, feats map[string]bool, set map[string]int64) *CFS24 {
	t.Helper()
	return newClass24N(t, 1, feats, set)
}

func newClass24N(t *testing.T, ncpu int, feats map[string]bool, set map[string]int64) *CFS24 {
	t.Helper()
	prof, err := sched.Lookup("cfs-2.6.24")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := prof.NewConfig(ncpu, feats, set)
	if err != nil {
		t.Fatal(err)
	}
	c, err := prof.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c.(*CFS24)
}

// start24 creates a task as the workload's initial tasks are: placed as a
// fork with no simulated parent, then enqueued.
func start24(c *CFS24, rq *rq24, uid, nice int) *sched.Task {
	nextPID++
	t := &sched.Task{PID: nextPID, Comm: "t", UID: uid, Nice: nice}
	c.TaskNew(t, nil)
	c.Fork(rq, rq, nil, t)
	c.Enqueue(rq, t, 0)
	return t
}

var noUserSched = map[string]bool{FairUserSched: false}

func TestTunables2624(t *testing.T) {
	prof, err := sched.Lookup("cfs-2.6.24")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ncpu int
		set  map[string]int64
		want map[string]int64
	}{
		{1, nil, map[string]int64{Latency: 20000000, MinGranularity: 4000000, NrLatency: 5, WakeupGran: 10000000,
			BatchWakeupGran: 10000000, ChildRunsFirst: 1, CompatYield: 0, MigrationCost: 500000, ArchBits: 64, RootUserShares: 2048}},
		// factor 1+log2(2) = 2; nr_latency is not scaled.
		{2, nil, map[string]int64{Latency: 40000000, MinGranularity: 8000000, NrLatency: 5, WakeupGran: 20000000, BatchWakeupGran: 20000000}},
		// No cap at 8 CPUs: 16 give factor 5 (2.6.35 would use 4); 100 ms is under the 200 ms cap.
		{16, nil, map[string]int64{Latency: 100000000, MinGranularity: 20000000, NrLatency: 5, WakeupGran: 50000000}},
		// 1024 CPUs, factor 11: latency 220 ms is capped, the granularities are not.
		{1024, nil, map[string]int64{Latency: 200000000, MinGranularity: 44000000, NrLatency: 5, WakeupGran: 110000000}},
		// Writing a sysctl recomputes ceil(20/3) = 7; user values are not capped.
		{1, map[string]int64{MinGranularity: 3000000}, map[string]int64{NrLatency: 7}},
		{1, map[string]int64{Latency: 300000000}, map[string]int64{Latency: 300000000, NrLatency: 75}},
	} {
		cfg, err := prof.NewConfig(c.ncpu, nil, c.set)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.want {
			if got := cfg.Tunables[k]; got != v {
				t.Errorf("ncpu=%d set=%v: %s = %d, want %d", c.ncpu, c.set, k, got, v)
			}
		}
	}
	if _, err := prof.NewConfig(1, nil, map[string]int64{NrLatency: 3}); err == nil {
		t.Error("setting the derived sched_nr_latency should fail")
	}
}

func TestPeriodSlice2624(t *testing.T) {
	c := newClass24(t, noUserSched, nil)
	for n, want := range map[uint64]uint64{1: 20000000, 5: 20000000, 6: 24000000, 10: 40000000} {
		if got := c.period(n); got != want {
			t.Errorf("period(%d) = %d, want %d (latency x n / 5 beyond 5)", n, got, want)
		}
	}
	// With min_granularity 3 ms, nr_latency is 7 and the stretched period
	// is 20 ms x 10/7, not 2.6.35's min_granularity x 10 = 30 ms.
	if got := newClass24(t, noUserSched, map[string]int64{MinGranularity: 3000000}).period(10); got != 28571428 {
		t.Errorf("period(10) with min_granularity 3 ms = %d, want 28571428", got)
	}
	rq := &rq24{}
	a, _ := start24(c, rq, 0, 0), start24(c, rq, 0, 0)
	q := &c.cpus[0].root
	// Plain division: exactly 10 ms (2.6.35's fixed point gives 9 998 xxx).
	if got := c.slice(q, taskSE(a)); got != 10000000 {
		t.Errorf("slice of one of two nice-0 tasks = %d, want 10000000", got)
	}
	for _, v := range []struct {
		w, n, want uint64
	}{
		{2 * 1024, 2, 10000000},   // one nice-0 queued + a nice-0 child: period(2)/2
		{3 * 1024, 3, 6666666},    // two queued + child: 20 ms / 3, truncated
		{6 * 1024, 6, 4000000},    // five queued + child: period(6) = 24 ms, / 6
		{3121 + 1024, 2, 4940892}, // nice -5 queued + nice-0 child: 20 ms x 1024 / 4145
	} {
		if got := c.vslice(v.w, v.n); got != v.want {
			t.Errorf("vslice_add(W=%d, n=%d) = %d, want %d", v.w, v.n, got, v.want)
		}
	}
}

func TestPlaceWakingTask2624(t *testing.T) {
	const m = 1000000000
	for _, c := range []struct {
		feats map[string]bool
		old   uint64
		want  uint64
		why   string
	}{
		{noUserSched, m - 50000000, m - 20000000, "long sleep: a full latency of credit"},
		{noUserSched, m - 5000000, m - 5000000, "short sleep: keeps its old vruntime"},
		{map[string]bool{FairUserSched: false, NewFairSleepers: false}, m - 50000000, m, "NO_NEW_FAIR_SLEEPERS: no credit"},
	} {
		cl := newClass24(t, c.feats, nil)
		q := &cl.cpus[0].root
		q.minV = m
		p := &sched.Task{PID: 1}
		cl.TaskNew(p, nil)
		taskSE(p).vruntime = c.old
		cl.placeEntity(q, taskSE(p), false)
		if got := taskSE(p).vruntime; got != c.want {
			t.Errorf("%s: vruntime %d, want %d", c.why, got, c.want)
		}
	}
}

// A uid-1 hog runs 100 ms alone; then a uid-2 task wakes. Its group entity
// is placed at the root's min_vruntime, level with the hog's group, and does
// not preempt; with the 2008 fix it gets the 20 ms credit and preempts.
func TestPlaceWakingGroup2624(t *testing.T) {
	for _, fix := range []bool{false, true} {
		c := newClass24(t, map[string]bool{GroupSleeperCredit: fix}, nil)
		rq := &rq24{}
		hog := start24(c, rq, 1, 0)
		rq.schedule(c)
		for i := 0; i < 25; i++ {
			rq.advance(c, 4000000)
		}
		root := &c.cpus[0].root
		a := taskSE(hog).parent
		if a.vruntime != 100000000 || root.minV != 100000000 {
			t.Fatalf("after 100 ms alone: group vruntime %d, min_vruntime %d, want both 100000000", a.vruntime, root.minV)
		}
		m := &sched.Task{PID: 2, UID: 2}
		c.TaskNew(m, nil)
		c.Enqueue(rq, m, sched.EnqueueWakeup)
		b := taskSE(m).parent
		want, preempt := uint64(100000000), false
		if fix {
			want, preempt = 80000000, true
		}
		if b.vruntime != want {
			t.Errorf("fix=%v: waking group placed at %d, want %d", fix, b.vruntime, want)
		}
		c.CheckPreempt(rq, m, 0)
		if rq.resched != preempt {
			t.Errorf("fix=%v: preempted = %v, want %v (preempt iff B.v + 10 ms < A.v)", fix, rq.resched, preempt)
		}
	}
}

// A fork is placed at min_vruntime + vslice_add whatever its old vruntime.
func TestPlaceFork2624(t *testing.T) {
	for _, old := range []int64{+1000000000, -1000000000} {
		c := newClass24(t, noUserSched, map[string]int64{ChildRunsFirst: 0})
		rq := &rq24{}
		parent := start24(c, rq, 0, 0)
		rq.schedule(c)
		rq.advance(c, 30000000)
		minV := c.cpus[0].root.minV
		child := &sched.Task{PID: 2}
		c.TaskNew(child, parent)
		taskSE(child).vruntime = minV + uint64(old)
		c.Fork(rq, rq, parent, child)
		if got := taskSE(child).vruntime; got != minV+10000000 {
			t.Errorf("old vruntime min_v%+d: child placed at min_v%+d, want min_v+10000000", old, int64(got-minV))
		}
	}
}

func TestWakeupPreemptGran2624(t *testing.T) {
	for _, c := range []struct {
		currNice, wakeeNice int
		gran                uint64
	}{
		// Scaled by curr's weight: 10 ms x 1024/3121 = 3 280 999.7, and
		// calc_delta_fair's fixed point rounds it to 3 281 000.
		{-5, 0, 3281000},
		// A lighter wakee does not get a larger gran (2.6.35 would use
		// 10 ms x 1024/335 ≈ 30.6 ms).
		{0, 5, 10000000},
	} {
		for _, by := range []uint64{c.gran, c.gran + 1} {
			cl := newClass24(t, noUserSched, nil)
			rq := &rq24{}
			curr := start24(cl, rq, 0, c.currNice)
			rq.schedule(cl)
			rq.advance(cl, 3000000)
			w := &sched.Task{PID: 2, Nice: c.wakeeNice}
			cl.TaskNew(w, nil)
			taskSE(w).vruntime = taskSE(curr).vruntime - by
			cl.Enqueue(rq, w, sched.EnqueueWakeup)
			if taskSE(w).vruntime != taskSE(curr).vruntime-by {
				t.Fatalf("the wakee's placement moved it")
			}
			cl.CheckPreempt(rq, w, 0)
			if want := by > c.gran; rq.resched != want {
				t.Errorf("curr nice %d, wakee nice %d, %d left of curr: preempted = %v, want %v",
					c.currNice, c.wakeeNice, by, rq.resched, want)
			}
			if by != c.gran {
				continue
			}
			// Curr runs on, but the test uses its vruntime as the
			// enqueue left it: no update_curr before comparing.
			v := taskSE(curr).vruntime
			rq.now += 5000000
			cl.CheckPreempt(rq, w, 0)
			if rq.resched || taskSE(curr).vruntime != v {
				t.Errorf("curr nice %d: the wakeup test refreshed curr (resched %v, vruntime %d → %d)",
					c.currNice, rq.resched, v, taskSE(curr).vruntime)
			}
		}
	}
}

// task_new_fair runs on the child's run queue: a child the engine places on
// another CPU, one the class has never been given, is placed on that CPU's
// queue and reschedules that CPU's task, while the parent, on its own
// CPU, keeps its vruntime and is not rescheduled.
func TestForkOntoAnotherCPU2624(t *testing.T) {
	c := newClass24N(t, 2, noUserSched, map[string]int64{ChildRunsFirst: 1})
	rq0 := &rq24{}
	parent := start24(c, rq0, 0, 0)
	rq0.schedule(c)
	rq0.advance(c, 30000000)
	pv := taskSE(parent).vruntime
	child := &sched.Task{PID: 2, CPU: 1}
	c.TaskNew(child, parent)
	rq1 := &rq24{cpu: 1, now: rq0.now}
	c.Fork(rq0, rq1, parent, child)
	if !rq1.resched || rq0.resched {
		t.Errorf("need_resched: child's CPU %v, parent's CPU %v; want true, false", rq1.resched, rq0.resched)
	}
	if taskSE(child).q != &c.cpus[1].root || taskSE(parent).vruntime != pv {
		t.Errorf("child not on CPU 1's queue, or the parent's vruntime moved (%d → %d)", pv, taskSE(parent).vruntime)
	}
}

func TestForkReschedAndChildRunsFirst2624(t *testing.T) {
	for _, crf := range []int64{0, 1} {
		c := newClass24(t, nil, map[string]int64{ChildRunsFirst: crf})
		rq := &rq24{}
		parent := start24(c, rq, 0, 0)
		rq.schedule(c)
		rq.advance(c, 30000000)
		pv := taskSE(parent).vruntime
		q := taskSE(parent).q
		child := &sched.Task{PID: 2}
		c.TaskNew(child, parent)
		c.Fork(rq, rq, parent, child)
		if !rq.resched {
			t.Errorf("child_runs_first=%d: fork did not set need_resched", crf)
		}
		// In uid 0's group the parent is alone: vslice_add = 10 ms.
		placed := q.minV + 10000000
		wantP, wantC := pv, placed
		if crf == 1 {
			wantP, wantC = placed, pv
		}
		if taskSE(parent).vruntime != wantP || taskSE(child).vruntime != wantC {
			t.Errorf("child_runs_first=%d: parent %d child %d, want %d and %d",
				crf, taskSE(parent).vruntime, taskSE(child).vruntime, wantP, wantC)
		}
		c.Enqueue(rq, child, 0)
		if taskSE(child).vruntime != wantC {
			t.Errorf("child_runs_first=%d: enqueue(0) moved the child to %d", crf, taskSE(child).vruntime)
		}
		rq.schedule(c)
		if want := map[int64]*sched.Task{0: parent, 1: child}[crf]; rq.curr != want {
			t.Errorf("child_runs_first=%d: pid %d runs after the fork, want %d", crf, rq.curr.PID, want.PID)
		}
	}
}

// The tick ends a slice only when ran > slice: a waiting task 20 ms left of
// curr does not end it early, and no min_granularity applies.
func TestTickWallClockOnly2624(t *testing.T) {
	c := newClass24(t, noUserSched, nil)
	rq := &rq24{}
	a := start24(c, rq, 0, 0)
	rq.schedule(c)
	rq.advance(c, 1000000)
	b := &sched.Task{PID: 2}
	c.TaskNew(b, nil)
	taskSE(b).vruntime = taskSE(a).vruntime - 1000000000 // slept long
	c.Enqueue(rq, b, sched.EnqueueWakeup)
	if d := int64(taskSE(a).vruntime - taskSE(b).vruntime); d != 20000000 {
		t.Fatalf("sleeper placed %d left of curr, want 20 ms", d)
	}
	for ms := int64(4); ms <= 12; ms += 4 {
		rq.advance(c, 4000000)
		// slice = 20 ms x 1024/2048 = 10 ms: ran 4 and 8 ms keep running.
		if want := ms > 10; rq.resched != want {
			t.Fatalf("tick after %d ms: resched = %v, want %v", ms, rq.resched, want)
		}
	}
	// NO_WAKEUP_PREEMPT checks even a lone task: its slice is the latency.
	c = newClass24(t, map[string]bool{FairUserSched: false, WakeupPreempt: false}, nil)
	rq = &rq24{}
	start24(c, rq, 0, 0)
	rq.schedule(c)
	for ms := int64(4); ms <= 24; ms += 4 {
		rq.advance(c, 4000000)
		if want := ms > 20; rq.resched != want {
			t.Fatalf("NO_WAKEUP_PREEMPT, alone, tick after %d ms: resched = %v, want %v", ms, rq.resched, want)
		}
	}
}

// wakeups records one task's wakeup latencies: sched_waking to its
// switch-in.
type wakeups struct {
	comm    string
	pid     int32
	waking  int64
	pending bool
	lat     []int64
}

func (w *wakeups) Event(e *trace.Event) {
	switch {
	case e.Kind == trace.Fork && e.ChildComm == w.comm:
		w.pid = e.ChildPID
	case e.Kind == trace.Waking && e.PID == w.pid:
		w.waking, w.pending = e.TS, true
	case e.Kind == trace.Switch && e.NextPID == w.pid && w.pending:
		w.lat = append(w.lat, e.TS-w.waking)
		w.pending = false
	}
}

func (w *wakeups) median() float64 {
	s := slices.Clone(w.lat)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

func run24(t *testing.T, js string, feats map[string]bool, d int64, sink trace.Sink) *sim.Engine {
	t.Helper()
	spec, err := workload.Parse("test.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	prof, _ := sched.Lookup("cfs-2.6.24")
	cfg, err := prof.NewConfig(1, feats, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := sim.New(sim.Config{Spec: spec, Sched: cfg, Params: sim.DefaultParams(), Duration: d, Seed: 3, Sink: sink, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return e
}

// Seed 003: two busy loops of uid 1 and a uid-2 task that runs 50 µs and
// sleeps 20-40 ms. Under FAIR_USER_SCHED its group gets no sleeper credit,
// ties with the hogs' group at wakeup and waits for the next hog switch
// (every 12 ms at HZ=250): median ≈ 6 ms; the report says 4.3-4.8 ms. The
// fix, no grouping, or the same uid give it the credit: it runs at once.
func TestSeed003WakeupLatency2624(t *testing.T) {
	const workloadFmt = `{"tasks": {
		"hog": {"instance": 2, "uid": 1, "run": 100000},
		"m":   {"uid": %d, "run": 50, "sleep": {"dist": "uniform", "min": 20000, "max": 40000}}}}`
	for _, c := range []struct {
		name     string
		feats    map[string]bool
		uid      int
		min, max float64 // ms
	}{
		{"FAIR_USER_SCHED", nil, 2, 3, 7},
		{"GROUP_SLEEPER_CREDIT", map[string]bool{GroupSleeperCredit: true}, 2, 0, 0.5},
		{"NO_FAIR_USER_SCHED", noUserSched, 2, 0, 0.5},
		{"sleeper in uid 1", nil, 1, 0, 0.5},
	} {
		w := &wakeups{comm: "m"}
		run24(t, fmt.Sprintf(workloadFmt, c.uid), c.feats, 20e9, w)
		if len(w.lat) < 400 {
			t.Fatalf("%s: only %d wakeups measured", c.name, len(w.lat))
		}
		med := w.median() / 1e6
		t.Logf("%s: median wakeup latency %.3f ms over %d wakeups", c.name, med, len(w.lat))
		if med < c.min || med > c.max {
			t.Errorf("%s: median wakeup latency %.3f ms, want [%g, %g] ms", c.name, med, c.min, c.max)
		}
	}
}

// pids maps comms to PIDs from the fork events.
type pids map[string]int

func (p pids) Event(e *trace.Event) {
	if e.Kind == trace.Fork {
		p[e.ChildComm] = int(e.ChildPID)
	}
}

// Per-user fairness: with FAIR_USER_SCHED the lone uid-2 loop gets half the
// CPU against two uid-1 loops, without it a third; uid 0's group weighs
// root_user_shares = 2048, so root's loop gets 2/3 against another user's.
func TestPerUserFairness2624(t *testing.T) {
	const users = `{"tasks": {"a": {"instance": 2, "uid": 1, "run": 100000}, "b": {"uid": 2, "run": 100000}}}`
	const root = `{"tasks": {"a": {"uid": 1, "run": 100000}, "b": {"run": 100000}}}`
	for _, c := range []struct {
		js    string
		feats map[string]bool
		want  float64
	}{
		{users, nil, 0.5},
		{users, noUserSched, 1.0 / 3},
		{root, nil, 2.0 / 3},
		{root, noUserSched, 0.5},
	} {
		p := pids{}
		e := run24(t, c.js, c.feats, 10e9, p)
		got := float64(e.TaskRuntime()[p["b"]]) / float64(e.Now())
		if math.Abs(got-c.want) > 0.01 {
			t.Errorf("%s %v: b got %.4f of the CPU, want %.4f ± 0.01", c.js, c.feats, got, c.want)
		}
	}
}
