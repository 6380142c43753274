package sim_test

import (
	"crypto/sha256"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"schedlab/sim"
	"schedlab/trace"
)

// noiseTrace runs randomWorkload (SMP: a remote wakeup's IPI too) with p
// and returns its event stream as text.
func noiseTrace(t *testing.T, p sim.Params, ncpu int, seed uint64) string {
	t.Helper()
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, randomWorkload), Sched: schedConfig(t, "cfs-2.6.35", ncpu, nil, nil),
		Params: p, Duration: 2e8, Seed: seed, Sink: rec, Check: true})
	var b strings.Builder
	for _, ev := range rec.Events {
		// A field added to trace.Event since the goldens (Period, which
		// the simulator never sets) is left out, so they stay the stream's.
		fmt.Fprintf(&b, "%s\n", strings.Replace(fmt.Sprintf("%+v", ev), " Period:0}", "}", 1))
	}
	return b.String()
}

func noisy() sim.Params {
	p := sim.DefaultParams()
	p.IdleResched, p.CostIPI, p.CostBlock = 1500, 700, 900
	p.NoiseTimer, p.NoiseResched, p.NoiseSwitch = 300, 500, 200
	return p
}

// The noise is seeded by the run's seed: the same seed, the same bytes.
func TestNoiseDeterministic(t *testing.T) {
	for _, ncpu := range []int{1, 2} {
		a, b := noiseTrace(t, noisy(), ncpu, 7), noiseTrace(t, noisy(), ncpu, 7)
		if a != b {
			t.Fatalf("%d CPU(s): same seed, different event streams with noise on", ncpu)
		}
		if a == noiseTrace(t, noisy(), ncpu, 8) {
			t.Fatalf("%d CPU(s): different seeds, identical streams", ncpu)
		}
		if a == noiseTrace(t, sim.DefaultParams(), ncpu, 7) {
			t.Fatalf("%d CPU(s): noise on and off give the same stream", ncpu)
		}
	}
}

// noiseOffGolden is the sha256 of noiseTrace(DefaultParams, ncpu, 7) for 1
// and 2 CPUs. The noise model left the engine's stream byte-identical to
// the engine before it (2777a3d); these are the streams since initial
// tasks due at one moment start together, and since a thread's timer grid
// starts at its first step (not its creation): with every noise mean and
// the new costs at 0, nothing may move.
var noiseOffGolden = map[int]string{
	1: "23e940034759c30f1e478a607721c41a007a08a3fa9469f276bb669533d3624b",
	2: "5fc25f950cb2700dcc799d85d34f286eefb54323fdd68bdcab9a26b0e2482f35",
}

func TestNoiseOffUnchanged(t *testing.T) {
	for ncpu, want := range noiseOffGolden {
		got := fmt.Sprintf("%x", sha256.Sum256([]byte(noiseTrace(t, sim.DefaultParams(), ncpu, 7))))
		if got != want {
			t.Errorf("%d CPU(s): the noise-free event stream moved: sha256 %s, want %s", ncpu, got, want)
		}
	}
}

// wakeDelays runs a periodic sleeper beside an optional hog on one CPU and
// returns each of the sleeper's sched_waking → sched_switch delays and
// each timer expiry → sched_waking delay (ns).
func wakeDelays(t *testing.T, p sim.Params, hog bool, dur int64) (wake, deliver []int64) {
	t.Helper()
	js := `{"tasks": {"sleeper": {"run": 50, "timer": {"ref": "t", "period": 1000, "mode": "absolute"}}`
	if hog {
		js += `, "hog": {"run": 100000}`
	}
	js += `}}`
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "eevdf-6.18", 1, nil, nil), Params: p, Duration: dur, Seed: 3, Sink: rec, Check: true})
	var pid int32
	var waking, expiry int64 = -1, -1
	for _, ev := range rec.Events {
		switch {
		case ev.Kind == trace.Mark && ev.Mark == trace.TimerExpiry:
			expiry = ev.TS
		case ev.Kind == trace.Waking:
			pid, waking = ev.PID, ev.TS
			if expiry >= 0 {
				deliver = append(deliver, ev.TS-expiry)
				expiry = -1
			}
		case ev.Kind == trace.Switch && waking >= 0 && ev.NextPID == pid:
			wake = append(wake, ev.TS-waking)
			waking = -1
		}
	}
	if len(wake) < 100 {
		t.Fatalf("only %d wakeups", len(wake))
	}
	return wake, deliver
}

// Without noise a wakeup on an idle CPU takes exactly 0 ns; with it, none
// does, on an idle or a busy CPU.
func TestNoiseNoZeroWakeup(t *testing.T) {
	off, _ := wakeDelays(t, sim.DefaultParams(), false, 2e8)
	if off[0] != 0 {
		t.Fatalf("noise off, idle CPU: a wakeup takes %d ns, the premise (0) is gone", off[0])
	}
	p := sim.DefaultParams()
	p.NoiseResched = 500
	for _, hog := range []bool{false, true} {
		ws, _ := wakeDelays(t, p, hog, 2e8)
		for _, w := range ws {
			if w <= 0 {
				t.Fatalf("noise on (hog %v): a wakeup of %d ns", hog, w)
			}
		}
	}
	p = sim.DefaultParams()
	p.IdleResched = 4000
	if ws, _ := wakeDelays(t, p, false, 2e8); ws[0] != 4000 {
		t.Errorf("cost_idle_resched_ns 4000: an idle CPU's wakeup takes %d ns", ws[0])
	}
}

// A long run reproduces the noise model's own law: the extra delays are
// exponential with the configured mean (mean, and median = mean·ln 2).
func TestNoiseDistribution(t *testing.T) {
	p := sim.DefaultParams()
	p.IdleResched, p.NoiseResched, p.NoiseTimer = 5000, 500, 300
	ws, ds := wakeDelays(t, p, false, 4e9)
	check := func(what string, xs []int64, base, mean float64) {
		t.Helper()
		ex := make([]float64, len(xs))
		sum := 0.0
		for i, x := range xs {
			ex[i] = float64(x) - base
			if ex[i] < 1 {
				t.Fatalf("%s: a delay of %d ns, not above its base %g", what, x, base)
			}
			sum += ex[i]
		}
		sort.Float64s(ex)
		m, med := sum/float64(len(ex)), ex[len(ex)/2]
		// Over ~4000 draws the mean's standard error is mean/63.
		if math.Abs(m-mean) > 0.06*mean {
			t.Errorf("%s: mean extra %.1f ns over %d samples, want %g", what, m, len(ex), mean)
		}
		if want := mean * math.Ln2; math.Abs(med-want) > 0.08*mean {
			t.Errorf("%s: median extra %.1f ns, want %.1f", what, med, want)
		}
	}
	check("sched_waking → sched_switch (idle CPU)", ws, 5000, 500)
	check("timer expiry → sched_waking", ds, float64(p.CostWakeup), 300)
}

// rt-app's main thread creates the initial threads one after another and
// then blocks (debian-6.1's trace: three wake_up_new_task, none
// preempting, then the switch to the last created): the second hog's
// start does not preempt the first, which has not run.
func TestInitialTasksStartTogether(t *testing.T) {
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "run": 100000}}}`),
		Sched: schedConfig(t, "cfs-6.1", 1, nil, nil), Duration: 2e7, Seed: 1, Sink: rec, Check: true})
	var sw []trace.Event
	for _, ev := range rec.Events {
		if ev.Kind == trace.Switch {
			sw = append(sw, ev)
		}
	}
	if len(sw) < 2 || sw[0].PID != 0 || sw[0].NextComm != "hog-1" || sw[1].TS < 1e6 {
		t.Fatalf("first switches %+v, want the idle CPU's to hog-1 (START_DEBIT's smaller vslice), and no switch in the first ms", sw[:min(2, len(sw))])
	}
}

// A task woken by another that then blocks runs when the waker is off
// the CPU: without cost_block_ns and noise at the same ns as its
// sched_waking, with them never.
func TestNoiseNoZeroChainWakeup(t *testing.T) {
	js := `{"tasks": {"a": {"timer": {"ref": "t", "period": 1000}, "run": 50, "resume": "b"},
		"b": {"policy": "SCHED_BATCH", "suspend": "b", "run": 50}}}` // a batch wakee never preempts
	delays := func(p sim.Params) []int64 {
		rec := &trace.Recorder{}
		run(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-6.1", 1, nil, nil), Params: p, Duration: 1e8, Seed: 5, Sink: rec, Check: true})
		var out []int64
		waking := map[int32]int64{}
		for _, ev := range rec.Events {
			switch ev.Kind {
			case trace.Waking:
				if ev.Comm == "b" {
					waking[ev.PID] = ev.TS
				}
			case trace.Switch:
				if w, ok := waking[ev.NextPID]; ok {
					out = append(out, ev.TS-w)
					delete(waking, ev.NextPID)
				}
			}
		}
		if len(out) < 50 {
			t.Fatalf("only %d chain wakeups", len(out))
		}
		return out
	}
	if d := delays(sim.DefaultParams()); d[0] != 0 {
		t.Fatalf("noise off: the chain's wakee waits %d ns, the premise (0) is gone", d[0])
	}
	p := sim.DefaultParams()
	p.NoiseResched = 300
	for _, d := range delays(p) {
		if d <= 0 {
			t.Fatalf("noise on: a chain wakeup of %d ns", d)
		}
	}
	p = sim.DefaultParams()
	p.CostBlock = 7000
	if d := delays(p); d[0] != 7000 {
		t.Errorf("cost_block_ns 7000: the wakee waits %d ns for its waker to block", d[0])
	}
}
