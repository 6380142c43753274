package sim_test

import (
	"fmt"
	"testing"

	"schedlab/sim"
	"schedlab/trace"
)

// wakings returns the times pid was woken (sched_waking).
func wakings(evs []trace.Event, pid int32) []int64 {
	var ts []int64
	for _, e := range find(evs, func(e *trace.Event) bool { return e.Kind == trace.Waking && e.PID == pid }) {
		ts = append(ts, e.TS)
	}
	return ts
}

func equalTS(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// a (1001) holds m for 5 ms, then at once unlocks and locks it again for
// 1 ms; b (1002) asks for m at 1 ms. Two CPUs, so neither waits for a CPU.
const handoffLoad = `{"global": {"pi_enabled": %s}, "tasks": {
	"a": {"loop": 1, "lock": "m", "run": 5000, "unlock": "m", "lock1": "m", "run1": 1000, "unlock1": "m"},
	"b": {"delay": 1000, "loop": 1, "lock": "m", "run": 1000, "unlock": "m"}}}`

func TestMutexHandoffWakesWaiterAtUnlock(t *testing.T) {
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	unlock := cs + 5e6 // a's first unlock
	for _, tc := range []struct {
		pi      string
		a, b    []int64
		why     string
		bBlocks int
	}{
		// Without PI the lock is free at unlock; the futex wake takes
		// cost_wakeup_ns, a takes the lock again meanwhile (barging), b
		// retries 3 µs later (its switch-in), blocks again, and is woken
		// at a's second unlock.
		{"false", nil, []int64{unlock + wk, unlock + wk + 1e6 + wk}, "barging", 2},
		// With PI the kernel hands the lock to b at the wake: a's second
		// lock blocks until b unlocks, after its switch-in and 1 ms.
		{"true", []int64{unlock + wk + cs + 1e6 + wk}, []int64{unlock + wk}, "handoff", 1},
	} {
		_, evs := record(t, fmt.Sprintf(handoffLoad, tc.pi), 2, 1e9, p)
		if got := wakings(evs, 1002); !equalTS(got, tc.b) {
			t.Errorf("pi %s (%s): b woken at %v, want %v", tc.pi, tc.why, got, tc.b)
		}
		if got := wakings(evs, 1001); !equalTS(got, tc.a) {
			t.Errorf("pi %s (%s): a woken at %v, want %v", tc.pi, tc.why, got, tc.a)
		}
		blocks := find(evs, func(e *trace.Event) bool {
			return e.Kind == trace.Switch && e.PID == 1002 && e.PrevState == trace.Sleeping
		})
		if len(blocks) != tc.bBlocks || blocks[0].TS != 1e6+cs {
			t.Errorf("pi %s: b blocked %d times (first %+v), want %d, first at %d", tc.pi, len(blocks), blocks, tc.bBlocks, 1e6+cs)
		}
		if n := len(find(evs, func(e *trace.Event) bool { return e.Kind == trace.Exit })); n != 2 {
			t.Errorf("pi %s: %d exits, want 2", tc.pi, n)
		}
	}
}

func TestConditionWaitWakesThenBlocksOnMutex(t *testing.T) {
	// a waits on c (releasing m at 3 µs); b takes m at 1 ms, signals at
	// 2 ms while holding it and unlocks at 3 ms. a is woken by the signal,
	// runs, finds m held and blocks on it, and is woken by the unlock: the
	// wake-then-block of a signal under the mutex.
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	_, evs := record(t, `{"tasks": {
		"a": {"loop": 1, "lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 100},
		"b": {"delay": 1000, "loop": 1, "lock": "m", "run": 1000, "signal": "c", "run1": 1000, "unlock": "m"}}}`, 2, 1e9, p)
	signal := 1e6 + cs + 1e6
	want := []int64{signal + wk, signal + wk + 1e6 + wk}
	if got := wakings(evs, 1001); !equalTS(got, want) {
		t.Fatalf("a woken at %v, want %v (the signal, then the unlock)", got, want)
	}
	blocks := find(evs, func(e *trace.Event) bool {
		return e.Kind == trace.Switch && e.PID == 1001 && e.PrevState == trace.Sleeping
	})
	if len(blocks) != 2 || blocks[0].TS != cs || blocks[1].TS != signal+wk+cs {
		t.Fatalf("a should block at %d (wait) and %d (the mutex): %+v", cs, signal+wk+cs, blocks)
	}
}

func TestBroadcastAndLostSignal(t *testing.T) {
	// A signal with nobody waiting is lost; a broadcast wakes both waiters
	// at once, after one futex call.
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	_, evs := record(t, `{"tasks": {
		"w": {"instance": 2, "loop": 1, "delay": 1000, "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"},
		"s": {"loop": 1, "signal": "c", "run": 3000, "broad": "c", "run1": 100}}}`, 3, 1e9, p)
	want := []int64{cs + 3e6 + wk}
	for _, pid := range []int32{1001, 1002} {
		if got := wakings(evs, pid); !equalTS(got, want) {
			t.Errorf("waiter %d woken at %v, want %v", pid, got, want)
		}
	}
}

func TestBarrierReleasesAllAtLastArrival(t *testing.T) {
	// Three tasks on three CPUs reach the barrier after 1, 3 and 2 ms: the
	// last (b, at 3 ms) wakes the other two after one futex call, and goes
	// on without sleeping.
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	_, evs := record(t, `{"tasks": {
		"a": {"loop": 2, "run": 1000, "barrier": "B"},
		"b": {"loop": 2, "run": 3000, "barrier": "B"},
		"c": {"loop": 2, "run": 2000, "barrier": "B"}}}`, 3, 1e9, p)
	first := cs + 3e6 + wk
	// Round two: a and c are switched in at first, b ran on; b arrives
	// last again, 3 ms after its first arrival plus the wake's cost.
	second := first + 3e6 + wk
	for _, pid := range []int32{1001, 1003} {
		if got := wakings(evs, pid); !equalTS(got, []int64{first, second}) {
			t.Errorf("task %d woken at %v, want %v", pid, got, []int64{first, second})
		}
	}
	if got := wakings(evs, 1002); len(got) != 0 {
		t.Errorf("the last arrival was woken at %v: it should not wait", got)
	}
}

func TestLockConvoyLatency(t *testing.T) {
	// A convoy on a PI mutex: a holds m for 5 ms; b asks for it at 1 ms
	// and c at 2 ms, each to hold it 1 ms. Each unlock hands m to the next
	// waiter, so c's wait is the chain: the rest of a's hold, b's wake,
	// switch-in and hold, and c's own wake: 4 ms + 2 wakes + 1 switch
	// after it blocked, though its own critical section is 1 ms.
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	_, evs := record(t, `{"global": {"pi_enabled": true}, "tasks": {
		"a": {"loop": 1, "lock": "m", "run": 5000, "unlock": "m"},
		"b": {"delay": 1000, "loop": 1, "lock": "m", "run": 1000, "unlock": "m"},
		"c": {"delay": 2000, "loop": 1, "lock": "m", "run": 1000, "unlock": "m"}}}`, 2, 1e9, p)
	bWake := cs + 5e6 + wk
	cWake := bWake + cs + 1e6 + wk
	if got := wakings(evs, 1002); !equalTS(got, []int64{bWake}) {
		t.Errorf("b woken at %v, want [%d] (a's unlock)", got, bWake)
	}
	if got := wakings(evs, 1003); !equalTS(got, []int64{cWake}) {
		t.Errorf("c woken at %v, want [%d] (b's unlock)", got, cWake)
	}
	cBlock := int64(2e6 + cs)
	if wait := cWake - cBlock; wait != 4e6+2*wk+cs {
		t.Errorf("c waited %d ns, want %d", wait, 4e6+2*wk+cs)
	}
}

func TestSemaphore(t *testing.T) {
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	_, evs := record(t, `{"tasks": {
		"a": {"loop": 1, "sem_wait": "s", "run": 100, "sem_wait1": "s", "run1": 100},
		"b": {"delay": 1000, "loop": 1, "run": 1000, "sem_post": "s", "sem_post1": "s", "run1": 5000}}}`, 2, 1e9, p)
	// The first post wakes a (the unit is handed over); the second finds
	// no waiter and counts, so a's second sem_wait does not block.
	if got, want := wakings(evs, 1001), []int64{1e6 + cs + 1e6 + wk}; !equalTS(got, want) {
		t.Fatalf("a woken at %v, want %v", got, want)
	}
}

func TestMemAndIORunCost(t *testing.T) {
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	// mem: 10⁶ bytes at 10 GB/s = 100 µs of CPU; memrun read: 2·10⁵ bytes
	// at 2 GB/s = 100 µs; a chase of 1000 hops at 100 ns = 100 µs; iorun
	// to a device: 10⁵ bytes at 100 MB/s = 1 ms asleep, then the wakeup.
	_, evs := record(t, `{"global": {"io_device": "/dev/sdz"}, "tasks": {"a": {"loop": 1, "mem": 1000000,
		"memrun": {"type": "read", "size": 4096, "count": 200000}, "memrun1": {"type": "chase", "count": 1000},
		"iorun": 100000, "run": 10}}}`, 1, 1e9, p)
	io := cs + 300e3
	if got, want := wakings(evs, 1001), []int64{io + 1e6 + wk}; !equalTS(got, want) {
		t.Fatalf("woken at %v, want %v", got, want)
	}
	// To /dev/null (the default) iorun is a write() per mem_buffer_size
	// bytes, 1 µs of CPU each, and never sleeps: 3 writes of 1 MiB.
	e, evs := record(t, `{"global": {"mem_buffer_size": 1048576}, "tasks": {"a": {"loop": 1, "iorun": 3000000}}}`, 1, 1e9, p)
	if n := len(wakings(evs, 1001)); n != 0 {
		t.Fatalf("iorun to /dev/null slept %d times", n)
	}
	if got, want := e.TaskRuntime()[1001], cs+3000+p.CostExit; got != want {
		t.Fatalf("runtime %d ns, want %d", got, want)
	}
}

func TestSuspendOnRendezvous(t *testing.T) {
	// rt-app 1.0's examples suspend on a name that is no thread's, and
	// resume that name: every task suspended on it wakes.
	p := sim.DefaultParams()
	cs, wk := p.CostContextSwitch, p.CostWakeup
	_, evs := record(t, `{"tasks": {
		"a": {"instance": 2, "loop": 1, "suspend": "Display", "run": 100},
		"b": {"delay": 1000, "loop": 1, "run": 1000, "resume": "Display"}}}`, 3, 1e9, p)
	want := []int64{1e6 + cs + 1e6 + wk}
	for _, pid := range []int32{1001, 1002} {
		if got := wakings(evs, pid); !equalTS(got, want) {
			t.Errorf("task %d woken at %v, want %v", pid, got, want)
		}
	}
}

func TestSyncDeterministic(t *testing.T) {
	js := `{"global": {"pi_enabled": false}, "tasks": {
		"t": {"instance": 4, "lock": "m", "run": {"dist": "exponential", "mean": 500}, "unlock": "m",
			"barrier": "B", "sleep": {"dist": "uniform", "min": 10, "max": 900}}}}`
	var prev []trace.Event
	for i := 0; i < 2; i++ {
		rec := &trace.Recorder{}
		run(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "eevdf-6.12", 2, nil, nil), Params: sim.DefaultParams(),
			Duration: 200e6, Seed: 42, Sink: rec, Check: true})
		if i == 1 {
			if len(rec.Events) != len(prev) {
				t.Fatalf("%d events, then %d", len(prev), len(rec.Events))
			}
			for j := range prev {
				if prev[j] != rec.Events[j] {
					t.Fatalf("event %d differs: %+v vs %+v", j, prev[j], rec.Events[j])
				}
			}
		}
		prev = rec.Events
	}
}

func TestPhaseTaskGroup(t *testing.T) {
	// One CPU: r at the root, h in /a, and m. Placed in /a for good, m
	// shares /a's half with h: a quarter of the CPU. Moved to /b by its
	// phase (rt-app attaches it when the phase begins), it is one of
	// three equal entities at the root: a third.
	js := `{"tasks": {"r": {"run": 1000}, "h": {"taskgroup": "/a", "run": 1000},
		"m": {"taskgroup": "/a", "phases": {"p": {%s "run": 1000}}}}}`
	// (2.6.24 groups by uid by default, FAIR_USER_SCHED, and ignores taskgroup.)
	for _, pol := range []string{"cfs-2.6.35", "cfs-2.6.36", "eevdf-6.12", "eevdf-6.18"} {
		share := func(phase string) float64 {
			e := run(t, sim.Config{Spec: spec(t, fmt.Sprintf(js, phase)), Sched: schedConfig(t, pol, 1, nil, nil),
				Params: sim.DefaultParams(), Duration: 2e9, Seed: 1, Check: true})
			return float64(e.TaskRuntime()[1003]) / 2e9
		}
		if s := share(``); s < 0.23 || s > 0.27 {
			t.Errorf("%s: m in /a has %.3f of the CPU, want 1/4", pol, s)
		}
		if s := share(`"taskgroup": "/b",`); s < 0.31 || s > 0.35 {
			t.Errorf("%s: m moved to /b has %.3f of the CPU, want 1/3", pol, s)
		}
	}
}

func TestPhaseCPUs(t *testing.T) {
	// rt-app's tutorial example8: a task on CPU 2 whose phases pin it to
	// CPU 0, then 1, then (no cpus: the task's) 2, 1.5 ms each. Each phase
	// begins after the previous one's run and moves the task at once, as
	// the migration stopper does; each move costs a switch-in on the new
	// CPU (3 µs).
	p := sim.DefaultParams()
	cs := p.CostContextSwitch
	_, evs := record(t, `{"tasks": {"thread0": {"cpus": [2], "loop": 1, "phases": {
		"phase1": {"cpus": [0], "run": 1500}, "phase2": {"cpus": [1], "run": 1500}, "phase3": {"run": 1500}}}}}`, 3, 1e9, p)
	moves := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Migrate })
	want := []struct {
		ts       int64
		from, to int32
	}{{cs, 2, 0}, {2*cs + 1.5e6, 0, 1}, {3*cs + 3e6, 1, 2}}
	if len(moves) != len(want) {
		t.Fatalf("%d migrations, want %d: %+v", len(moves), len(want), moves)
	}
	for i, w := range want {
		if m := moves[i]; m.TS != w.ts || m.OrigCPU != w.from || m.DestCPU != w.to {
			t.Errorf("move %d: %d ns %d→%d, want %d ns %d→%d", i, m.TS, m.OrigCPU, m.DestCPU, w.ts, w.from, w.to)
		}
	}
}
