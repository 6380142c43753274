package sim_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"schedlab/sim"
)

// runBounded runs a workload with the given engine parameters and fails
// the test if the run does not end within a minute: a livelock used to
// never return.
func runBounded(t *testing.T, js string, ncpu int, set map[string]int64) (*sim.Engine, error) {
	t.Helper()
	p := sim.DefaultParams()
	for k, v := range set {
		if !p.Set(k, v) {
			t.Fatalf("no parameter %s", k)
		}
	}
	e, err := sim.New(sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-2.6.35", ncpu, nil, nil), Params: p, Duration: 1e9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := e.Run(); done <- err }()
	select {
	case err := <-done:
		return e, err
	case <-time.After(time.Minute):
		t.Fatal("the run has not ended after a minute of wall time")
		return nil, nil
	}
}

// wantWorkloadError checks that err is a *sim.WorkloadError saying each
// of want.
func wantWorkloadError(t *testing.T, err error, want ...string) {
	t.Helper()
	var we *sim.WorkloadError
	if !errors.As(err, &we) {
		t.Fatalf("error %v (%T), want a *sim.WorkloadError", err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// Events that take no time can loop at one instant: the run ends with an
// error that names the looping threads and the costs that are 0, after a
// bounded number of events (so a bounded memory), instead of never.
func TestZeroCostLoopsEndWithAnError(t *testing.T) {
	_, err := runBounded(t, `{"tasks": {"y": {"loop": -1, "yield": 0}}}`, 1, map[string]int64{sim.ParamYield: 0})
	wantWorkloadError(t, err, "makes no progress", `y (pid 1001) at "yield"`, "raise cost_yield_ns (0 now", "events (the bound is")

	e, err := runBounded(t, `{"tasks": {"a": {"loop": -1, "resume": "b", "suspend": "a"}, "b": {"loop": -1, "suspend": "b", "resume": "a"}}}`, 2,
		map[string]int64{sim.ParamWakeup: 0, sim.ParamCtxSwitch: 0})
	wantWorkloadError(t, err, "makes no progress: at 0 ns", "a (pid 1001)", "b (pid 1002)", `"suspend"`, "raise cost_context_switch_ns or cost_wakeup_ns (all 0 now")
	if n := e.Events(); n > 2_000_000 {
		t.Errorf("the loop was found after %d events", n)
	}

	// The same programs with their costs make progress, and run to the end.
	if _, err := runBounded(t, `{"tasks": {"y": {"loop": -1, "yield": 0}}}`, 1, nil); err != nil {
		t.Fatal(err)
	}
	if e, err = runBounded(t, `{"tasks": {"a": {"loop": -1, "resume": "b", "suspend": "a"}, "b": {"loop": -1, "suspend": "b", "resume": "a"}}}`, 1,
		map[string]int64{sim.ParamWakeup: 0}); err != nil || e.Now() != 1e9 {
		t.Fatalf("with a context-switch cost: %v at %d ns", err, e.Now())
	}

	// A thread whose events never reach the queue is caught by its own bound.
	_, err = runBounded(t, `{"tasks": {"a": {"latency_end": 0}}}`, 1, nil)
	wantWorkloadError(t, err, "task a (pid 1001) makes no progress", `"latency_end"`)
}

// With zero costs a fork bomb used to grow without end at time 0. Since
// the simulator holds 1,048,576 threads (262,144 before issue 16), the
// bound on events at one instant stops it first; the bound on live
// threads, as --pids-max bounds a host run, is TestLiveThreadsAreBounded.
func TestForkBombEndsWithAnError(t *testing.T) {
	if testing.Short() {
		t.Skip("makes some 10⁵ threads")
	}
	_, err := runBounded(t, `{"tasks": {"a": {"fork": "a"}}}`, 1, map[string]int64{sim.ParamFork: 0, sim.ParamCtxSwitch: 0})
	wantWorkloadError(t, err, "task a (pid", "makes no progress at 0 ns", `"fork"`)
}
