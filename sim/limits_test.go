package sim_test

import (
	"strings"
	"testing"
	"time"

	"schedlab/sim"
)

func TestDurationIsBounded(t *testing.T) {
	_, err := sim.New(sim.Config{Spec: spec(t, `{"tasks": {"a": {"run": 1}}}`), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil),
		Params: sim.DefaultParams(), Duration: 1e16 + 1})
	if err == nil || !strings.Contains(err.Error(), "longer than a simulation may be (10⁷ s") {
		t.Fatalf("a duration past 10⁷ s: %v", err)
	}
}

// A thread that first waits on a POSIX timer long after it started skips
// the expiries it missed in one step: a sleep of 10⁶ s before a 1 µs
// timer used to count 10¹² of them.
func TestLateFirstTimerIsArmedAtOnce(t *testing.T) {
	js := `{"tasks": {"a": {"loop": 1, "sleep": 1000000000000, "timer": {"ref": "t", "period": 1, "notify": "signal"}, "run": 10}}}`
	p := sim.DefaultParams()
	e, err := sim.New(sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Params: p, Duration: 1e15 + 1e7, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := e.Run(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the run has not ended after a minute of wall time")
	}
}

// A million threads from one definition start (issue 16; the input
// limit was 100,000 a definition): each is created, placed and queued,
// and the first ones run. Not with -short: it takes about a GB and some
// seconds.
func TestMillionTasksFromOneDefinition(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 1,000,000 threads (about 1 GB)")
	}
	e, err := sim.New(sim.Config{Spec: spec(t, `{"tasks": {"t": {"instance": 1000000, "run": 500, "sleep": 1000000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 64, nil, nil), Params: sim.DefaultParams(), Duration: 20e6})
	if err != nil {
		t.Fatal(err)
	}
	end, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	// 64 CPUs for 20 ms run some 2,500 stints of 500 µs.
	rt := e.TaskRuntime()
	ran := 0
	for _, ns := range rt {
		if ns > 0 {
			ran++
		}
	}
	if len(rt) != 1000000 || ran < 1000 || ran > 5000 {
		t.Fatalf("at %d ns: %d tasks, %d of them ran", end, len(rt), ran)
	}
}
