// Package simtest holds the helpers that tests of the engine and of the
// scheduling classes share: parse a workload, resolve a policy, run a
// simulation, each failing the test on error.
package simtest

import (
	"testing"

	"schedlab/sched"
	"schedlab/sim"
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
