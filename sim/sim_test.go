package sim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"schedlab/internal/simtest"
	"schedlab/sched"
	"schedlab/sched/cfs"
	_ "schedlab/sched/dl" // the real-time and deadline classes, which built-in scenarios use
	_ "schedlab/sched/rt"
	"schedlab/sim"
	"schedlab/trace"
)

// The shared helpers, under the names these tests use.
var (
	spec        = simtest.Spec
	schedConfig = simtest.Config
	run         = simtest.Run
)

// wrapped returns a cfs-2.6.35 configuration whose class is probe, a
// test's wrapper that sees every hook call; set hands it the real class.
func wrapped(t testing.TB, probe sched.Class, set func(sched.Class)) *sched.Config {
	cfg := schedConfig(t, "cfs-2.6.35", 1, nil, nil)
	prof := *cfg.Profile
	prof.New = func(c *sched.Config) (sched.Class, error) {
		cl, err := cfs.New(c)
		set(cl)
		return probe, err
	}
	cfg.Profile = &prof
	return cfg
}

func shares(e *sim.Engine) map[int]float64 {
	rt := e.TaskRuntime()
	out := map[int]float64{}
	for pid, ns := range rt {
		out[pid] = float64(ns) / float64(e.Now())
	}
	return out
}

func TestTwoHogsSplitEvenly(t *testing.T) {
	for _, policy := range []string{"cfs-2.6.35", "cfs-2.6.36"} {
		e := run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "run": 100000}}}`),
			Sched: schedConfig(t, policy, 1, nil, nil), Duration: 10e9, Check: true})
		for pid, s := range shares(e) {
			if math.Abs(s-0.5) > 0.005 {
				t.Errorf("%s: pid %d got %.4f of the CPU, want 0.5 ± 0.005", policy, pid, s)
			}
		}
	}
}

func TestNiceSplitFollowsWeights(t *testing.T) {
	e := run(t, sim.Config{Spec: spec(t, `{"tasks": {"n0": {"run": 100000}, "n5": {"priority": 5, "run": 100000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Duration: 10e9, Check: true})
	s := shares(e)
	want := 1024.0 / (1024 + 335)
	got := s[1001]
	if math.Abs(got-want)/want > 0.01 {
		t.Fatalf("nice-0 share %.4f, want 1024:335 = %.4f within 1%%", got, want)
	}
	if math.Abs(s[1001]+s[1002]-1) > 1e-9 {
		t.Fatalf("shares do not add up to the CPU: %v", s)
	}
}

func TestGroupsShareByShares(t *testing.T) {
	// Group /a (shares 2048) with one hog, group /b (1024) with three hogs:
	// /a gets 2/3 of the CPU whatever the task counts.
	e := run(t, sim.Config{Spec: spec(t, `{"global": {"taskgroups": {"/a": {"shares": 2048}}},
		"tasks": {"a": {"taskgroup": "/a", "run": 100000}, "b": {"instance": 3, "taskgroup": "/b", "run": 100000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Duration: 10e9, Check: true})
	if got := shares(e)[1001]; math.Abs(got-2.0/3) > 0.01 {
		t.Fatalf("group /a got %.4f, want 2/3", got)
	}
}

// preemptProbe wraps the CFS class and checks every wakeup preemption
// decision of the sleeper against the rule: preempt iff the running task's
// vruntime is more than the wakeup granularity right of the wakee's.
type preemptProbe struct {
	sched.Class
	t                   *testing.T
	sleeper             int
	preempted, declined int
}

func (p *preemptProbe) CheckPreempt(rq sched.RQ, w *sched.Task, wf int) {
	curr := rq.Curr()
	before := rq.NeedResched()
	p.Class.CheckPreempt(rq, w, wf)
	if w.PID != p.sleeper || curr == nil || before || wf != 0 {
		return
	}
	lag := int64(cfs.Vruntime(curr) - cfs.Vruntime(w))
	got := rq.NeedResched()
	if want := lag > 1000000; got != want {
		p.t.Errorf("wakeup with lag %d ns: preempted = %v, want %v", lag, got, want)
	}
	if got {
		p.preempted++
	} else {
		p.declined++
	}
}

func TestSleeperPreemptsOnlyBeyondGranularity(t *testing.T) {
	// The sleeper alternates short sleeps (little lag at wakeup) and long
	// ones (the sleeper credit puts it 3 ms left): both outcomes occur.
	sp := spec(t, `{"tasks": {"hog": {"run": 100000},
		"sleeper": {"phases": {
			"short": {"loop": 12, "run": 700, "sleep": 300},
			"long":  {"run": 700, "sleep": 20000}}}}}`)
	probe := &preemptProbe{t: t, sleeper: 1002}
	cfg := wrapped(t, probe, func(c sched.Class) { probe.Class = c })
	run(t, sim.Config{Spec: sp, Sched: cfg, Duration: 2e9})
	if probe.preempted == 0 || probe.declined == 0 {
		t.Fatalf("want both outcomes: %d wakeups preempted, %d did not", probe.preempted, probe.declined)
	}
	t.Logf("%d wakeups preempted, %d did not", probe.preempted, probe.declined)
}

func TestPeriodicSleeperPreemptsImmediately(t *testing.T) {
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"run": 100000},
		"p": {"timer": {"ref": "unique", "period": 10000}, "run": 1000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Duration: 1e9, Sink: rec, Check: true})
	wakes := 0
	for i, ev := range rec.Events {
		if ev.Kind != trace.Wakeup || ev.PID != 1002 {
			continue
		}
		wakes++
		// The hog leaves the CPU on its return from the timer
		// interrupt, cost_resched_ns later.
		next := rec.Events[i+1]
		if next.Kind != trace.Switch || next.NextPID != 1002 || next.TS != ev.TS+sim.DefaultParams().CostResched {
			t.Fatalf("wakeup at %d not followed by a switch to the sleeper after cost_resched_ns: %+v", ev.TS, next)
		}
	}
	if wakes < 90 {
		t.Fatalf("only %d wakeups in 1 s of a 10 ms timer", wakes)
	}
}

const randomWorkload = `{"tasks": {
	"job": {"instance": 3, "run": {"dist": "lognormal", "median": 2000, "sigma": 1},
	        "sleep": {"dist": "exponential", "mean": 500}},
	"helper": {"timer": {"ref": "t", "period": 10000, "notify": "thread"}, "run": 30, "fork": "cb"},
	"cb": {"instance": 0, "loop": 1, "run": {"dist": "uniform", "min": 10, "max": 50}}}}`

func traceText(t *testing.T, seed uint64) string {
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, randomWorkload), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil),
		Duration: 1e9, Seed: seed, Sink: rec, Check: true})
	var b strings.Builder
	for _, ev := range rec.Events {
		fmt.Fprintf(&b, "%+v\n", ev)
	}
	return b.String()
}

func TestDeterministic(t *testing.T) {
	a, b, c := traceText(t, 7), traceText(t, 7), traceText(t, 8)
	if a != b {
		t.Fatal("same seed, different event streams")
	}
	if a == c {
		t.Fatal("different seeds, identical event streams: the seed is not used")
	}
}

func TestTwoCPUsRunTwoHogsInParallel(t *testing.T) {
	e := run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "run": 100000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Duration: 1e9, Check: true})
	busy, _ := e.CPUTime()
	for i, b := range busy {
		if b != 1e9 {
			t.Errorf("cpu %d busy %d ns of 1e9", i, b)
		}
	}
}

func TestAllTasksExitEndsRun(t *testing.T) {
	e := run(t, sim.Config{Spec: spec(t, `{"tasks": {"once": {"loop": 2, "run": 1000, "sleep": 1000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Duration: 10e9, Check: true})
	// 2 × (1 ms run + 1 ms sleep), plus the switch and exit costs and the
	// wakeup-path delay of each sleep.
	p := sim.DefaultParams()
	want := int64(4e6) + 2*p.CostWakeup + 3*p.CostContextSwitch + p.CostExit
	if e.Now() != want {
		t.Fatalf("run ended at %d ns, want %d", e.Now(), want)
	}
}

func TestZeroTimeLoopIsAnError(t *testing.T) {
	e, err := sim.New(sim.Config{Spec: spec(t, `{"tasks": {"spin": {"run": 0}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Params: sim.DefaultParams(), Duration: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err == nil || !strings.Contains(err.Error(), "no progress") {
		t.Fatalf("want a no-progress error, got %v", err)
	}
}

// tickCounter counts scheduler ticks through the class.
type tickCounter struct {
	sched.Class
	ticks int
}

func (c *tickCounter) Tick(rq sched.RQ, curr *sched.Task, queued bool) {
	c.ticks++
	c.Class.Tick(rq, curr, queued)
}

// A busy CPU ticks HZ times a second, also when 10⁹/HZ is not whole.
func TestTickRate(t *testing.T) {
	for _, hz := range []int64{100, 250, 300, 1000} {
		tc := &tickCounter{}
		cfg := wrapped(t, tc, func(c sched.Class) { tc.Class = c })
		p := sim.DefaultParams()
		p.HZ = hz
		run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "run": 7000}}}`), Sched: cfg, Params: p, Duration: 2e9})
		if want := int(2 * hz); tc.ticks < want-1 || tc.ticks > want {
			t.Errorf("HZ=%d: %d ticks in 2 s, want %d", hz, tc.ticks, want)
		}
	}
}
