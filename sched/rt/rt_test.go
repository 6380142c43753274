package rt_test

import (
	"math"
	"reflect"
	"testing"

	"schedlab/internal/simtest"
	"schedlab/sched"
	_ "schedlab/sched/cfs"
	_ "schedlab/sched/eevdf"
	"schedlab/sched/rt"
	"schedlab/sim"
	"schedlab/trace"
)

const ms = int64(1e6)

// resched is the engine's delay from a preempting wakeup or tick to the
// switch (cost_resched_ns: the marked task's way back to user space).
var resched = sim.DefaultParams().CostResched

// fairPolicies are the fair classes the real-time class is stacked on in
// these tests: each has its own PutPrev/PickNext contract.
var fairPolicies = []string{"cfs-2.6.35", "cfs-2.6.24", "eevdf-6.12"}

// simulate, runtimeOf and wakeLatencies are simtest's: a run with the
// checks on and the tick grid at 0, as the hand computations assume.
var (
	simulate      = simtest.Recorded
	runtimeOf     = simtest.RuntimeOf
	wakeLatencies = simtest.WakeLatencies
)

func TestFIFORunsToCompletionAheadOfFair(t *testing.T) {
	// A fair hog starts first; a FIFO task of 500 ms of work starts at
	// 1 ms, preempts it at once and runs to its end, well inside the
	// 950 ms runtime: the hog gets only its first millisecond until then.
	for _, pol := range fairPolicies {
		e, rec := simulate(t, pol, 1, nil, `{"tasks": {
			"hog": {"run": 100000},
			"fifo": {"policy": "SCHED_FIFO", "priority": 50, "delay": 1000, "loop": 1, "run": 500000}}}`, 600*ms)
		if lat := wakeLatencies(rec, "fifo"); len(lat) != 1 || lat[0] != resched {
			t.Errorf("%s: fifo switch-in delays %v, want one of %d ns (it preempts at its wakeup)", pol, lat, resched)
		}
		var exit int64
		for _, ev := range rec.Events {
			if ev.Kind == trace.Exit && ev.Comm == "fifo" {
				exit = ev.TS
			}
			if ev.Kind == trace.Switch && ev.Comm == "fifo" && ev.NextComm == "hog" && exit == 0 {
				t.Errorf("%s: the hog ran at %d ns while fifo had work", pol, ev.TS)
			}
		}
		// 1 ms + 500 ms of work + the switch in and the exit (costs).
		if exit < 501*ms || exit > 501*ms+100000 {
			t.Errorf("%s: fifo exited at %d ns, want 501 ms plus costs", pol, exit)
		}
		if got := runtimeOf(t, e, rec, "hog"); got < 600*ms-exit-100000 || got > 600*ms-exit+1*ms+100000 {
			t.Errorf("%s: hog ran %d ns, want its first ms and then from fifo's exit at %d ns", pol, got, exit)
		}
	}
}

func TestRRAlternatesEvery100ms(t *testing.T) {
	// Two SCHED_RR hogs of one priority, no throttling: the slice is 25
	// ticks at HZ 250, so they swap on every 100 ms boundary, each switch
	// cost_resched_ns after the tick that ends the slice.
	_, rec := simulate(t, "cfs-2.6.35", 1, map[string]int64{rt.Runtime: -1}, `{"tasks": {
		"rr": {"instance": 2, "policy": "SCHED_RR", "priority": 30, "run": 100000}}}`, 1050*ms)
	var at []int64
	last := ""
	for _, ev := range rec.Events {
		if ev.Kind != trace.Switch || ev.PID == 0 || ev.NextPID == 0 {
			continue
		}
		if ev.Comm == ev.NextComm || ev.Comm == last {
			t.Fatalf("switch %s -> %s at %d ns does not alternate", ev.Comm, ev.NextComm, ev.TS)
		}
		last = ev.Comm
		at = append(at, ev.TS)
	}
	if len(at) != 10 {
		t.Fatalf("%d switches between the RR tasks in 1 s (%v), want 10", len(at), at)
	}
	for i, ts := range at {
		if want := int64(i+1)*100*ms + resched; ts != want {
			t.Errorf("switch %d at %d ns, want %d", i, ts, want)
		}
	}
}

func TestRRSliceTunable(t *testing.T) {
	// 10 ms at HZ 250 is 3 ticks rounded up: 12 ms.
	_, rec := simulate(t, "cfs-2.6.35", 1, map[string]int64{rt.Runtime: -1, rt.RRSlice: 10}, `{"tasks": {
		"rr": {"instance": 2, "policy": "SCHED_RR", "run": 100000}}}`, 100*ms)
	n := 0
	for _, ev := range rec.Events {
		if ev.Kind == trace.Switch && ev.PID != 0 && ev.NextPID != 0 {
			n++
			if want := int64(n)*12*ms + resched; ev.TS != want {
				t.Fatalf("switch %d at %d ns, want %d", n, ev.TS, want)
			}
		}
	}
	if n != 8 {
		t.Fatalf("%d switches in 100 ms, want 8", n)
	}
}

func TestHigherPriorityPreemptsAtWakeup(t *testing.T) {
	// A prio-20 FIFO task wakes every 10 ms beside a prio-10 FIFO hog:
	// it runs at each wakeup. A prio-10 periodic task (equal to the hog)
	// never preempts it: it waits for the hog to be throttled.
	_, rec := simulate(t, "cfs-2.6.35", 1, nil, `{"tasks": {
		"low": {"policy": "SCHED_FIFO", "priority": 10, "run": 100000},
		"high": {"policy": "SCHED_FIFO", "priority": 20, "delay": 500, "timer": {"ref": "h", "period": 10000}, "run": 1000},
		"peer": {"policy": "SCHED_FIFO", "priority": 10, "delay": 700, "timer": {"ref": "p", "period": 10000}, "run": 1000}}}`, 500*ms)
	hi := wakeLatencies(rec, "high")
	if len(hi) < 49 {
		t.Fatalf("high ran %d times in 500 ms, want 50", len(hi))
	}
	for i, l := range hi {
		if l > resched {
			t.Fatalf("high's wakeup %d waited %d ns, want 0 (it preempts)", i, l)
		}
	}
	if peer := wakeLatencies(rec, "peer"); len(peer) != 0 {
		t.Fatalf("peer (same priority as the hog) ran %d times before the hog was throttled", len(peer))
	}
	for _, ev := range rec.Events {
		if ev.Kind == trace.Switch && ev.NextComm == "high" && ev.NextPrio != 99-20 {
			t.Fatalf("high's prio in sched_switch is %d, want 79 (99 - rt_priority)", ev.NextPrio)
		}
	}
}

func TestThrottlingLeavesFairFivePercent(t *testing.T) {
	// A FIFO hog beside a fair hog on one CPU for 10 s: the hog is
	// throttled after 950 ms of each 1 s period (at the first tick past
	// it, the excess carried into the next period), so the fair hog gets
	// 50 ms a period: 500 ms, give or take a tick and the switch costs.
	for _, pol := range fairPolicies {
		e, rec := simulate(t, pol, 1, nil, `{"tasks": {
			"fair": {"run": 100000},
			"fifo": {"policy": "SCHED_FIFO", "priority": 1, "run": 100000}}}`, 10000*ms)
		got := runtimeOf(t, e, rec, "fair")
		if math.Abs(float64(got-500*ms)) > float64(5*ms) {
			t.Errorf("%s: the fair hog ran %.1f ms in 10 s, want 500 ± 5", pol, float64(got)/1e6)
		}
	}
}

func TestFairLatencyUnderRTHog(t *testing.T) {
	// A fair task waking every 10 ms beside a FIFO hog runs only while
	// the hog is throttled (950 to 1000 ms of each second): a wakeup just
	// after the throttled window ends waits some 950 ms.
	_, rec := simulate(t, "cfs-2.6.35", 1, nil, `{"tasks": {
		"fifo": {"policy": "SCHED_FIFO", "priority": 1, "run": 100000},
		"tick": {"delay": 2000, "timer": {"ref": "t", "period": 10000}, "run": 500}}}`, 3000*ms)
	var worst int64
	for _, l := range wakeLatencies(rec, "tick") {
		worst = max(worst, l)
	}
	if worst < 900*ms || worst > 960*ms {
		t.Fatalf("the fair task's worst wakeup latency is %.1f ms, want about 950", float64(worst)/1e6)
	}
}

func TestTwoRTTasksUseBothCPUs(t *testing.T) {
	// Two FIFO hogs on two CPUs run all the time, one on each, beside two
	// fair hogs (throttling off).
	e, rec := simulate(t, "cfs-2.6.35", 2, map[string]int64{rt.Runtime: -1}, `{"tasks": {
		"fair": {"instance": 2, "run": 100000},
		"fifo": {"instance": 2, "policy": "SCHED_FIFO", "priority": 5, "delay": 1000, "run": 100000}}}`, 1000*ms)
	for _, c := range []string{"fifo-0", "fifo-1"} {
		if got := runtimeOf(t, e, rec, c); got < 998*ms {
			t.Errorf("%s ran %.2f ms of 1 s, want all but its 1 ms delay", c, float64(got)/1e6)
		}
	}
}

func TestPushMovesPreemptedRTTask(t *testing.T) {
	// CPU 0 runs a prio-10 FIFO hog, CPU 1 a fair hog. A prio-90 task
	// waking every 10 ms on CPU 0 preempts the hog there, and the hog is
	// pushed to CPU 1 (whose priority, fair, is lower) rather than wait:
	// it loses only switch costs, not the prio-90 task's 10 %. (The fair
	// hog then moves to CPU 0 by idle balance, and the prio-90 task
	// preempts it there from then on.)
	e, rec := simulate(t, "cfs-2.6.35", 2, map[string]int64{rt.Runtime: -1}, `{"tasks": {
		"low": {"policy": "SCHED_FIFO", "priority": 10, "run": 100000},
		"fair": {"run": 100000},
		"high": {"policy": "SCHED_FIFO", "priority": 90, "delay": 1000, "timer": {"ref": "h", "period": 10000}, "run": 1000}}}`, 1000*ms)
	if got := runtimeOf(t, e, rec, "low"); got < 995*ms {
		t.Errorf("low ran %.2f ms of 1 s, want ~all of it (pushed, not waiting)", float64(got)/1e6)
	}
	moves := 0
	for _, ev := range rec.Events {
		if ev.Kind == trace.Migrate && ev.Comm == "low" {
			moves++
		}
	}
	if moves < 1 {
		t.Errorf("low migrated %d times, want it pushed on high's wakeups", moves)
	}
	for i, l := range wakeLatencies(rec, "high") {
		if l > resched {
			t.Fatalf("high's wakeup %d waited %d ns", i, l)
		}
	}
}

func TestWakeupAvoidsHigherRTCPU(t *testing.T) {
	// A prio-50 task wakes on CPU 0, which a prio-90 hog holds: it goes to
	// the CPU running a fair task instead, and runs at once.
	_, rec := simulate(t, "cfs-2.6.35", 2, map[string]int64{rt.Runtime: -1}, `{"tasks": {
		"hog": {"policy": "SCHED_FIFO", "priority": 90, "cpus": [0], "run": 100000},
		"fair": {"run": 100000},
		"mid": {"policy": "SCHED_FIFO", "priority": 50, "delay": 1000, "timer": {"ref": "m", "period": 10000}, "run": 1000}}}`, 500*ms)
	lat := wakeLatencies(rec, "mid")
	if len(lat) < 45 {
		t.Fatalf("mid ran %d times", len(lat))
	}
	for i, l := range lat {
		if l > resched {
			t.Fatalf("mid's wakeup %d waited %d ns", i, l)
		}
	}
}

func TestDeterministic(t *testing.T) {
	js := `{"tasks": {
		"fair": {"instance": 3, "run": 3000, "sleep": 1000},
		"rr": {"instance": 3, "policy": "SCHED_RR", "priority": 7, "run": 30000, "sleep": 5000},
		"fifo": {"policy": "SCHED_FIFO", "priority": 60, "timer": {"ref": "f", "period": 7000}, "run": 900}}}`
	_, a := simulate(t, "eevdf-6.12", 2, nil, js, 3000*ms)
	_, b := simulate(t, "eevdf-6.12", 2, nil, js, 3000*ms)
	if !reflect.DeepEqual(a.Events, b.Events) {
		t.Fatal("two runs of one seed differ")
	}
}

func TestInvariantsOnManyCPUs(t *testing.T) {
	// Every hook path under the checker: forks, sleeps, yields, RR, FIFO,
	// throttling and push/pull on 3 CPUs, over each fair class.
	js := `{"tasks": {
		"fair": {"instance": 4, "run": 3000, "sleep": 1000, "yield": 0},
		"rr": {"instance": 3, "policy": "SCHED_RR", "priority": 7, "run": 30000, "sleep": 5000},
		"spawn": {"policy": "SCHED_FIFO", "priority": 20, "timer": {"ref": "s", "period": 20000}, "run": 500, "fork": "child"},
		"child": {"instance": 0, "policy": "SCHED_FIFO", "priority": 30, "loop": 1, "run": 2000},
		"hog": {"policy": "SCHED_FIFO", "priority": 3, "run": 100000}}}`
	for _, pol := range fairPolicies {
		simulate(t, pol, 3, nil, js, 2500*ms)
	}
}

func TestRuntimeOverPeriodRefused(t *testing.T) {
	cfg := simtest.Config(t, "cfs-2.6.35", 1, nil, map[string]int64{rt.Runtime: 2000000})
	_, err := sim.New(sim.Config{Spec: simtest.Spec(t, `{"tasks": {"f": {"policy": "SCHED_FIFO", "run": 1000}}}`),
		Sched: cfg, Params: sim.DefaultParams(), Duration: 1e9})
	if err == nil {
		t.Fatal("runtime over the period accepted")
	}
}

func TestFairOnlyRunHasNoStack(t *testing.T) {
	cfg := simtest.Config(t, "cfs-2.6.35", 1, nil, nil)
	e, err := sim.New(sim.Config{Spec: simtest.Spec(t, `{"tasks": {"f": {"run": 1000}}}`), Sched: cfg, Params: sim.DefaultParams(), Duration: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Class().(*sched.Stack); ok {
		t.Fatal("a fair-only run got a class stack")
	}
}

func TestFairTaskLeavesRTHogCPU(t *testing.T) {
	// A FIFO hog holds CPU 0, a fair hog CPU 1, and a periodic fair task
	// starts on CPU 0 behind the FIFO hog. Once the real-time time has
	// cut CPU 0's capacity below half (after some 500 ms: the decayed
	// rt_avg of scale_rt_power), the periodic balance moves the task to
	// CPU 1, where it waits at most a fair slice.
	_, rec := simulate(t, "cfs-2.6.35", 2, nil, `{"tasks": {
		"fifo": {"policy": "SCHED_FIFO", "priority": 1, "cpus": [0], "run": 100000},
		"hog": {"cpus": [1], "run": 100000},
		"tick": {"delay": 2000, "timer": {"ref": "t", "period": 10000}, "run": 500}}}`, 3000*ms)
	moved := int64(-1)
	for _, ev := range rec.Events {
		if ev.Kind == trace.Migrate && ev.Comm == "tick" && ev.DestCPU == 1 && moved < 0 {
			moved = ev.TS
		}
	}
	if moved < 500*ms || moved > 1000*ms {
		t.Fatalf("tick moved off the FIFO hog's CPU at %d ns, want between 500 ms and 1 s", moved)
	}
	woke := int64(-1)
	for _, ev := range rec.Events {
		switch {
		case ev.Kind == trace.Wakeup && ev.Comm == "tick":
			woke = ev.TS
		case ev.Kind == trace.Switch && ev.NextComm == "tick" && woke > moved:
			if ev.TS-woke > 7*ms {
				t.Fatalf("tick waited %d ns at %d ns, after it moved", ev.TS-woke, woke)
			}
		}
	}
}

func TestForkedThreadSwitchesClass(t *testing.T) {
	// A fair thread forks FIFO children and a FIFO thread forks fair and
	// RR ones: each child starts with its parent's policy (sched_fork)
	// and moves to its own class as its first act, under the checker.
	// The FIFO children then run ahead of the fair hog.
	for _, pol := range fairPolicies {
		_, rec := simulate(t, pol, 2, nil, `{"tasks": {
			"hog": {"instance": 2, "run": 100000},
			"fairspawn": {"timer": {"ref": "a", "period": 20000}, "run": 100, "fork": "fifokid"},
			"fifokid": {"instance": 0, "policy": "SCHED_FIFO", "priority": 40, "loop": 1, "run": 3000},
			"rtspawn": {"policy": "SCHED_FIFO", "priority": 20, "timer": {"ref": "b", "period": 30000}, "run": 100, "fork0": "fairkid", "fork1": "rrkid"},
			"fairkid": {"instance": 0, "loop": 1, "run": 2000},
			"rrkid": {"instance": 0, "policy": "SCHED_RR", "priority": 60, "loop": 1, "run": 2000}}}`, 1000*ms)
		// The prio a child leaves its CPU with is its own policy's (it
		// switched class while running, which no switch shows).
		prios := map[string]map[int32]bool{}
		for _, ev := range rec.Events {
			if ev.Kind == trace.Switch && ev.PID != 0 {
				if prios[ev.Comm] == nil {
					prios[ev.Comm] = map[int32]bool{}
				}
				prios[ev.Comm][ev.Prio] = true
			}
		}
		for comm, want := range map[string]int32{"fifokid": 59, "rrkid": 39, "fairkid": 120} {
			if !prios[comm][want] {
				t.Errorf("%s: %s never ran at prio %d (its own policy's): %v", pol, comm, want, prios[comm])
			}
		}
	}
}

func TestRuntimeShare(t *testing.T) {
	// A FIFO hog and a fair hog pinned to CPU 0 of two, CPU 1 idle. With
	// RT_RUNTIME_SHARE, CPU 0 borrows at its first excess (at the 952 ms
	// tick) min(950/2, 1000 − 950) = 50 ms of CPU 1's unused runtime:
	// its runtime is the whole period, and the fair hog, having run
	// only while the FIFO hog had not started (1 ms), never runs again.
	// Without it the fair hog gets its 50 ms a second.
	js := `{"tasks": {
		"fifo": {"policy": "SCHED_FIFO", "priority": 1, "cpus": [0], "delay": 1000, "run": 100000},
		"fair": {"cpus": [0], "run": 100000}}}`
	for _, c := range []struct {
		share     int64
		pol       string
		want, tol int64
	}{
		{1, "eevdf-6.12", 1 * ms, 100000},
		{-1, "cfs-2.6.35", 1 * ms, 100000}, // 2.6.35 always shared
		{0, "cfs-2.6.35", 1*ms + 150*ms, 5 * ms},
		{-1, "eevdf-6.12", 1*ms + 150*ms, 5 * ms},
	} {
		e, rec := simulate(t, c.pol, 2, map[string]int64{rt.Share: c.share}, js, 3000*ms)
		if got := runtimeOf(t, e, rec, "fair"); got < c.want-c.tol || got > c.want+c.tol {
			t.Errorf("%s, %s=%d: the fair hog ran %.2f ms in 3 s, want %.2f", c.pol, rt.Share, c.share, float64(got)/1e6, float64(c.want)/1e6)
		}
	}
}

func TestClassSwitchOfABlockingChild(t *testing.T) {
	// Children whose first event blocks (a sleep) or ends them switch
	// class in the same schedule() they leave the CPU in.
	for _, pol := range fairPolicies {
		simulate(t, pol, 2, nil, `{"tasks": {
			"spawn": {"timer": {"ref": "a", "period": 5000}, "run": 100, "fork0": "sleeper", "fork1": "quick"},
			"sleeper": {"instance": 0, "policy": "SCHED_RR", "priority": 3, "loop": 1, "sleep": 1000, "run": 500},
			"quick": {"instance": 0, "policy": "SCHED_FIFO", "loop": 1, "run": 0}}}`, 300*ms)
	}
}
