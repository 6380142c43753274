package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"schedlab/analyze"
	"schedlab/sim"
	"schedlab/trace"
)

func TestThreeHogsKeepTwoCPUsBusy(t *testing.T) {
	for _, policy := range []string{"cfs-2.6.35", "cfs-2.6.24"} {
		rec := &trace.Recorder{}
		an := analyze.New()
		e := run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 3, "run": 100000}}}`),
			Sched: schedConfig(t, policy, 2, nil, nil), Duration: 10e9, Sink: trace.Tee{rec, an}, Check: true})
		busy, _ := e.CPUTime()
		for i, b := range busy {
			if b != 10e9 {
				t.Errorf("%s: cpu %d busy %d of 10e9 ns", policy, i, b)
			}
		}
		if w := an.Finish(10e9).Wasted; w != 0 {
			t.Errorf("%s: %d ns of wasted capacity with 3 hogs on 2 CPUs", policy, w)
		}
		// The third hog is moved around by the balancer, and every move is
		// traced.
		migrations := 0
		for _, ev := range rec.Events {
			if ev.Kind == trace.Migrate {
				migrations++
				if ev.OrigCPU == ev.DestCPU {
					t.Fatalf("%s: migration to the same CPU: %+v", policy, ev)
				}
			}
		}
		if migrations == 0 {
			t.Errorf("%s: no migrations: the balancer never evened out 2+1 hogs", policy)
		}
		// Over 10 s each hog gets about 2/3 of a CPU.
		for pid, ns := range e.TaskRuntime() {
			if s := float64(ns) / 10e9; s < 0.55 || s > 0.78 {
				t.Errorf("%s: pid %d got %.3f of a CPU, want about 2/3", policy, pid, s)
			}
		}
	}
}

func TestSleeperWakesOnIdleCPU(t *testing.T) {
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"run": 100000}, "s": {"run": 100, "sleep": 5000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Duration: 1e9, Sink: rec, Check: true})
	waits := map[int32]int64{}
	late := 0
	for _, ev := range rec.Events {
		switch {
		case ev.Kind == trace.Waking && ev.PID == 1002:
			waits[ev.PID] = ev.TS
		case ev.Kind == trace.Switch && ev.NextPID == 1002:
			if w, ok := waits[1002]; ok && ev.TS != w {
				late++
			}
			delete(waits, 1002)
		}
	}
	if late > 0 {
		t.Fatalf("%d wakeups of the sleeper waited although a CPU was idle", late)
	}
}

func TestAffinityIsRespected(t *testing.T) {
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, `{"tasks": {"pinned": {"instance": 3, "cpus": [1], "run": 1000, "sleep": 300},
		"free": {"instance": 2, "run": 2000, "sleep": 100}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 4, nil, nil), Duration: 2e9, Sink: rec, Check: true})
	pinned := map[int32]bool{1001: true, 1002: true, 1003: true}
	for _, ev := range rec.Events {
		if ev.Kind == trace.Switch && pinned[ev.NextPID] && ev.CPU != 1 {
			t.Fatalf("pinned task %d ran on cpu %d", ev.NextPID, ev.CPU)
		}
	}
}

func TestManyCPUsDeterministic(t *testing.T) {
	text := func() string {
		rec := &trace.Recorder{}
		run(t, sim.Config{Spec: spec(t, randomWorkload), Sched: schedConfig(t, "cfs-2.6.35", 8, nil, nil),
			Params: withLLC(4), Duration: 1e9, Seed: 3, Sink: rec, Check: true})
		var b strings.Builder
		for _, ev := range rec.Events {
			fmt.Fprintf(&b, "%+v\n", ev)
		}
		return b.String()
	}
	if text() != text() {
		t.Fatal("same seed on 8 CPUs, different event streams")
	}
}

func withLLC(n int64) sim.Params {
	p := sim.DefaultParams()
	p.LLCSize = n
	return p
}

// Many tasks on many CPUs: the run completes, every CPU is used, and the
// invariants hold (checked on a shorter run: the check is O(tasks)).
func TestLargeMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("large machine in -short mode")
	}
	w := `{"tasks": {"w": {"instance": 10000, "run": {"dist": "exponential", "mean": 2000}, "sleep": {"dist": "exponential", "mean": 20000}}}}`
	e := run(t, sim.Config{Spec: spec(t, w), Sched: schedConfig(t, "cfs-2.6.35", 256, nil, nil), Duration: 0.2e9, Seed: 1})
	busy, _ := e.CPUTime()
	for i, b := range busy {
		if b == 0 {
			t.Fatalf("cpu %d never ran a task", i)
		}
	}
	run(t, sim.Config{Spec: spec(t, strings.Replace(w, "10000", "600", 1)), Sched: schedConfig(t, "cfs-2.6.35", 64, nil, nil),
		Duration: 0.05e9, Seed: 1, Check: true})
}

// wasted runs cfg and returns the capacity its event stream shows wasted
// (the analysis computes it, from the stream's Begin and switches).
func wasted(t *testing.T, cfg sim.Config) int64 {
	t.Helper()
	an := analyze.New()
	cfg.Sink = an
	run(t, cfg)
	return an.Finish(cfg.Duration).Wasted
}

func TestWastedCapacity(t *testing.T) {
	// Two hogs pinned to CPU 0 of two: CPU 1 idles while one hog waits, the
	// whole run long (the metric does not consult affinity). CPU 1 never
	// shows an event: only the stream's Begin says it exists.
	w := wasted(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "cpus": [0], "run": 100000}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Duration: 1e9, Check: true})
	if w != 1e9 {
		t.Fatalf("wasted %d ns, want the whole 1e9", w)
	}
	// Waking tasks find the idle CPU only within their cache domain, so
	// one cache per CPU wastes more than one shared cache.
	js := `{"tasks": {"t": {"instance": 3, "run": {"dist": "exponential", "mean": 1000}, "sleep": {"dist": "exponential", "mean": 1500}}}}`
	shared := wasted(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Params: withLLC(0), Duration: 2e9, Check: true})
	split := wasted(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Params: withLLC(1), Duration: 2e9, Check: true})
	if !(split > shared) {
		t.Fatalf("wasted: split caches %d ns, shared cache %d ns", split, shared)
	}
	t.Logf("wasted: shared cache %.2f ms, split caches %.2f ms", float64(shared)/1e6, float64(split)/1e6)
}

// A phase that names no CPUs lifts the affinity an earlier phase set
// (the task was pinned, its definition names none): the mover, pinned
// to CPU 1 with a hog in its first phase, runs on the idle CPU 0 in its
// second.
func TestPhaseWithoutCPUsLiftsAffinity(t *testing.T) {
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"cpus": [1], "run": 1000000},
		"mover": {"loop": 1, "phases": {"pinned": {"cpus": [1], "run": 5000}, "free": {"run": 200000}}}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Duration: 0.3e9, Sink: rec, Check: true})
	pinned := false // it has run on CPU 1 (it starts on CPU 0)
	for _, ev := range rec.Events {
		if ev.Kind == trace.Switch && ev.NextComm == "mover" {
			if pinned && ev.CPU == 0 {
				return
			}
			pinned = pinned || ev.CPU == 1
		}
	}
	t.Fatal("the mover never ran on CPU 0 after its pinned phase")
}
