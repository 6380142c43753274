package eevdf

import (
	"fmt"
	"strings"
	"testing"

	"schedlab/sched"
	"schedlab/sim"
	"schedlab/trace"
)

// forkFrom sets up three nice-0 tasks queued at one V (base), lets the
// first run ran0 ns, then, if ran1 > 0, switches to the next and lets it
// run ran1 ns; it returns the class, the queue and the running task (the
// parent of the forks that follow) with base.
func forkFrom(t *testing.T, feats map[string]bool, ran0, ran1 int64) (*EEVDF, *fakeRQ, *sched.Task, uint64) {
	t.Helper()
	cl := newClass(t, "eevdf-6.18", feats, nil)
	rq := &fakeRQ{}
	ts := queueN(cl, rq, 3, 0)
	base := taskSE(ts[2]).vruntime
	run(cl, rq, ts[0], ran0)
	if ran1 > 0 {
		p := schedule(cl, rq)
		if p == ts[0] {
			t.Fatal("the task that ran first was picked again")
		}
		run(cl, rq, p, ran1)
	}
	return cl, rq, rq.curr, base
}

// A timer-marked parent's fork joins as a wakeup with the lag the parent
// had at the fork (as if the parent had slept then and woken as the child):
// behind V (the parent ran 300 µs of three tasks' 300: V = base+100000,
// its lag −200000), inflated by (W+w)/W = 4096/3072 to −266666 at the
// join, so that its lag after joining is the parent's; the deadline is a
// whole request (0.70 ms) away, not PLACE_DEADLINE_INITIAL's half. Ahead
// of V (a task that ran 100 µs after one ran 600 µs: V = base+233333, its
// lag 133333, inflated 177777) the child starts before V.
func TestExpeditedForkPlacement(t *testing.T) {
	on := map[string]bool{TimerForkExpedited: true}
	for _, c := range []struct {
		name       string
		ran0, ran1 int64
		marked     bool
		feats      map[string]bool
		at, dl     int64 // vruntime and deadline − base
	}{
		{"behind V", 300000, 0, true, on, 100000 + 266666, 100000 + 266666 + 700000},
		{"ahead of V", 600000, 100000, true, on, 233333 - 177777, 233333 - 177777 + 700000},
		{"not marked", 300000, 0, false, on, 100000, 100000 + 350000},
		{"what-if off", 300000, 0, true, nil, 100000, 100000 + 350000},
	} {
		cl, rq, parent, base := forkFrom(t, c.feats, c.ran0, c.ran1)
		taskSE(parent).marks.WakeTimer = c.marked
		child := newTask(cl, 0)
		cl.Fork(rq, rq, parent, child)
		_, pl := Lag(parent)
		cl.Enqueue(rq, child, 0)
		se := taskSE(child)
		if at, dl := int64(se.vruntime-base), int64(se.deadline-base); at != c.at || dl != c.dl {
			t.Errorf("%s: child at base%+d, deadline base%+d; want %+d, %+d", c.name, at, dl, c.at, c.dl)
		}
		if c.marked && c.feats != nil {
			if _, vl := Lag(child); vl < pl-1 || vl > pl+1 {
				t.Errorf("%s: child's lag after joining %d, parent's at the fork %d", c.name, vl, pl)
			}
		}
	}
}

// The chain: a timer wakeup marks its wakee, a marked waker marks the
// task it wakes, an unmarked one does not, and a block clears the marks
// (the fork-expedited bit stays).
func TestTimerChainMarks(t *testing.T) {
	cl := newClass(t, "eevdf-6.18", map[string]bool{TimerForkExpedited: true}, nil)
	rq := &fakeRQ{}
	ts := queueN(cl, rq, 3, 0)
	a, b, w := ts[0], ts[1], ts[2]
	sleep := func(x *sched.Task) {
		cl.Dequeue(rq, x, sched.DequeueSleep)
		if x == rq.curr {
			schedule(cl, rq)
		}
	}
	wake := func(x *sched.Task, wi sched.WakeInfo) {
		x.Wake = wi
		cl.Enqueue(rq, x, sched.EnqueueWakeup)
	}
	for _, x := range []*sched.Task{b, w} {
		sleep(x)
	}
	wake(w, sched.WakeInfo{Source: sched.WakeTimer})
	if !taskSE(w).marks.Timer() {
		t.Fatal("a timer wakeup left no mark")
	}
	wake(b, sched.WakeInfo{Source: sched.WakeTask, Waker: w})
	if !taskSE(b).marks.SETimer {
		t.Error("a marked waker passed no chain mark on")
	}
	taskSE(b).marks.ForkExpedited = true
	sleep(b)
	if m := taskSE(b).marks; m.Timer() || !m.ForkExpedited {
		t.Errorf("after a block: %+v", m)
	}
	wake(b, sched.WakeInfo{Source: sched.WakeTask, Waker: a})
	if taskSE(b).marks.Timer() {
		t.Error("an unmarked waker marked its wakee")
	}
	// Off, nothing is marked.
	off := newClass(t, "eevdf-6.18", nil, nil)
	x := newTask(off, 0)
	off.Fork(rq, rq, nil, x)
	x.Wake = sched.WakeInfo{Source: sched.WakeTimer}
	off.Enqueue(&fakeRQ{}, x, sched.EnqueueWakeup)
	if taskSE(x).marks.Timer() {
		t.Error("TIMER_FORK_EXPEDITED off, a timer wakeup marked its wakee")
	}
}

// START_NICE: at a fork the running parent (lag −200000, as above) takes
// nice 3's weight 526 with the reweight rule: its virtual lag becomes
// −200000·1024/526 = −389353, its service lag and V stay; the child
// joins at V with nice 3's request, 0.70 ms·1024/526 = 1362737 virtual
// ns, halved by PLACE_DEADLINE_INITIAL. Each gets its weight back at
// its first deschedule after running, V and its service lag unchanged.
func TestStartNiceWeights(t *testing.T) {
	cl, rq, parent, base := forkFrom(t, map[string]bool{StartNice: true}, 300000, 0)
	q := taskSE(parent).q
	v := q.avg()
	ns0, _ := Lag(parent)
	child := newTask(cl, 0)
	cl.Fork(rq, rq, parent, child)
	pse, cse := taskSE(parent), taskSE(child)
	if pse.w != 526 || cse.w != 526 {
		t.Fatalf("weights after the fork: parent %d, child %d, want 526", pse.w, cse.w)
	}
	if d := int64(q.avg() - v); d < -1 || d > 1 {
		t.Errorf("the parent's reweight moved V by %d", d)
	}
	ns1, vl1 := Lag(parent)
	if vl1 < -389354 || vl1 > -389352 || ns1-ns0 > 2 || ns0-ns1 > 2 {
		t.Errorf("parent's lag after the reweight %d (service %.0f, was %.0f), want -389353", vl1, ns1, ns0)
	}
	if !rq.resched {
		t.Error("the running parent got lighter and was not rescheduled")
	}
	v = q.avg()
	cl.Enqueue(rq, child, 0)
	if at := int64(cse.vruntime - base); cse.vruntime != v || at < 99999 || at > 100000 {
		t.Errorf("child at base%+d, V at base%+d, want V = base+100000 (±1 of the reweight's rounding)", at, int64(v-base))
	}
	if r := int64(cse.deadline - cse.vruntime); r < 681368 || r > 681369 {
		t.Errorf("child's first request %d, want 1362737/2", r)
	}
	// The parent runs on, then is switched out: its penalty ends.
	run(cl, rq, parent, 50000)
	v = q.avg()
	ns0, _ = Lag(parent)
	next := schedule(cl, rq)
	if pse.w != 1024 {
		t.Errorf("parent's weight after its deschedule %d, want 1024", pse.w)
	}
	if ns1, _ := Lag(parent); ns1-ns0 > 2 || ns0-ns1 > 2 {
		t.Errorf("restoring the weight moved the parent's service lag %.0f → %.0f", ns0, ns1)
	}
	if d := int64(q.avg() - v); d < -1 || d > 1 {
		t.Errorf("restoring the parent's weight moved V by %d", d)
	}
	// A task picked and switched out without running keeps its penalty.
	if next == child {
		t.Fatal("the child was picked before the task that waited")
	}
	for rq.curr != child {
		run(cl, rq, rq.curr, 800000)
		schedule(cl, rq)
		if cse.w != 526 && rq.curr != child {
			t.Fatal("the child's penalty ended before it ran")
		}
	}
	run(cl, rq, child, 10000)
	schedule(cl, rq)
	if cse.w != 1024 {
		t.Errorf("child's weight after its first run %d, want 1024", cse.w)
	}
}

// Both what-ifs on, the mixed workload (forks from a timer's helper, groups,
// nice changes, two CPUs) keeps every queue's lag sum and bound (Checker).
func TestWhatIfsKeepInvariants(t *testing.T) {
	for _, p := range []string{"eevdf-6.6", "eevdf-6.12", "eevdf-6.18", "eevdf-7.2"} {
		for _, end := range []int64{startNiceEndDeschedule, startNiceEndSlice} {
			for _, ncpu := range []int{1, 2} {
				cfg := config(t, p, ncpu, map[string]bool{TimerForkExpedited: true, StartNice: true}, map[string]int64{StartNiceEnd: end})
				runSim(t, sim.Config{Spec: spec(t, mixed), Sched: cfg, Duration: 1e9, Seed: 5, Check: true})
			}
		}
	}
}

// The what-ifs act at forks only: on a workload without forks, both on
// give the event stream of both off (the chain marks are kept but never
// read); on the mixed workload, whose timer's helper forks, they change it.
func TestWhatIfsActAtForksOnly(t *testing.T) {
	noForks := strings.Replace(mixed, `"helper": {"timer": {"ref": "t", "period": 7000, "notify": "thread"}, "run": 30, "fork": "cb"},
	"cb": {"instance": 0, "loop": 1, "run": {"dist": "uniform", "min": 10, "max": 500}}`,
		`"helper": {"timer": {"ref": "t", "period": 7000}, "run": 30}`, 1)
	if noForks == mixed {
		t.Fatal("the mixed workload changed: update the fork-free copy")
	}
	events := func(js string, on bool) string {
		rec := &trace.Recorder{}
		cfg := config(t, "eevdf-6.18", 1, map[string]bool{TimerForkExpedited: on, StartNice: on}, nil)
		runSim(t, sim.Config{Spec: spec(t, js), Sched: cfg, Duration: 5e8, Seed: 9, Sink: rec})
		var b strings.Builder
		for _, ev := range rec.Events {
			fmt.Fprintf(&b, "%+v\n", ev)
		}
		return b.String()
	}
	if events(noForks, false) != events(noForks, true) {
		t.Error("without forks, the what-ifs changed the event stream")
	}
	if events(mixed, false) == events(mixed, true) {
		t.Error("with forks from a timer's helper, the what-ifs changed nothing")
	}
}
