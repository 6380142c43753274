package sim_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"schedlab/sim"
	"schedlab/trace"
)

// ktConfig is a hog beside a task that runs and exits at the given
// times (µs), with an RCU kthread and one periodic kernel thread.
func ktRun(t *testing.T, policy, js string, k *sim.KernelThreads, seed uint64) (*trace.Recorder, sim.Params) {
	t.Helper()
	p := sim.DefaultParams()
	p.TickPhase = 0
	p.CostResched = 0
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, policy, 1, nil, nil), Params: p,
		Duration: 2e8, Seed: seed, Sink: rec, Check: true, Kernel: k})
	return rec, p
}

func rcuOnly(gp int64) *sim.KernelThreads {
	return &sim.KernelThreads{WakeDelay: 4000, RCU: &sim.RCUThread{Comm: "rcu_preempt", Run: 1000, GPTicks: gp}}
}

// kthreadWakes are the times of the sched_waking (or, for the first,
// sched_wakeup_new) of comm, and the times of the workload's exits.
func kthreadWakes(rec *trace.Recorder, comm string) (wakes, exits []int64) {
	for _, ev := range rec.Events {
		switch {
		case ev.Kind == trace.Waking && ev.Comm == comm:
			wakes = append(wakes, ev.TS)
		case ev.Kind == trace.Exit && !sim.IsKernelPID(ev.PID):
			exits = append(exits, ev.TS)
		}
	}
	return wakes, exits
}

// The RCU kthread wakes at the first tick after a thread's exit queues
// its callback (to start a grace period) and at the tick that ends it,
// GPTicks later; a callback queued during a grace period makes the end's
// cleanup start the next, ended one grace period later, with no wakeup of
// its own; without exits it never wakes.
func TestRCUKthreadWakesAtTicksAfterExits(t *testing.T) {
	// (On cfs-6.1 the woken kthread preempts the hog at once, so it is
	// asleep again at every wakeup, which each make a sched_waking.)
	for _, pol := range []string{"cfs-6.1"} {
		for _, gp := range []int64{1, 2} {
			// Exits at about 10.5 ms and 30.5 ms: far apart.
			rec, p := ktRun(t, pol, `{"tasks": {"hog": {"run": 1000000},
				"a": {"loop": 1, "delay": 10000, "run": 500}, "b": {"loop": 1, "delay": 30000, "run": 500}}}`, rcuOnly(gp), 1)
			tick := p.TickNS()
			wakes, exits := kthreadWakes(rec, "rcu_preempt")
			if len(exits) != 2 {
				t.Fatalf("%s: %d exits, want 2", pol, len(exits))
			}
			var want []int64
			for _, x := range exits {
				j := (x/tick + 1) * tick
				want = append(want, j+4000, j+gp*tick+4000)
			}
			if !slices.Equal(wakes, want) {
				t.Errorf("%s, grace period of %d ticks: rcu_preempt woken at %v, want %v (exits at %v)", pol, gp, wakes, want, exits)
			}
		}
	}
	// Two exits in one jiffy share a grace period; a third during it waits
	// for the next, which the first one's cleanup starts.
	rec, p := ktRun(t, "eevdf-6.12", `{"tasks": {"hog": {"run": 1000000},
		"a": {"loop": 1, "delay": 10000, "run": 300}, "b": {"loop": 1, "delay": 10000, "run": 600},
		"c": {"loop": 1, "delay": 16000, "run": 100}}}`, rcuOnly(2), 1)
	tick := p.TickNS()
	wakes, exits := kthreadWakes(rec, "rcu_preempt")
	j := (exits[0]/tick + 1) * tick
	if (exits[1]/tick+1)*tick != j || exits[2] < j+4000 || exits[2] > j+2*tick {
		t.Fatalf("exits at %v: not two in one jiffy and one in the grace period after (tick %d)", exits, tick)
	}
	if want := []int64{j + 4000, j + 2*tick + 4000, j + 4*tick + 4000}; !slices.Equal(wakes, want) {
		t.Errorf("rcu_preempt woken at %v, want %v (exits at %v)", wakes, want, exits)
	}
	rec, _ = ktRun(t, "eevdf-6.12", `{"tasks": {"hog": {"run": 1000000}}}`, rcuOnly(1), 1)
	if wakes, _ := kthreadWakes(rec, "rcu_preempt"); len(wakes) != 0 {
		t.Errorf("rcu_preempt woken at %v without any exit", wakes)
	}
}

// A kernel thread runs its burst, after the context switch, and sleeps
// without a blocking call's cost; a periodic one wakes at the first tick
// at or after each due time, Period apart, from a first due time the seed
// draws. The same seed gives the same events.
func TestPeriodicKthread(t *testing.T) {
	k := &sim.KernelThreads{WakeDelay: 4000, Periodic: []sim.PeriodicThread{{Comm: "kcompactd0", Run: 2000, Period: 48_000_000}}}
	rec, p := ktRun(t, "cfs-6.1", `{"tasks": {"hog": {"run": 1000000}}}`, k, 3)
	tick := p.TickNS()
	wakes, _ := kthreadWakes(rec, "kcompactd0")
	if len(wakes) != 4 {
		t.Fatalf("kcompactd0 woken %d times in 200 ms every 48 ms: %v", len(wakes), wakes)
	}
	for i, w := range wakes {
		if (w-4000)%tick != 0 {
			t.Errorf("wakeup %d at %d ns: not 4 µs after a jiffy", i, w)
		}
		if i > 0 && w-wakes[i-1] != 48_000_000 {
			t.Errorf("wakeups %d ns apart, want 48 ms", w-wakes[i-1])
		}
	}
	// Its stints: switch-in to switch-out is the context switch and the
	// run, with no blocking call's cost.
	var in int64 = -1
	woken := false
	for _, ev := range rec.Events {
		switch {
		case ev.Kind == trace.Waking && ev.Comm == "kcompactd0":
			woken = true
		case ev.Kind == trace.Switch && ev.NextComm == "kcompactd0" && woken:
			in, woken = ev.TS, false
		case ev.Kind == trace.Switch && ev.Comm == "kcompactd0" && in >= 0:
			if d := ev.TS - in; d != p.CostContextSwitch+2000 {
				t.Errorf("kcompactd0 ran %d ns, want %d", d, p.CostContextSwitch+2000)
			}
			in = -1
		}
	}
	text := func(seed uint64) string {
		rec, _ := ktRun(t, "eevdf-6.12", `{"tasks": {"hog": {"run": 1000000}, "a": {"loop": 1, "delay": 10000, "run": 500}}}`,
			&sim.KernelThreads{WakeDelay: 4000, Periodic: k.Periodic, RCU: rcuOnly(1).RCU}, seed)
		var b bytes.Buffer
		for _, ev := range rec.Events {
			fmt.Fprintf(&b, "%+v\n", ev)
		}
		return b.String()
	}
	if a, b, c := text(5), text(5), text(6); a != b {
		t.Error("same seed, different events")
	} else if a == c {
		t.Error("seeds 5 and 6 gave the same events: the periodic thread's phase is not drawn")
	}
}

// A periodic thread woken by an hrtimer wakes at each due time itself,
// Period apart, from a first due time the seed draws, not at a jiffy: over
// seeds its wakeups fall at many phases of the tick.
func TestPeriodicHRTimerThread(t *testing.T) {
	k := &sim.KernelThreads{WakeDelay: 4000, Periodic: []sim.PeriodicThread{{Comm: "init", Run: 36000, Period: 48_000_000, HRTimer: true}}}
	phases := map[int64]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		rec, p := ktRun(t, "eevdf-6.12", `{"tasks": {"hog": {"run": 1000000}}}`, k, seed)
		wakes, _ := kthreadWakes(rec, "init")
		if len(wakes) < 4 || len(wakes) > 5 {
			t.Fatalf("seed %d: init woken %d times in 200 ms every 48 ms: %v", seed, len(wakes), wakes)
		}
		if wakes[0] >= 48_000_000 {
			t.Errorf("seed %d: first wakeup at %d ns, after the first period", seed, wakes[0])
		}
		for i := 1; i < len(wakes); i++ {
			if d := wakes[i] - wakes[i-1]; d != 48_000_000 {
				t.Errorf("seed %d: wakeups %d ns apart, want 48 ms", seed, d)
			}
		}
		phases[wakes[0]%p.TickNS()] = true
	}
	if len(phases) < 6 {
		t.Errorf("8 seeds put the hrtimer thread's wakeups at only %d phases of the tick: %v", len(phases), phases)
	}
}

// Every profile runs kernel threads beside a forking, exiting workload
// with the engine's and the class's invariants checked at every event.
func TestKthreadsKeepInvariants(t *testing.T) {
	k := &sim.KernelThreads{WakeDelay: 4000, Periodic: []sim.PeriodicThread{{Comm: "kworker/0:2", Run: 2800, Period: 12_000_000}},
		RCU: &sim.RCUThread{Comm: "rcu_preempt", Run: 600, GPTicks: 2}}
	for _, pol := range []string{"cfs-2.6.24", "cfs-2.6.35", "cfs-2.6.36", "cfs-5.10", "cfs-6.1", "eevdf-6.6", "eevdf-6.12", "eevdf-6.18", "eevdf-7.2"} {
		for _, ncpu := range []int{1, 2} {
			rec := &trace.Recorder{}
			e := run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "run": 100000},
				"spawner": {"timer": {"ref": "s", "period": 3000}, "run": 20, "fork": "child"},
				"child": {"instance": 0, "loop": 1, "run": 300}}}`),
				Sched: schedConfig(t, pol, ncpu, nil, nil), Params: sim.DefaultParams(), Duration: 3e8, Seed: 2, Sink: rec, Check: true, Kernel: k})
			ran := map[string]bool{}
			for pid, ns := range e.TaskRuntime() {
				if sim.IsKernelPID(int32(pid)) && ns > 0 {
					ran[fmt.Sprint(pid)] = true
				}
			}
			if len(ran) != 2 {
				t.Errorf("%s on %d CPUs: %d kernel threads ran, want 2", pol, ncpu, len(ran))
			}
		}
	}
}

// The launcher sleeps from the start, wakes once at At, runs Walk and
// kills the workload: the suspended waiter and the sleeping ticker are
// woken by it at once (sched_waking by a machine's PID), the running hog
// is not (it is runnable), and every workload thread exits after
// cost_exit_ns of its next run, so the run ends there, long before its
// duration; the launcher is never woken again. A launcher with a
// negative time is refused.
func TestLauncherKillsTheWorkload(t *testing.T) {
	js := `{"tasks": {"hog": {"run": 100000}, "waiter": {"loop": 1, "suspend": "waiter"},
		"ticker": {"timer": {"ref": "t", "period": 7000}, "run": 100}}}`
	const at, walk = 50_000_000, 300_000
	k := &sim.KernelThreads{Launcher: &sim.Launcher{Comm: "init", At: at, Walk: walk, After: 10_000}}
	rec, p := ktRun(t, "cfs-6.1", js, k, 1)
	var initWakes []int64
	kills := map[string]int64{}
	var last int64
	for _, ev := range rec.Events {
		switch {
		case ev.Kind == trace.Waking && ev.Comm == "init":
			initWakes = append(initWakes, ev.TS)
			if !sim.IsKernelPID(ev.PID) {
				t.Errorf("the launcher has PID %d, not a machine's", ev.PID)
			}
		case ev.Kind == trace.Waking && ev.TS > at:
			kills[ev.Comm] = ev.TS
		case ev.Kind == trace.Exit:
			last = max(last, ev.TS)
		}
	}
	if !slices.Equal(initWakes, []int64{at}) {
		t.Errorf("the launcher woke at %v, want once at %d", initWakes, at)
	}
	kill := kills["waiter"]
	if kill < at+walk+p.CostWakeup || kill > at+walk+100_000 || kills["ticker"] != kill || len(kills) != 2 {
		t.Errorf("woken after the launcher's start: %v, want the waiter and the ticker at once, %d ns + the wakeup's cost after it", kills, walk)
	}
	if last < kill || last > kill+1_000_000 {
		t.Errorf("the last exit at %d, want within 1 ms of the kill at %d", last, kill)
	}
	if _, err := sim.New(sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-6.1", 1, nil, nil), Params: p, Duration: 1e8,
		Kernel: &sim.KernelThreads{Launcher: &sim.Launcher{Comm: "init", At: at, Walk: -1}}}); err == nil {
		t.Errorf("a launcher with a negative walk was accepted")
	}
}

// The launcher's monitor thread wakes at SpinAt and then every SpinSleep
// after its SpinRun, for as long as the run goes on: beside a busy loop,
// at a constant pace from the first wakeup, and with the launcher's PID
// range (not the workload's).
func TestLauncherMonitorSpins(t *testing.T) {
	js := `{"tasks": {"hog": {"run": 100000}}}`
	const spinAt, at = 40_000_000, 50_000_000
	k := &sim.KernelThreads{Launcher: &sim.Launcher{Comm: "init", At: at, Walk: 300_000, SpinAt: spinAt, SpinRun: 2800, SpinSleep: 65_000}}
	rec, _ := ktRun(t, "cfs-6.1", js, k, 1)
	var wakes []int64
	for _, ev := range rec.Events {
		if ev.Kind == trace.Waking && ev.Comm == "init" && ev.TS < at {
			wakes = append(wakes, ev.TS)
			if !sim.IsKernelPID(ev.PID) {
				t.Fatalf("the monitor has PID %d, not a machine's", ev.PID)
			}
		}
	}
	if len(wakes) < 100 || wakes[0] != spinAt {
		t.Fatalf("the monitor woke %d times before the walk, first at %v; want over 100 from %d", len(wakes), wakes[:min(len(wakes), 1)], spinAt)
	}
	for i := 2; i < len(wakes); i++ {
		if d, d0 := wakes[i]-wakes[i-1], wakes[1]-wakes[0]; d != d0 || d < 65_000+2800 {
			t.Fatalf("the monitor's wakeups %d and %d are %d ns apart, the first two %d", i-1, i, d, d0)
		}
	}
}
