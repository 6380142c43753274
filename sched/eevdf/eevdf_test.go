package eevdf

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"schedlab/sched"
	"schedlab/uapi"
)

// fakeRQ is a run queue whose time and running task a test sets by hand.
type fakeRQ struct {
	cpu     int
	now     int64
	curr    *sched.Task
	resched bool
	hrtick  int64
}

func (r *fakeRQ) CPU() int                { return r.cpu }
func (r *fakeRQ) Now() int64              { return r.now }
func (r *fakeRQ) Curr() *sched.Task       { return r.curr }
func (r *fakeRQ) Resched()                { r.resched = true }
func (r *fakeRQ) NeedResched() bool       { return r.resched }
func (r *fakeRQ) StartHRTick(delay int64) { r.hrtick = delay }
func (r *fakeRQ) HRTickActive() bool      { return r.hrtick != 0 }

// newClass builds a class for one CPU (base slice 0.70 ms on 6.18, 0.75 ms
// before).
func newClass(t testing.TB, policy string, feats map[string]bool, set map[string]int64) *EEVDF {
	t.Helper()
	c, err := newOfConfig(config(t, policy, 1, feats, set))
	if err != nil {
		t.Fatal(err)
	}
	return c.(*EEVDF)
}

var nextPID = 100

func newTask(c *EEVDF, nice int) *sched.Task {
	nextPID++
	t := &sched.Task{PID: nextPID, Comm: "t", Nice: nice}
	c.TaskNew(t, nil)
	return t
}

// queueN starts n new tasks of one nice level and lets the first run.
func queueN(c *EEVDF, rq *fakeRQ, n, nice int) []*sched.Task {
	var ts []*sched.Task
	for i := 0; i < n; i++ {
		t := newTask(c, nice)
		c.Fork(rq, rq, nil, t)
		c.Enqueue(rq, t, 0)
		ts = append(ts, t)
	}
	schedule(c, rq)
	return ts
}

// schedule is the engine's schedule(): put back and pick.
func schedule(c *EEVDF, rq *fakeRQ) *sched.Task {
	rq.resched = false
	if rq.curr != nil {
		c.PutPrev(rq, rq.curr)
	}
	rq.curr = c.PickNext(rq)
	return rq.curr
}

// run lets the running task run d ns, then ticks.
func run(c *EEVDF, rq *fakeRQ, t *sched.Task, d int64) {
	if rq.curr != t {
		panic("run: not the running task")
	}
	rq.now += d
	c.Tick(rq, t, false)
}

// Test vectors of the 6.x fixed point (__calc_delta).
func TestCalcDeltaFair(t *testing.T) {
	for _, c := range []struct {
		d    int64
		nice int
		w    uint64 // group weight instead of nice, if set
		want uint64
	}{
		{4000000, 5, 0, 12226865},
		{4000000, -5, 0, 1312399},
		{1400000, 5, 0, 4279403},
		{1400000, 0, 512, 2799999},
		{1400000, 0, 0, 1400000},
		{5400000, 5, 0, 16506268},
		{700000, -5, 0, 229669},
	} {
		lw := sched.NiceWeight(c.nice, uapi.SchedNormal)
		se := &entity{w: lw.Weight, inv: lw.Inv}
		if c.w != 0 {
			se = &entity{w: c.w}
		}
		if got := calcDeltaFair(c.d, se); got != c.want {
			t.Errorf("calc_delta_fair(%d, w=%d) = %d, want %d", c.d, se.w, got, c.want)
		}
	}
}

// bareQueue holds entities of weights ws at vruntimes v0+keys.
func bareQueue(v0 uint64, ws []uint64, keys []int64) (*cfsRQ, []*entity) {
	q := &cfsRQ{v0: v0}
	var es []*entity
	for i, w := range ws {
		e := &entity{w: w, vruntime: v0 + uint64(keys[i]), slice: 700000, onRQ: true, q: q}
		e.deadline = e.vruntime + 1
		q.enqueueTree(e)
		q.addLoad(w)
		q.nr++
		es = append(es, e)
	}
	return q, es
}

// V of nice 0, +5 and −5 at keys 0, +3 ms and −1 ms:
// (335·3e6 − 3121·1e6)/4480 = −472321.43 → floor −472322; the origin
// (here at the wrap point, and at 12345) does not change it.
func TestAvgVruntimeAndEligibility(t *testing.T) {
	ws := []uint64{1024, 335, 3121}
	keys := []int64{0, 3000000, -1000000}
	for _, v0 := range []uint64{initialV0, 12345} {
		q, es := bareQueue(v0, ws, keys)
		if got := int64(q.avg() - v0); got != -472322 {
			t.Fatalf("v0=%d: V − v0 = %d, want −472322 (floor)", v0, got)
		}
		for i, want := range []bool{false, false, true} {
			if got := q.eligible(es[i]); got != want {
				t.Errorf("entity %d (key %d) eligible = %v, want %v", i, keys[i], got, want)
			}
		}
		// Exactly at the floor of V: eligible (V = −472321.43 ≥ −472322);
		// one above: not.
		if !q.vruntimeEligible(v0-472322) || q.vruntimeEligible(v0-472321) {
			t.Error("eligibility at the floor of V is wrong")
		}
		// Σ w·(V − v) = W·floor(V) − Σ w·v ∈ (−W, 0].
		s, w := q.sums()
		if sum := w*int64(q.avg()-v0) - s; sum != 4480*-472322+2116000000 || sum > 0 || sum <= -w {
			t.Errorf("weighted lag sum %d", sum)
		}
	}
	// An empty queue answers its stale origin.
	if q := (&cfsRQ{v0: 777}); q.avg() != 777 {
		t.Error("empty queue: V should be the origin")
	}
}

// The lag clamp: 6.18.35 max_slice + tick (0.7 + 4 ms), 6.6 and 6.18.2
// max(2·slice, tick) = 4 ms, in the entity's virtual time.
func TestLagClamp(t *testing.T) {
	for _, c := range []struct {
		policy string
		set    map[string]int64
		nice   int
		want   int64
	}{
		{"eevdf-6.18", nil, 0, 4700000},
		{"eevdf-6.18", nil, 5, 14366567}, // calc_delta_fair(4.7 ms, nice 5)
		{"eevdf-6.18", map[string]int64{Sublevel: 2}, 0, 4000000},
		{"eevdf-6.6", nil, 0, 4000000},
		{"eevdf-6.6", map[string]int64{BaseSlice: 3000000}, 0, 6000000},
	} {
		cl := newClass(t, c.policy, nil, c.set)
		rq := &fakeRQ{}
		ts := queueN(cl, rq, 2, c.nice)
		se := taskSE(ts[1])
		// The waiting task is owed far more than the clamp.
		q := se.q
		q.dequeueTree(se)
		se.vruntime -= 1 << 40
		q.enqueueTree(se)
		cl.updateEntityLag(q, se)
		if se.vlag != c.want {
			t.Errorf("%s %v nice %d: clamped vlag %d, want %d", c.policy, c.set, c.nice, se.vlag, c.want)
		}
		q.dequeueTree(se)
		se.vruntime += 2 << 40
		q.enqueueTree(se)
		cl.updateEntityLag(q, se)
		if se.vlag != -c.want {
			t.Errorf("%s: negative clamp %d, want %d", c.policy, se.vlag, -c.want)
		}
	}
}

// A waking task with lag is placed at V − vlag·(W+w)/W, so that its lag
// after joining is the one it saved; its deadline is one virtual slice on.
func TestPlacementInflatesLag(t *testing.T) {
	for _, c := range []struct {
		nice    int
		vlag    int64
		lag     int64  // inflated
		vslice  uint64 // 0.7 ms in its virtual time
		exactly bool
	}{
		{0, 1000000, 1500000, 700000, true},
		{5, 1000000, 1163574, 2139701, false}, // 1e6·2383/2048
		{0, -800000, -1200000, 700000, true},
	} {
		cl := newClass(t, "eevdf-6.18", nil, nil)
		rq := &fakeRQ{}
		queueN(cl, rq, 2, 0)
		s := newTask(cl, c.nice)
		cl.Fork(rq, rq, nil, s)
		se := taskSE(s)
		se.initial = false
		se.vlag = c.vlag
		q := se.q
		v := q.avg()
		cl.Enqueue(rq, s, sched.EnqueueWakeup)
		if got := int64(v - se.vruntime); got != c.lag {
			t.Errorf("nice %d vlag %d: placed %d before V, want %d", c.nice, c.vlag, got, c.lag)
		}
		if got := se.deadline - se.vruntime; got != c.vslice {
			t.Errorf("nice %d: deadline %d after vruntime, want %d", c.nice, got, c.vslice)
		}
		_, vl := Lag(s)
		if c.exactly && vl != c.vlag || !c.exactly && (vl-c.vlag > 1 || c.vlag-vl > 1) {
			t.Errorf("nice %d: lag after joining %d, want %d", c.nice, vl, c.vlag)
		}
	}
}

// A new task joins at V with a half request from 6.12 (PLACE_DEADLINE_INITIAL);
// 6.6 placed it twice and kept a full one.
func TestNewTaskDeadline(t *testing.T) {
	for _, c := range []struct {
		policy string
		feats  map[string]bool
		want   uint64
	}{
		{"eevdf-6.18", nil, 350000},
		{"eevdf-6.18", map[string]bool{PlaceDeadlineInitial: false}, 700000},
		{"eevdf-6.12", nil, 350000}, // Debian 6.12.95: 0.70 ms base slice
		{"eevdf-6.6", nil, 750000},
	} {
		cl := newClass(t, c.policy, c.feats, nil)
		rq := &fakeRQ{}
		ts := queueN(cl, rq, 2, 0)
		run(cl, rq, ts[0], 300000)
		child := newTask(cl, 0)
		cl.Fork(rq, rq, ts[0], child)
		v := taskSE(ts[0]).q.avg()
		cl.Enqueue(rq, child, 0)
		se := taskSE(child)
		if se.vruntime != v || se.deadline-se.vruntime != c.want {
			t.Errorf("%s %v: placed at V%+d with request %d, want V and %d", c.policy, c.feats, int64(se.vruntime-v), se.deadline-se.vruntime, c.want)
		}
	}
}

// SIGEV_THREAD's step on 6.12 (debian-6.12's sigev-thread trace): glibc's
// helper H, woken owing service, forks the callback C and blocks. C joins
// at V with half a request; H leaves with its positive lag, which lifts V
// for C and the waiting hog B alike. So whether C runs at once or waits
// for B's request depends only on B's lag when C joined: B (deadline
// v_B + 0.7 ms) goes first iff V_fork − v_B > 0.35 ms. Hand-computed,
// relative to the queue's origin:
//
//	B runs bRun (its request renewed: v_B + 0.7 ms), A runs 2.5 ms, H (new,
//	deadline 0.35 ms) is picked, runs 30 µs and forks C:
//	  V_fork = floor((bRun + 2.5 ms + 30 µs)/3), C's deadline V_fork + 0.35 ms
//	H blocks 8 µs later, eligible (V = floor((bRun+2.5 ms+38 µs+V_fork)/4)):
//	  it leaves with vlag V − 38 µs, not delayed.
//	bRun 720 µs: V_fork 1083333, B 1420000 < C 1433333: B runs.
//	bRun 760 µs: V_fork 1096666, C 1446666 < B 1460000: C runs.
//
// The kernel's trace shows both picks; which one a run sees is set by the
// lags the hogs and H carry, not by a different rule.
func TestForkThenBlockPick612(t *testing.T) {
	for _, c := range []struct {
		bRun              int64
		vFork, hLag       uint64
		cDeadline, bDline uint64
		callbackFirst     bool
	}{
		{720000, 1083333, 1047333, 1433333, 1420000, false},
		{760000, 1096666, 1060666, 1446666, 1460000, true},
	} {
		cl := newClass(t, "eevdf-6.12", nil, nil)
		rq := &fakeRQ{}
		ts := queueN(cl, rq, 3, 0)
		b, a, h := ts[0], ts[1], ts[2]
		base := taskSE(b).vruntime // all three joined at V with zero lag
		rel := func(v uint64) uint64 { return v - base }
		run(cl, rq, b, c.bRun)
		if schedule(cl, rq) != a {
			t.Fatalf("bRun %d: A should follow B", c.bRun)
		}
		run(cl, rq, a, 2500000)
		if schedule(cl, rq) != h {
			t.Fatalf("bRun %d: H (deadline 0.35 ms) should follow A", c.bRun)
		}
		rq.now += 30000
		child := newTask(cl, 0)
		cl.Fork(rq, rq, h, child)
		cl.Enqueue(rq, child, 0)
		cl.CheckPreempt(rq, child, sched.WFFork)
		cse, hse, bse := taskSE(child), taskSE(h), taskSE(b)
		if rel(cse.vruntime) != c.vFork || rel(cse.deadline) != c.cDeadline {
			t.Errorf("bRun %d: C at %d, deadline %d; want %d, %d", c.bRun, rel(cse.vruntime), rel(cse.deadline), c.vFork, c.cDeadline)
		}
		if rq.resched {
			t.Errorf("bRun %d: the fork preempted H, whose request is protected", c.bRun)
		}
		rq.now += 8000
		cl.Dequeue(rq, h, sched.DequeueSleep)
		if hse.onRQ || hse.delayed || uint64(hse.vlag) != c.hLag {
			t.Errorf("bRun %d: H queued %v delayed %v vlag %d; want gone with %d", c.bRun, hse.onRQ, hse.delayed, hse.vlag, c.hLag)
		}
		if rel(bse.deadline) != c.bDline {
			t.Errorf("bRun %d: B's deadline %d, want %d", c.bRun, rel(bse.deadline), c.bDline)
		}
		want := b
		if c.callbackFirst {
			want = child
		}
		if got := schedule(cl, rq); got != want {
			t.Errorf("bRun %d: picked pid %d after H blocked, want %d", c.bRun, got.PID, want.PID)
		}
	}
}

// Two hogs, tick-only: the tick ends the 0.7 ms request of the running one
// (deadline renewed from its current vruntime, 4.7 ms on), the other is
// eligible with the earlier deadline and gets the CPU. With ties (both new
// at V with the same deadline) 6.18 prefers the waiting entity over curr,
// 6.6 keeps curr.
func TestPickAndTies(t *testing.T) {
	cl := newClass(t, "eevdf-6.18", nil, nil)
	rq := &fakeRQ{}
	ts := queueN(cl, rq, 2, 0)
	a, b := taskSE(ts[0]), taskSE(ts[1])
	if rq.curr != ts[0] || a.deadline != b.deadline {
		t.Fatalf("setup: curr %v, deadlines %d %d", rq.curr.PID, a.deadline, b.deadline)
	}
	run(cl, rq, ts[0], 4000000)
	if !rq.resched || a.deadline != a.vruntime+700000 {
		t.Fatalf("tick after 4 ms: resched %v, deadline %d after vruntime", rq.resched, a.deadline-a.vruntime)
	}
	if next := schedule(cl, rq); next != ts[1] {
		t.Fatalf("after the tick the other hog should run")
	}
	// Equal deadlines, curr eligible and not protected: the waiting one
	// wins in 6.18, curr in 6.6.
	for _, c := range []struct {
		policy   string
		wantCurr bool
	}{{"eevdf-6.18", false}, {"eevdf-6.6", true}} {
		cl := newClass(t, c.policy, map[string]bool{RunToParity: false}, nil)
		rq := &fakeRQ{}
		ts := queueN(cl, rq, 2, 0)
		a, b := taskSE(ts[0]), taskSE(ts[1])
		q := a.q
		q.dequeueTree(b)
		b.vruntime, b.deadline = a.vruntime, a.deadline
		q.enqueueTree(b)
		a.vprot = a.vruntime
		got := cl.pickEEVDF(q, true, false)
		if (got == a) != c.wantCurr {
			t.Errorf("%s: tie picked curr = %v, want %v", c.policy, got == a, c.wantCurr)
		}
	}
}

// Protection (6.18.35, 2 CPUs: base slice 1.4 ms, normalized 0.7 ms): with
// RUN_TO_PARITY curr may finish its request, without it only the
// normalized slice. The wakee joins at V (zero lag) with a 0.2 ms slice, so
// its deadline is earlier than curr's while curr stays eligible: only the
// protection decides (PREEMPT_SHORT is off).
func TestRunToParityProtection(t *testing.T) {
	for _, rtp := range []bool{true, false} {
		c, _ := newOfConfig(config(t, "eevdf-6.18", 2, map[string]bool{RunToParity: rtp, PreemptShort: false}, nil))
		cl := c.(*EEVDF)
		rq := &fakeRQ{}
		ts := queueN(cl, rq, 1, 0)
		a := taskSE(ts[0])
		run(cl, rq, ts[0], 800000)  // past the first (half) request: renewed
		cl.setProtect(a.q, a, true) // as at a switch, now
		want := a.deadline
		if !rtp {
			want = a.vruntime + 700000
		}
		if a.vprot != want || a.deadline != a.vruntime+1400000 {
			t.Fatalf("RUN_TO_PARITY=%v: vprot at %+d, want %+d", rtp, int64(a.vprot-a.vruntime), int64(want-a.vruntime))
		}
		run(cl, rq, ts[0], 800000)
		s := newTask(cl, 0)
		s.Slice = 200000
		cl.TaskNew(s, nil)
		cl.Fork(rq, rq, nil, s)
		taskSE(s).initial = false
		cl.Enqueue(rq, s, sched.EnqueueWakeup)
		cl.CheckPreempt(rq, s, 0)
		if rq.resched == rtp {
			t.Errorf("RUN_TO_PARITY=%v: preempted = %v 0.8 ms into a 1.4 ms request", rtp, rq.resched)
		}
	}
}

// DELAY_DEQUEUE: a task that blocks while ineligible stays queued as
// delayed (still in V and the load) until it is picked or woken; 6.6
// dequeues it at once with its negative lag.
func TestDelayedDequeue(t *testing.T) {
	for _, p := range profiles {
		cl := newClass(t, p, nil, nil)
		rq := &fakeRQ{}
		ts := queueN(cl, rq, 2, 0)
		a := taskSE(ts[0])
		rq.now += 300000 // a ran 0.3 ms: ineligible, inside its protection
		cl.Dequeue(rq, ts[0], sched.DequeueSleep)
		delayed := a.delayed && a.onRQ
		if want := p != "eevdf-6.6"; delayed != want {
			t.Fatalf("%s: delayed = %v, want %v", p, delayed, want)
		}
		if next := schedule(cl, rq); next != ts[1] {
			t.Fatalf("%s: the other task should run", p)
		}
		if p == "eevdf-6.6" {
			if a.vlag >= 0 {
				t.Errorf("6.6: lag saved at sleep %d, want negative", a.vlag)
			}
			continue
		}
		if cl.cpus[0].nrTasks != 2 || a.q.load != 2048 {
			t.Errorf("%s: a delayed task counts in nr and load", p)
		}
		// Wake it again before it is eligible: requeued in place, its
		// negative lag kept (DELAY_ZERO drops only positive lag).
		v0 := a.vruntime
		cl.Enqueue(rq, ts[0], sched.EnqueueWakeup)
		if a.delayed || !a.onRQ || a.vruntime != v0 {
			t.Errorf("%s: requeue of a delayed task: delayed %v on_rq %v moved %d", p, a.delayed, a.onRQ, int64(a.vruntime-v0))
		}
		// Sleep again, let the other run until a is eligible: the pick
		// finishes the dequeue with its lag dropped to zero.
		schedule(cl, rq)
		rq.now += 100
		cl.PutPrev(rq, rq.curr)
		rq.curr = cl.PickNext(rq)
		if rq.curr != ts[1] {
			t.Fatalf("%s: b should still run", p)
		}
		cl.Dequeue(rq, ts[0], sched.DequeueSleep) // not running: a plain dequeue
		run(cl, rq, ts[1], 4000000)
		schedule(cl, rq)
		if a.onRQ || a.delayed || a.vlag != 0 || cl.cpus[0].nrTasks != 1 {
			t.Errorf("%s: after the pick: on_rq %v delayed %v vlag %d nr %d", p, a.onRQ, a.delayed, a.vlag, cl.cpus[0].nrTasks)
		}
	}
}

// The timeline keeps (deadline, insertion) order and exact aggregates in
// both its forms, and the pick finds the earliest-deadline eligible
// entity, through random inserts and removals: phases that grow the
// queue to 300 and shrink it to none, so that it moves between the run
// and the tree again and again.
func TestTreeAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	q := &cfsRQ{v0: initialV0}
	var in []*entity
	cl := &EEVDF{ver: version{vprot: true}}
	grow, toTree, toRun := true, 0, 0
	for step := 0; step < 40000; step++ {
		wasBig := q.tl.big
		if len(in) >= 300 {
			grow = false
		} else if len(in) == 0 {
			grow = true
		}
		removeP := 3 // one in three while growing, two in three while shrinking
		if !grow {
			removeP = 1
		}
		if len(in) > 0 && (rng.IntN(removeP+1) == 0 || !grow && rng.IntN(2) == 0) {
			i := rng.IntN(len(in))
			q.dequeueTree(in[i])
			q.nr--
			in = append(in[:i], in[i+1:]...)
		} else {
			v := initialV0 + uint64(rng.Int64N(1e7)) - 5e6
			e := &entity{w: uint64(1 + rng.IntN(5000)), vruntime: v, slice: 100000 * (1 + rng.Int64N(30)), onRQ: true, q: q}
			e.deadline = v + uint64(rng.Int64N(50)*100000)
			q.enqueueTree(e)
			q.nr++
			in = append(in, e)
		}
		switch {
		case q.tl.big && !wasBig:
			toTree++
		case !q.tl.big && wasBig:
			toRun++
		}
		// Order, aggregates, balance.
		var got []*entity
		err := q.tl.walk(func(e *entity) error {
			if q.tl.big {
				h, mv, mins, maxs := aggregates(e)
				if h != e.height || mv != e.minV || mins != e.minSlice || maxs != e.maxSlice {
					t.Fatalf("step %d: stale aggregates", step)
				}
				if bf := height(e.left) - height(e.right); bf < -1 || bf > 1 {
					t.Fatalf("step %d: unbalanced", step)
				}
			}
			got = append(got, e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.tl.checkForm(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		want := append([]*entity(nil), in...)
		sort.Slice(want, func(i, j int) bool { return less(want[i], want[j]) })
		if len(got) != len(want) || q.tl.n != len(in) {
			t.Fatalf("step %d: %d in tree, %d inserted", step, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("step %d: order differs at %d", step, i)
			}
		}
		if len(in) == 0 {
			continue
		}
		if q.tl.first != want[0] {
			t.Fatalf("step %d: leftmost cache wrong", step)
		}
		minV, minS, maxS := want[0].vruntime, want[0].slice, want[0].slice
		for _, e := range want {
			if int64(e.vruntime-minV) < 0 {
				minV = e.vruntime
			}
			minS, maxS = min(minS, e.slice), max(maxS, e.slice)
		}
		if v, ok := q.tl.minVruntime(); !ok || v != minV || q.tl.minSlice() != minS || q.tl.maxSlice() != maxS {
			t.Fatalf("step %d: aggregates (%d %v, %d, %d), brute force (%d, %d, %d)", step, v, ok, q.tl.minSlice(), q.tl.maxSlice(), minV, minS, maxS)
		}
		var best *entity
		for _, e := range want {
			if q.eligible(e) {
				best = e
				break
			}
		}
		q.nr = len(in) + 1 // keep pickEEVDF off its one-entity shortcut
		if p := cl.pickEEVDF(q, false, false); p != best {
			t.Fatalf("step %d: pick %p, brute force %p", step, p, best)
		}
		q.nr = len(in)
	}
	if toTree < 3 || toRun < 3 {
		t.Errorf("the timeline moved to the tree %d times and back to the run %d", toTree, toRun)
	}
}

func TestProfiles(t *testing.T) {
	for _, c := range []struct {
		policy string
		ncpu   int
		slice  int64
		has    []string
		hasnt  []string
	}{
		{"eevdf-6.6", 1, 750000, []string{DoubleTick, HZBW, SISProp}, []string{PreemptShort, DelayDequeue, PickBuddy, PlaceRelDeadline, NIRandom}},
		{"eevdf-6.6", 2, 1500000, nil, nil},
		{"eevdf-6.12", 2, 1400000, []string{PreemptShort, DelayDequeue, DelayZero, PickBuddy, PlaceRelDeadline, DoubleTick, NIRandom}, []string{HZBW, UtilEstFastup}},
		{"eevdf-6.18", 2, 1400000, []string{NIRandom, PreemptShort}, []string{DoubleTick}},
		{"eevdf-6.18", 16, 2800000, nil, nil},
		{"eevdf-7.2", 2, 1400000, []string{NIRandom, NIRate, ParanoidAvg, PreemptShort, HRTick}, []string{DoubleTick}},
	} {
		cfg := config(t, c.policy, c.ncpu, nil, nil)
		if got := cfg.Tunables[BaseSlice]; got != c.slice {
			t.Errorf("%s on %d CPUs: base slice %d, want %d", c.policy, c.ncpu, got, c.slice)
		}
		for _, f := range c.has {
			if _, ok := cfg.Features[f]; !ok {
				t.Errorf("%s lacks %s", c.policy, f)
			}
		}
		for _, f := range c.hasnt {
			if _, ok := cfg.Features[f]; ok {
				t.Errorf("%s should not have %s", c.policy, f)
			}
		}
	}
	cfg := config(t, "eevdf-6.18", 1, map[string]bool{HRTick: true}, nil)
	if r := cfg.Reconstructions(); len(r) != 1 || !strings.HasPrefix(r[0], "HRTICK@R2") {
		t.Errorf("reconstructions with HRTICK: %v", r)
	}
	prof, _ := sched.Lookup("eevdf-6.6")
	if _, err := prof.NewConfig(1, nil, map[string]int64{Sublevel: 2}); err == nil {
		t.Error("6.6 accepted kernel_sublevel")
	}
}

// 7.2's hrtick: armed for curr's request at a real switch, not re-armed by
// an enqueue while armed, kept across a schedule() that re-picks curr (the
// engine cancels it there, the class arms it again for the same expiry),
// dropped when the CPU goes idle; 6.18 re-arms it at every pick.
func TestHRTick72(t *testing.T) {
	for _, policy := range []string{"eevdf-6.18", "eevdf-7.2"} {
		c := newClass(t, policy, map[string]bool{HRTick: true}, nil)
		rq := &fakeRQ{}
		ts := queueN(c, rq, 2, 0)
		a := ts[0]
		// Both fresh: a has half a 0.70 ms request left.
		if rq.hrtick != 350000 {
			t.Fatalf("%s: hrtick armed for %d ns at the switch, want 350000", policy, rq.hrtick)
		}
		rq.now += 100000
		w := newTask(c, 0)
		c.Fork(rq, rq, nil, w)
		c.Enqueue(rq, w, 0)
		want72 := int64(350000)
		if policy == "eevdf-6.18" {
			want72 = 250000 // hrtick_update re-arms for the rest
		}
		if rq.hrtick != want72 {
			t.Errorf("%s: after an enqueue 0.1 ms on, hrtick %d, want %d", policy, rq.hrtick, want72)
		}
		if policy != "eevdf-7.2" {
			continue
		}
		// The hrtick fires: entity_tick's resched_curr is a full mark
		// (one wakeup_preempt_fair stops at), unlike update_curr's lazy one.
		rq.now += 250000
		rq.hrtick = 0
		c.Tick(rq, a, true)
		r := c.cpus[0]
		if !rq.resched || !r.fullMark(rq) || r.hrtickAt != 0 {
			t.Errorf("%s: the hrtick left resched %v, full mark %v, expiry %d", policy, rq.resched, r.fullMark(rq), r.hrtickAt)
		}
		// The next task is armed for its own request at the switch.
		if got := schedule(c, rq); got == a || rq.hrtick != 350000 {
			t.Errorf("%s: after the hrtick, picked a=%v, hrtick %d, want another task armed for 350000", policy, got == a, rq.hrtick)
		}
	}
}

// The tick makes a lazy mark a full one (sched_tick, 7.2).
func TestLazyMarkPromotedByTick(t *testing.T) {
	c := newClass(t, "eevdf-7.2", nil, nil)
	rq := &fakeRQ{}
	ts := queueN(c, rq, 2, 0)
	run(c, rq, ts[0], 400000) // past the 0.35 ms first request: update_curr marks
	r := c.cpus[0]
	if !rq.resched || r.fullMark(rq) {
		t.Fatalf("update_curr's mark: resched %v, full %v; want a lazy mark", rq.resched, r.fullMark(rq))
	}
	run(c, rq, ts[0], 100000)
	if !r.fullMark(rq) {
		t.Error("the tick left the mark lazy")
	}
}

// tick_nsec is the machine's tick unless set, and the lag clamp uses it:
// 6.6 clamps a nice-0 lag at max(2·slice, tick).
func TestTickComesFromTheMachine(t *testing.T) {
	prof, _ := sched.Lookup("eevdf-6.6")
	for _, c := range []struct {
		m    sched.Machine
		set  map[string]int64
		want int64
	}{
		{sched.Machine{NCPU: 1, TickNS: 10000000}, nil, 10000000},
		{sched.Machine{NCPU: 1, TickNS: 1000000}, nil, 1000000},
		{sched.Machine{NCPU: 1, TickNS: 1000000}, map[string]int64{TickNsec: 8000000}, 8000000},
		{sched.Machine{NCPU: 1}, nil, 4000000},
	} {
		cfg, err := prof.NewConfigFor(c.m, nil, c.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Tunables[TickNsec]; got != c.want {
			t.Errorf("%+v, set %v: tick_nsec %d, want %d", c.m, c.set, got, c.want)
		}
		cl, _ := newOfConfig(cfg)
		se := &entity{w: sched.NiceZeroLoad, slice: 750000}
		if got, want := cl.(*EEVDF).lagLimit(&cfsRQ{}, se), max(1500000, c.want); got != want {
			t.Errorf("%+v, set %v: lag clamp %d, want %d", c.m, c.set, got, want)
		}
	}
}

// corrupt wraps the class and, at the n-th tick, breaks one invariant.
// containsAny reports whether s contains one of the |-separated wants.
func containsAny(s, wants string) bool {
	for _, w := range strings.Split(wants, "|") {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

type corrupt struct {
	*EEVDF
	ticks int
	how   func(*EEVDF)
}

func (b *corrupt) Tick(rq sched.RQ, curr *sched.Task, queued bool) {
	b.EEVDF.Tick(rq, curr, queued)
	if b.ticks++; b.ticks == 20 {
		b.how(b.EEVDF)
	}
}

func TestCheckerCatchesBrokenInvariants(t *testing.T) {
	for _, c := range []struct {
		name string
		how  func(*EEVDF)
		want string
	}{
		{"vruntime moved behind the sums' back", func(c *EEVDF) {
			q := &c.cpus[0].root
			q.tl.first.vruntime -= 1000
		}, "sums|stale subtree aggregates|stale run aggregates"},
		{"lag beyond the bound", func(c *EEVDF) {
			q := &c.cpus[0].root
			e := q.tl.first
			q.dequeueTree(e)
			e.vruntime -= 50000000
			q.enqueueTree(e)
		}, "beyond the bound"},
		{"task lost", func(c *EEVDF) {
			q := &c.cpus[0].root
			e := q.tl.first
			q.dequeueTree(e)
			q.nr--
			q.subLoad(e.w)
			e.onRQ = false
		}, "nr counts"},
	} {
		prof := *config(t, "eevdf-6.18", 1, nil, nil).Profile
		real := prof.New
		prof.New = func(cfg *sched.Config) (sched.Class, error) {
			cl, err := real(cfg)
			return &corrupt{EEVDF: cl.(*EEVDF), how: c.how}, err
		}
		cfg, _ := prof.NewConfig(1, nil, nil)
		e, err := simNew(t, cfg, `{"tasks": {"hog": {"instance": 3, "run": 100000}}}`)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Run(); err == nil || !containsAny(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// A migration carries the lag and (PLACE_REL_DEADLINE) the rest of the
// request: on the new queue the task has the same virtual lag and the same
// distance to its deadline (6.12+); 6.6 grants a fresh request.
func TestMigrationCarriesLagAndDeadline(t *testing.T) {
	for _, p := range profiles {
		c, _ := newOfConfig(config(t, p, 2, nil, nil))
		cl := c.(*EEVDF)
		rq0, rq1 := &fakeRQ{cpu: 0}, &fakeRQ{cpu: 1}
		ts := queueN(cl, rq0, 3, 0)
		run(cl, rq0, ts[0], 1000000)
		b := ts[1]
		se := taskSE(b)
		_, vl := Lag(b)
		rest := se.deadline - se.vruntime
		// CPU 1 runs two tasks of its own.
		var others []*sched.Task
		for i := 0; i < 2; i++ {
			o := &sched.Task{PID: 900 + i, CPU: 1}
			cl.TaskNew(o, nil)
			cl.Fork(rq1, rq1, nil, o)
			cl.Enqueue(rq1, o, 0)
			others = append(others, o)
		}
		schedule(cl, rq1)
		rq1.now = rq0.now
		cl.Dequeue(rq0, b, 0)
		cl.MigrateTask(rq0, rq1, b, false)
		b.CPU = 1
		cl.Enqueue(rq1, b, 0)
		// The floor of V and the truncated inflation may cost 1 ns.
		if _, vl1 := Lag(b); vl1-vl > 1 || vl-vl1 > 1 {
			t.Errorf("%s: lag %d before the move, %d after", p, vl, vl1)
		}
		wantRest := rest
		if p == "eevdf-6.6" {
			wantRest = 1500000 // a full request (0.75 ms × 2 on 2 CPUs)
		}
		if got := se.deadline - se.vruntime; got != wantRest {
			t.Errorf("%s: %d left of the request after the move, want %d", p, got, wantRest)
		}
		if se.q != &cl.cpus[1].root || cl.cpus[0].nrTasks != 2 || cl.cpus[1].nrTasks != 3 {
			t.Errorf("%s: the task did not move", p)
		}
	}
}

// A nice change keeps the service lag: the virtual lag is scaled by
// w_old/w_new.
func TestSetNiceKeepsLag(t *testing.T) {
	for _, p := range profiles {
		cl := newClass(t, p, nil, nil)
		rq := &fakeRQ{}
		ts := queueN(cl, rq, 3, 0)
		run(cl, rq, ts[0], 1200000)
		b := ts[1]
		ns, vl := Lag(b)
		cl.SetNice(rq, b, 5)
		ns2, vl2 := Lag(b)
		want := vl * 1024 / 335
		if d := vl2 - want; d < -2 || d > 2 || taskSE(b).w != 335 {
			t.Errorf("%s: virtual lag %d → %d, want ≈ %d", p, vl, vl2, want)
		}
		if d := ns2 - ns; d < -2 || d > 2 {
			t.Errorf("%s: service lag %.0f ns → %.0f ns", p, ns, ns2)
		}
	}
}

// A group entity takes the shortest slice of its queue (6.12+); 6.6 has
// no custom slices.
func TestGroupSlice(t *testing.T) {
	for _, p := range profiles {
		cl := newClass(t, p, nil, nil)
		rq := &fakeRQ{}
		g := &sched.Group{Path: "/g", Shares: 1024, Depth: 1}
		a := &sched.Task{PID: 1, Group: g, Slice: 300000}
		b := &sched.Task{PID: 2, Group: g}
		for _, tk := range []*sched.Task{a, b} {
			cl.TaskNew(tk, nil)
			cl.Fork(rq, rq, nil, tk)
			cl.Enqueue(rq, tk, 0)
		}
		gse := taskSE(a).parent
		want := int64(300000)
		if p == "eevdf-6.6" {
			want = 750000
		}
		if gse.slice != want {
			t.Errorf("%s: group slice %d, want %d", p, gse.slice, want)
		}
		schedule(cl, rq)
		cl.Dequeue(rq, rq.curr, 0) // a leaves (not a sleep: no delay)
		if p != "eevdf-6.6" && gse.slice != cl.baseSlice {
			t.Errorf("%s: after the short task left the group slice is %d, want %d", p, gse.slice, cl.baseSlice)
		}
	}
}

// A delayed task that the engine wakes onto another CPU first finishes its
// dequeue where it was (its lag saved), at the time of the source RQ the
// call is given, then joins the new queue.
func TestWakeMigrationOfDelayedTask(t *testing.T) {
	c, _ := newOfConfig(config(t, "eevdf-6.18", 2, nil, nil))
	cl := c.(*EEVDF)
	rq0 := &fakeRQ{cpu: 0}
	ts := queueN(cl, rq0, 2, 0)
	a := taskSE(ts[0])
	rq0.now += 300000
	cl.Dequeue(rq0, ts[0], sched.DequeueSleep)
	schedule(cl, rq0)
	if !a.delayed {
		t.Fatal("setup: the task should be delayed")
	}
	// The engine's handles for this call are new values, later than any
	// the class saw.
	src := &fakeRQ{cpu: 0, now: rq0.now + 1000, curr: rq0.curr}
	rq1 := &fakeRQ{cpu: 1, now: src.now}
	cl.MigrateTask(src, rq1, ts[0], true)
	if a.delayed || a.onRQ || cl.cpus[0].nrTasks != 1 || a.vlag >= 0 {
		t.Fatalf("delayed %v on_rq %v nr %d vlag %d", a.delayed, a.onRQ, cl.cpus[0].nrTasks, a.vlag)
	}
	if got := taskSE(src.curr).execStart; got != src.now {
		t.Errorf("CPU 0's running task was charged up to %d, want the source RQ's time %d", got, src.now)
	}
	ts[0].CPU = 1
	cl.Enqueue(rq1, ts[0], sched.EnqueueWakeup|sched.EnqueueWaking)
	if !a.onRQ || a.q != &cl.cpus[1].root || cl.cpus[1].nrTasks != 1 {
		t.Fatal("not queued on CPU 1")
	}
	if err := cl.CheckInvariants(rq1.now, [][]*sched.Task{{ts[1]}, {ts[0]}}); err != nil {
		t.Fatal(err)
	}
}

// A task that exits while delayed leaves its queue in TaskDead, on the RQ
// the call is given: at that RQ's time, and a reschedule the dequeue asks
// for goes to it, not to a handle of an earlier call.
func TestDelayedExitFinishesOnTheGivenRQ(t *testing.T) {
	cl := newClass(t, "eevdf-6.18", nil, nil)
	rq := &fakeRQ{}
	ts := queueN(cl, rq, 2, 0)
	a := taskSE(ts[0])
	rq.now += 300000
	cl.Dequeue(rq, ts[0], sched.DequeueSleep)
	schedule(cl, rq)
	if !a.delayed || rq.curr != ts[1] {
		t.Fatal("setup: the exiting task should be delayed, the other running")
	}
	// The other task runs 2 ms, beyond its request, before the exit.
	dead := &fakeRQ{now: rq.now + 2000000, curr: rq.curr}
	cl.TaskDead(dead, ts[0])
	if a.delayed || a.onRQ || cl.cpus[0].nrTasks != 1 {
		t.Fatalf("after TaskDead: delayed %v on_rq %v nr %d", a.delayed, a.onRQ, cl.cpus[0].nrTasks)
	}
	if got := taskSE(ts[1]).execStart; got != dead.now {
		t.Errorf("the running task was charged up to %d, want TaskDead's RQ time %d", got, dead.now)
	}
	if !dead.resched || rq.resched {
		t.Errorf("resched: TaskDead's RQ %v, an earlier call's %v; want true, false", dead.resched, rq.resched)
	}
	if err := cl.CheckInvariants(dead.now, [][]*sched.Task{{ts[1]}}); err != nil {
		t.Fatal(err)
	}
}

// Eight tasks owed 4 ms each wake at once next to a lone running task: each
// join shifts V, and the running task ends up owing 4 ms × H_8 ≈ 10.9 ms,
// beyond the paper's bound (which assumes zero-lag joins). The Checker
// accepts it because it accounts the shifts exactly.
func TestLagBoundAccountsJoins(t *testing.T) {
	cl := newClass(t, "eevdf-6.18", nil, nil)
	rq := &fakeRQ{}
	a := queueN(cl, rq, 1, 0)[0]
	runnable := []*sched.Task{a}
	h := 0.0
	for i := 1; i <= 8; i++ {
		s := newTask(cl, 0)
		cl.Fork(rq, rq, nil, s)
		taskSE(s).initial, taskSE(s).vlag = false, 4000000
		cl.Enqueue(rq, s, sched.EnqueueWakeup)
		runnable = append(runnable, s)
		h += 1 / float64(i)
	}
	ns, _ := Lag(a)
	if want := -4e6 * h; ns > want*0.999 || ns < want*1.001 {
		t.Fatalf("running task's lag %.0f ns, want ≈ %.0f", ns, want)
	}
	if -ns <= cl.LagBound() {
		t.Fatalf("lag %.0f should exceed the paper's bound %.0f", ns, cl.LagBound())
	}
	if err := cl.CheckInvariants(rq.now, [][]*sched.Task{runnable}); err != nil {
		t.Fatal(err)
	}
	// Without the account (a join the Checker did not see) it fails.
	taskSE(a).shift0 = taskSE(a).q.shift
	if err := cl.CheckInvariants(rq.now, [][]*sched.Task{runnable}); err == nil || !strings.Contains(err.Error(), "beyond the bound") {
		t.Fatalf("got %v, want a lag-bound error", err)
	}
}

// newOfConfig builds the class a configuration's profile makes.
func newOfConfig(cfg *sched.Config) (sched.Class, error) { return cfg.Profile.New(cfg) }

// A profile copied under another name keeps its kernel's behaviour: the
// generation is bound when the profile is registered, not read back from
// its name.
func TestRenamedProfileKeepsItsVersion(t *testing.T) {
	for _, name := range []string{"eevdf-6.6", "eevdf-6.12", "eevdf-6.18"} {
		cfg := config(t, name, 1, nil, nil)
		prof := *cfg.Profile
		prof.Name = "my-" + name
		renamed, err := prof.NewConfig(1, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := newOfConfig(cfg)
		b, _ := newOfConfig(renamed)
		if a.(*EEVDF).ver != b.(*EEVDF).ver {
			t.Errorf("%s renamed: version %+v, want %+v", name, b.(*EEVDF).ver, a.(*EEVDF).ver)
		}
	}
}

// 6.12.95's check_preempt_wakeup_fair: a shorter wakee that
// do_preempt_short accepts (eligible, curr ineligible) cancels curr's
// protection even when the pick then prefers a third task (here the other
// queued one, with an earlier deadline), so that update_curr ends curr's
// turn at its next update instead of at the end of its request.
func TestPreemptShortCancels612(t *testing.T) {
	cl := newClass(t, "eevdf-6.12", nil, nil)
	rq := &fakeRQ{}
	queueN(cl, rq, 2, 0)
	curr := rq.curr
	a := taskSE(curr)
	if a.vlag != int64(a.deadline) {
		t.Fatal("curr is not protected after its pick")
	}
	rq.now += 300000
	p := newTask(cl, 0)
	p.Slice = 300000
	cl.TaskNew(p, nil)
	cl.Fork(rq, rq, nil, p)
	taskSE(p).initial = false
	cl.Enqueue(rq, p, sched.EnqueueWakeup)
	cl.CheckPreempt(rq, p, 0)
	if rq.resched {
		t.Fatalf("the wakee (deadline %d) preempted; the other task's deadline %d is earlier", taskSE(p).deadline, a.deadline)
	}
	if a.vlag == int64(a.deadline) {
		t.Errorf("curr still protected after do_preempt_short")
	}
	run(cl, rq, curr, 1000)
	if !rq.resched {
		t.Errorf("update_curr did not end the unprotected, ineligible curr's turn")
	}
}
