// Package simtest holds the helpers that tests of the engine and of the
// scheduling classes share: parse a workload, resolve a policy, run a
// simulation, each failing the test on error.
package simtest

import (
	"testing"

	"schedlab/sched"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// Spec parses an rt-app workload given as a string.
func Spec(t testing.TB, js string) *workload.Spec {
	t.Helper()
	s, err := workload.Parse("test.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Config resolves a registered policy for ncpu CPUs with feature and
// tunable overrides (nil for none).
func Config(t testing.TB, policy string, ncpu int, feats map[string]bool, set map[string]int64) *sched.Config {
	t.Helper()
	prof, err := sched.Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := prof.NewConfig(ncpu, feats, set)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Run simulates cfg to its end (with the engine's default parameters if
// none are given) and returns the engine for inspection.
func Run(t testing.TB, cfg sim.Config) *sim.Engine {
	t.Helper()
	if cfg.Params.HZ == 0 {
		cfg.Params = sim.DefaultParams()
	}
	e, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return e
}

// Scenario loads a built-in scenario with its default parameters.
func Scenario(t testing.TB, name string) *workload.Spec {
	t.Helper()
	spec, _, err := workload.Load(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// Recorded simulates js under policy on ncpu CPUs for d ns with set's
// tunables, the invariant checks on, and jiffies starting at 0 (the tick
// phase hand computations assume), and returns the engine and its events.
func Recorded(t testing.TB, policy string, ncpu int, set map[string]int64, js string, d int64) (*sim.Engine, *trace.Recorder) {
	t.Helper()
	rec := &trace.Recorder{}
	p := sim.DefaultParams()
	p.TickPhase = 0
	cfg := Config(t, policy, ncpu, nil, set)
	cfg.TickNS = p.TickNS()
	e := Run(t, sim.Config{Spec: Spec(t, js), Sched: cfg, Params: p, Duration: d, Seed: 1, Sink: rec, Check: true})
	return e, rec
}

// RuntimeOf is the CPU time of the first task named comm in a recorded run.
func RuntimeOf(t testing.TB, e *sim.Engine, rec *trace.Recorder, comm string) int64 {
	t.Helper()
	rt := e.TaskRuntime()
	for _, ev := range rec.Events {
		if ev.Kind == trace.WakeupNew && ev.Comm == comm {
			return rt[int(ev.PID)]
		}
	}
	t.Fatalf("no task %s", comm)
	return 0
}

// WakeLatencies are comm's wakeup-to-switch-in delays in a recorded run.
func WakeLatencies(rec *trace.Recorder, comm string) []int64 {
	var out []int64
	woke := int64(-1)
	for _, ev := range rec.Events {
		switch {
		case (ev.Kind == trace.Wakeup || ev.Kind == trace.WakeupNew) && ev.Comm == comm:
			woke = ev.TS
		case ev.Kind == trace.Switch && ev.NextComm == comm && woke >= 0:
			out = append(out, ev.TS-woke)
			woke = -1
		}
	}
	return out
}
