package dl_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"schedlab/internal/simtest"
	_ "schedlab/sched/cfs"
	_ "schedlab/sched/dl"
	_ "schedlab/sched/eevdf"
	_ "schedlab/sched/rt"
	"schedlab/sim"
	"schedlab/trace"
)

const ms = int64(1e6)

// resched is the engine's delay from a preempting wakeup or tick to the
// switch (cost_resched_ns: the marked task's way back to user space).
var resched = sim.DefaultParams().CostResched

// simulate, runtimeOf and wakeLatencies are simtest's: a run with the
// checks on and the tick grid at 0, as the hand computations assume.
func simulate(t *testing.T, policy string, ncpu int, js string, d int64) (*sim.Engine, *trace.Recorder) {
	t.Helper()
	return simtest.Recorded(t, policy, ncpu, nil, js, d)
}

var (
	runtimeOf     = simtest.RuntimeOf
	wakeLatencies = simtest.WakeLatencies
)

func TestCBSLimitsAHogToItsBandwidth(t *testing.T) {
	// A deadline hog with 3 ms every 10 ms beside a fair hog, one CPU,
	// HZ 250: throttled at the first tick past its runtime (4 ms, the
	// overrun carried into the next period: 4 + 2 ms per 20 ms), it gets
	// 30 % of the CPU; the fair hog the rest.
	for _, pol := range []string{"cfs-2.6.35", "eevdf-6.12"} {
		e, rec := simulate(t, pol, 1, `{"tasks": {
			"fair": {"run": 100000},
			"dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 10000, "run": 100000}}}`, 10000*ms)
		if got := float64(runtimeOf(t, e, rec, "dl")) / float64(10000*ms); math.Abs(got-0.3) > 0.002 {
			t.Errorf("%s: the deadline hog got %.4f of the CPU, want 0.3", pol, got)
		}
		for _, ev := range rec.Events {
			if ev.Kind == trace.Switch && ev.NextComm == "dl" && ev.NextPrio != -1 {
				t.Fatalf("deadline task's prio is %d, want -1", ev.NextPrio)
			}
		}
	}
}

func TestEarliestDeadlineFirst(t *testing.T) {
	// Two deadline tasks released together every 20 ms with 2 ms of work:
	// "near" (deadline 5 ms) runs first whatever "far" (deadline 20 ms)
	// is doing, preempting it; both beside a FIFO hog of priority 99,
	// which runs only when neither does.
	_, rec := simulate(t, "cfs-2.6.35", 1, `{"tasks": {
		"far": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-deadline": 20000, "dl-period": 20000, "timer": {"ref": "a", "period": 20000}, "run": 2000},
		"near": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-deadline": 5000, "dl-period": 20000, "delay": 10, "timer": {"ref": "b", "period": 20000}, "run": 2000},
		"hog": {"policy": "SCHED_FIFO", "priority": 99, "run": 100000}}}`, 1000*ms)
	for i, l := range wakeLatencies(rec, "near") {
		if l > resched {
			t.Fatalf("near's wakeup %d waited %d ns", i, l)
		}
	}
	// From the second period on (rt-app's first timer wait returns at
	// once), far is preempted by near 10 µs into each period and resumes
	// when near is done.
	preempted, resumed := 0, 0
	for _, ev := range rec.Events {
		if ev.Kind != trace.Switch {
			continue
		}
		if ev.Comm == "far" && ev.NextComm == "near" {
			preempted++
		}
		if ev.Comm == "near" && ev.NextComm == "far" {
			resumed++
		}
		if ev.Comm == "far" && ev.NextComm == "hog" && preempted != resumed {
			t.Fatalf("far left for the FIFO hog at %d ns while near had run unfinished", ev.TS)
		}
	}
	if preempted < 45 || resumed != preempted {
		t.Fatalf("near preempted far %d times and far resumed after it %d times in 1 s, want 49 each", preempted, resumed)
	}
}

func TestAdmissionControl(t *testing.T) {
	js := `{"tasks": {"d": {"instance": 3, "policy": "SCHED_DEADLINE", "dl-runtime": 400000, "dl-period": 1000000, "run": 1000}}}`
	// 3 × 40 % is over one CPU's 95 %...
	cfg := simtest.Config(t, "cfs-2.6.35", 1, nil, nil)
	e, err := sim.New(sim.Config{Spec: simtest.Spec(t, js), Sched: cfg, Params: sim.DefaultParams(), Duration: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run()
	for _, w := range []string{"admission control", "d-2", "120.0%", "95.0%"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("error %v lacks %q", err, w)
		}
	}
	// ... and within two CPUs' 190 %.
	simulate(t, "cfs-2.6.35", 2, js, 100*ms)
}

func TestDeadlineOnManyCPUs(t *testing.T) {
	// Two deadline hogs of 5 ms in 10 ms and a periodic deadline task
	// of 0.3 ms every 5 ms on two CPUs, beside fair hogs: global EDF
	// gives each hog its 50 %, and the periodic task is never later than
	// its 5 ms deadline (EDF may make it wait for hogs whose deadlines
	// come first).
	e, rec := simulate(t, "cfs-2.6.35", 2, `{"tasks": {
		"fair": {"instance": 2, "run": 100000},
		"hog": {"instance": 2, "policy": "SCHED_DEADLINE", "dl-runtime": 5000, "dl-period": 10000, "run": 100000},
		"tick": {"policy": "SCHED_DEADLINE", "dl-runtime": 500, "dl-period": 5000, "timer": {"ref": "t", "period": 5000}, "run": 300}}}`, 2000*ms)
	for _, c := range []string{"hog-0", "hog-1"} {
		if got := float64(runtimeOf(t, e, rec, c)) / float64(2000*ms); math.Abs(got-0.5) > 0.02 {
			t.Errorf("%s got %.3f of a CPU, want 0.5", c, got)
		}
	}
	for i, l := range wakeLatencies(rec, "tick") {
		if l > 5*ms-300000 {
			t.Fatalf("tick's wakeup %d waited %d ns: it misses its deadline", i, l)
		}
	}
}

func TestDeterministicWithEveryClass(t *testing.T) {
	js := `{"tasks": {
		"fair": {"instance": 3, "run": 3000, "sleep": 1000, "yield": 0},
		"rr": {"instance": 2, "policy": "SCHED_RR", "priority": 7, "run": 30000, "sleep": 5000},
		"dl": {"instance": 2, "policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-deadline": 6000, "dl-period": 10000, "run": 1500, "sleep": 3000},
		"dly": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 7000, "run": 300, "yield": 0}}}`
	_, a := simulate(t, "eevdf-6.12", 3, js, 2000*ms)
	_, b := simulate(t, "eevdf-6.12", 3, js, 2000*ms)
	if !reflect.DeepEqual(a.Events, b.Events) {
		t.Fatal("two runs of one seed differ")
	}
	simulate(t, "cfs-2.6.24", 1, js, 2000*ms)
}

func TestForkIntoAndFromDeadline(t *testing.T) {
	// A fair thread's children set SCHED_DEADLINE as their first act and
	// run under it (prio -1 when they leave the CPU)...
	_, rec := simulate(t, "cfs-2.6.35", 1, `{"tasks": {
		"hog": {"run": 100000},
		"spawn": {"timer": {"ref": "a", "period": 20000}, "run": 100, "fork": "kid"},
		"kid": {"instance": 0, "policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 20000, "loop": 1, "run": 2000}}}`, 500*ms)
	ran := 0
	for _, ev := range rec.Events {
		if ev.Kind == trace.Switch && ev.Comm == "kid" {
			if ev.Prio != -1 {
				t.Fatalf("kid left its CPU at prio %d, want -1", ev.Prio)
			}
			ran++
		}
	}
	if ran < 20 {
		t.Fatalf("%d deadline kids ran", ran)
	}
	// ... and a deadline thread's fork is refused, as the kernel does.
	cfg := simtest.Config(t, "cfs-2.6.35", 1, nil, nil)
	e, err := sim.New(sim.Config{Spec: simtest.Spec(t, `{"tasks": {
		"d": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 10000, "run": 100, "fork": "k"},
		"k": {"instance": 0, "loop": 1, "run": 100}}}`), Sched: cfg, Params: sim.DefaultParams(), Duration: 1e9})
	if err == nil {
		_, err = e.Run()
	}
	if err == nil || !strings.Contains(err.Error(), "SCHED_FLAG_RESET_ON_FORK") {
		t.Fatalf("got %v, want the fork refused", err)
	}
}

func TestDeadlineTimeCountsAgainstRTThrottling(t *testing.T) {
	// A deadline hog of 300 ms a second, a FIFO hog and a fair hog on one
	// CPU: the deadline time is charged to the real-time runtime too, so
	// the FIFO hog is throttled after 950 − 300 = 650 ms and the fair hog
	// keeps its 50 ms a second (3 periods: 150 ms, give or take ticks).
	e, rec := simulate(t, "cfs-2.6.35", 1, `{"tasks": {
		"dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 300000, "dl-period": 1000000, "run": 100000},
		"fifo": {"policy": "SCHED_FIFO", "priority": 1, "run": 100000},
		"fair": {"run": 100000}}}`, 3000*ms)
	for comm, want := range map[string]int64{"dl": 900 * ms, "fifo": 1950 * ms, "fair": 150 * ms} {
		if got := runtimeOf(t, e, rec, comm); math.Abs(float64(got-want)) > float64(10*ms) {
			t.Errorf("%s ran %.1f ms in 3 s, want %.0f ± 10", comm, float64(got)/1e6, float64(want)/1e6)
		}
	}
}
