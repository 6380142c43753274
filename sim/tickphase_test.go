package sim_test

import (
	"testing"

	"schedlab/sim"
	"schedlab/trace"
)

// hogSwitchPhase runs two hogs, which switch only when the tick ends a
// slice, and returns where in a jiffy those switches fall: the tick's
// phase in workload time plus the preempted hog's way to schedule().
func hogSwitchPhase(t *testing.T, p sim.Params, seed uint64) int64 {
	t.Helper()
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "run": 100000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Params: p, Duration: 1e8, Seed: seed, Sink: rec, Check: true})
	tick := p.TickNS()
	phase := int64(-1)
	for _, ev := range rec.Events {
		// (Both hogs start at 0, and the later-created runs first.)
		if ev.Kind != trace.Switch || ev.PID == 0 || ev.NextPID == 0 || ev.TS < tick {
			continue
		}
		r := ((ev.TS-p.CostResched)%tick + tick) % tick
		if phase >= 0 && r != phase {
			t.Fatalf("seed %d: tick switches at %d and at phase %d of a jiffy", seed, r, phase)
		}
		phase = r
	}
	if phase < 0 {
		t.Fatalf("seed %d: no switch between the hogs", seed)
	}
	return phase
}

// A real program starts at an arbitrary moment of the tick grid. With
// tick_phase_ns set, the jiffies start that far before each multiple of
// 10⁹/HZ of workload time; by default the seed draws the phase: the same
// for the same seed, spread over the jiffy across seeds.
func TestTickPhase(t *testing.T) {
	p := sim.DefaultParams()
	p.TickPhase = 1234567
	if got, want := hogSwitchPhase(t, p, 1), p.TickNS()-1234567; got != want {
		t.Errorf("tick_phase_ns 1234567: ticks at phase %d of a jiffy, want %d", got, want)
	}
	p.TickPhase = 0
	if got := hogSwitchPhase(t, p, 1); got != 0 {
		t.Errorf("tick_phase_ns 0: ticks at phase %d, want 0", got)
	}
	p = sim.DefaultParams()
	seen := map[int64]bool{}
	for seed := uint64(1); seed <= 6; seed++ {
		ph := hogSwitchPhase(t, p, seed)
		if again := hogSwitchPhase(t, p, seed); again != ph {
			t.Fatalf("seed %d: phase %d, then %d", seed, ph, again)
		}
		seen[ph] = true
	}
	if len(seen) < 5 {
		t.Errorf("6 seeds gave only %d distinct tick phases", len(seen))
	}
	p.TickPhase = p.TickNS()
	if _, err := sim.New(sim.Config{Spec: spec(t, `{"tasks": {"hog": {"run": 1000}}}`), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil),
		Params: p, Duration: 1e9}); err == nil {
		t.Errorf("tick_phase_ns of a whole jiffy accepted")
	}
}
