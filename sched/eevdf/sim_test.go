package eevdf

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"schedlab/internal/simtest"
	"schedlab/sched"
	"schedlab/sim"
	"schedlab/trace"
)

var profiles = []string{"eevdf-6.6", "eevdf-6.12", "eevdf-6.18"}

// The shared helpers, under the names these tests use.
var (
	spec   = simtest.Spec
	config = simtest.Config
	runSim = simtest.Run
)

// mixed has a nice mix of hogs, sleepers with short and long sleeps,
// forks (SIGEV_THREAD), a yielder, a task that renices itself, custom
// slices, and two groups with different shares.
const mixed = `{"global": {"taskgroups": {"/a": {"shares": 2048}, "/b/c": {"shares": 512}}},
	"tasks": {
	"hog": {"instance": 2, "run": 100000},
	"nice": {"priority": 5, "run": 100000},
	"heavy": {"priority": -3, "run": {"dist": "lognormal", "median": 3000, "sigma": 1}, "sleep": {"dist": "exponential", "mean": 2000}},
	"s": {"instance": 3, "run": {"dist": "lognormal", "median": 500, "sigma": 1}, "sleep": {"dist": "exponential", "mean": 700}},
	"short": {"dl-runtime": 300, "run": 200, "sleep": 3000},
	"long": {"dl-runtime": 20000, "priority": 10, "run": {"dist": "uniform", "min": 100, "max": 9000}, "sleep": 500},
	"y": {"run": 300, "yield": 0},
	"renice": {"phases": {"p0": {"priority": 0, "run": 4000, "sleep": 100}, "p1": {"priority": 7, "run": 4000, "sleep": 100}, "p2": {"priority": -2, "run": 2000}}},
	"ga": {"instance": 2, "taskgroup": "/a", "run": {"dist": "uniform", "min": 100, "max": 5000}, "sleep": {"dist": "exponential", "mean": 1000}},
	"gc": {"instance": 2, "taskgroup": "/b/c", "priority": 3, "run": 100000},
	"gb": {"taskgroup": "/b", "run": 2000, "sleep": 1500},
	"helper": {"timer": {"ref": "t", "period": 7000, "notify": "thread"}, "run": 30, "fork": "cb"},
	"cb": {"instance": 0, "loop": 1, "run": {"dist": "uniform", "min": 10, "max": 500}}}}`

// TestMixedWorkloadKeepsInvariants runs the mixed workload with --check on
// every profile, on one CPU and on two (migrations, split group shares),
// with and without HRTICK: the Checker holds every queue to zero-sum lag
// and every lag to its bound after every event. With NO_PLACE_LAG (joins
// at zero lag, the paper's setting) the lags stay within the paper's
// r_max + q itself.
func TestMixedWorkloadKeepsInvariants(t *testing.T) {
	for _, p := range profiles {
		for _, ncpu := range []int{1, 2} {
			for _, hrtick := range []bool{false, true} {
				for _, placeLag := range []bool{true, false} {
					cfg := config(t, p, ncpu, map[string]bool{HRTick: hrtick, PlaceLag: placeLag}, nil)
					e := runSim(t, sim.Config{Spec: spec(t, mixed), Sched: cfg, Duration: 3e9, Seed: 3, Check: true})
					ns, ratio := e.Class().(*EEVDF).MaxLag()
					t.Logf("%s ncpu=%d HRTICK=%v PLACE_LAG=%v: %d events, max |lag| %.0f µs = %.2f of r_max + q",
						p, ncpu, hrtick, placeLag, e.Events(), ns/1e3, ratio)
					if ratio == 0 || !placeLag && ratio >= 1 {
						t.Errorf("%s ncpu=%d HRTICK=%v PLACE_LAG=%v: max lag %.2f of the paper's bound", p, ncpu, hrtick, placeLag, ratio)
					}
				}
			}
		}
	}
}

func shares(e *sim.Engine) map[int]float64 {
	out := map[int]float64{}
	for pid, ns := range e.TaskRuntime() {
		out[pid] = float64(ns) / float64(e.Now())
	}
	return out
}

// CPU time follows the weights: nice 0 against nice 5 is 1024:335, and a
// group of shares 2048 with one hog against a group of 1024 with three is
// 2:1, within 1 % over 10 s.
func TestSharesFollowWeights(t *testing.T) {
	for _, p := range profiles {
		e := runSim(t, sim.Config{Spec: spec(t, `{"tasks": {"n0": {"run": 100000}, "n5": {"priority": 5, "run": 100000}}}`),
			Sched: config(t, p, 1, nil, nil), Duration: 10e9, Check: true})
		s := shares(e)
		want := 1024.0 / (1024 + 335)
		if got := s[1001]; math.Abs(got-want)/want > 0.01 {
			t.Errorf("%s: nice-0 share %.4f, want %.4f within 1%%", p, got, want)
		} else {
			t.Logf("%s: nice 0 vs 5: %.4f (want %.4f, error %.3f%%)", p, got, want, 100*(got-want)/want)
		}
		e = runSim(t, sim.Config{Spec: spec(t, `{"global": {"taskgroups": {"/a": {"shares": 2048}}},
			"tasks": {"a": {"taskgroup": "/a", "run": 100000}, "b": {"instance": 3, "taskgroup": "/b", "run": 100000}}}`),
			Sched: config(t, p, 1, nil, nil), Duration: 10e9, Check: true})
		if got := shares(e)[1001]; math.Abs(got-2.0/3)/(2.0/3) > 0.01 {
			t.Errorf("%s: group /a got %.4f, want 2/3 within 1%%", p, got)
		} else {
			t.Logf("%s: groups 2048 vs 1024: %.4f (want 0.6667, error %.3f%%)", p, got, 100*(got-2.0/3)/(2.0/3))
		}
	}
}

// Equal hogs with tick-only preemption: each tick ends the running request
// (1.4 ms < 4 ms), so two of them alternate every tick and the lag reaches
// q(N−1)/N = 2 ms; with HRTICK the request ends on time and the lag stays
// below r(N−1)/N = 0.7 ms (the EEVDF paper's steady-state bound).
func TestSteadyStateLagBound(t *testing.T) {
	for _, c := range []struct {
		hrtick bool
		n      int
		lo, hi float64 // µs
	}{
		{false, 2, 1900, 2000},
		{false, 4, 2900, 3000},
		{true, 2, 600, 710},
	} {
		cfg := config(t, "eevdf-6.18", 2, map[string]bool{HRTick: c.hrtick}, nil)
		js := fmt.Sprintf(`{"tasks": {"hog": {"instance": %d, "cpus": [0], "run": 100000}}}`, c.n)
		// The hogs start on a jiffy boundary (from another phase the
		// first stint is shorter and the lag smaller), and a
		// preemption takes no time.
		p := sim.DefaultParams()
		p.CostContextSwitch, p.CostResched, p.TickPhase = 0, 0, 0
		e := runSim(t, sim.Config{Spec: spec(t, js), Sched: cfg, Params: p, Duration: 2e9, Check: true})
		ns, _ := e.Class().(*EEVDF).MaxLag()
		t.Logf("hrtick=%v N=%d: max |lag| %.1f µs", c.hrtick, c.n, ns/1e3)
		if us := ns / 1e3; us < c.lo || us > c.hi {
			t.Errorf("hrtick=%v N=%d: max |lag| %.1f µs, want [%g, %g]", c.hrtick, c.n, us, c.lo, c.hi)
		}
	}
}

// preemptions counts the wakeups of pid and those after which it ran at
// once: as soon as the running task got back to user space
// (cost_resched_ns).
func preemptions(t *testing.T, cfg *sched.Config, js string, pid int32) (preempted, wakes int) {
	rec := &trace.Recorder{}
	runSim(t, sim.Config{Spec: spec(t, js), Sched: cfg, Duration: 2e9, Sink: rec, Check: true})
	for i, ev := range rec.Events {
		if ev.Kind != trace.Wakeup || ev.PID != pid {
			continue
		}
		wakes++
		if i+1 == len(rec.Events) {
			break
		}
		if n := rec.Events[i+1]; n.Kind == trace.Switch && n.NextPID == pid && n.TS == ev.TS+sim.DefaultParams().CostResched {
			preempted++
		}
	}
	return preempted, wakes
}

// With the engine: a woken task with a shorter custom slice (0.2 ms) than
// the running hog's (3 ms) preempts it, unless the hog's request ends even
// sooner; one with a longer slice (5 ms) never does (6.12+; 6.6 ignores
// custom slices). PLACE_LAG is off so that the wakee joins at zero lag
// every time: with it, a wakee that slept while owed service makes a lone
// curr ineligible and wins whatever its slice.
func TestShortSliceWakeePreempts(t *testing.T) {
	const js = `{"tasks": {"hog": {"dl-runtime": 3000, "run": 100000}, "w": {"dl-runtime": %d, "run": 100, "sleep": 1700}}}`
	for _, p := range profiles {
		cfg := config(t, p, 1, map[string]bool{PlaceLag: false}, nil)
		shortP, n := preemptions(t, cfg, fmt.Sprintf(js, 200), 1002)
		longP, m := preemptions(t, cfg, fmt.Sprintf(js, 5000), 1002)
		t.Logf("%s: 0.2 ms slice preempted %d/%d wakeups, 5 ms slice %d/%d", p, shortP, n, longP, m)
		if n < 400 || m < 400 {
			t.Fatalf("%s: too few wakeups (%d, %d)", p, n, m)
		}
		if p == "eevdf-6.6" {
			if shortP != longP {
				t.Errorf("6.6 ignores custom slices, but the outcomes differ: %d vs %d", shortP, longP)
			}
			continue
		}
		if shortP < n*9/10 {
			t.Errorf("%s: a shorter-slice wakee preempted only %d of %d times", p, shortP, n)
		}
		if longP != 0 {
			t.Errorf("%s: a longer-slice wakee preempted %d of %d times", p, longP, m)
		}
	}
}

// PREEMPT_SHORT exactly: a hog with a 3 ms custom slice runs 0.2 ms into
// its (protected) request; a wakee at zero lag with a 0.2 ms slice has the
// earlier deadline and preempts only through PREEMPT_SHORT; a 5 ms wakee
// never does.
func TestPreemptShort(t *testing.T) {
	for _, p := range []string{"eevdf-6.12", "eevdf-6.18"} {
		for _, c := range []struct {
			short bool
			slice int64
			want  bool
		}{{true, 200000, true}, {false, 200000, false}, {true, 5000000, false}, {false, 5000000, false}} {
			cl := newClass(t, p, map[string]bool{PreemptShort: c.short}, nil)
			rq := &fakeRQ{}
			hog := &sched.Task{PID: 1, Slice: 3000000}
			cl.TaskNew(hog, nil)
			cl.Fork(rq, rq, nil, hog)
			cl.Enqueue(rq, hog, 0)
			schedule(cl, rq)
			run(cl, rq, hog, 200000)
			w := &sched.Task{PID: 2, Slice: c.slice}
			cl.TaskNew(w, nil)
			cl.Fork(rq, rq, nil, w)
			taskSE(w).initial = false
			cl.Enqueue(rq, w, sched.EnqueueWakeup)
			cl.CheckPreempt(rq, w, 0)
			if rq.resched != c.want {
				t.Errorf("%s PREEMPT_SHORT=%v, wakee slice %d: preempted %v, want %v", p, c.short, c.slice, rq.resched, c.want)
			}
		}
	}
}

// A task forked onto a busy queue starts at zero lag: placed at V.
func TestNewTaskStartsWithZeroLag(t *testing.T) {
	for _, p := range profiles {
		c := newClass(t, p, nil, nil)
		rq := &fakeRQ{}
		ts := queueN(c, rq, 3, 0)
		run(c, rq, ts[0], 2500000) // curr runs 2.5 ms: lags are now non-zero
		child := newTask(c, 0)
		c.Fork(rq, rq, rq.curr, child)
		c.Enqueue(rq, child, 0)
		if ns, vl := Lag(child); vl != 0 || ns != 0 {
			t.Errorf("%s: new task's lag %v ns (virtual %d), want 0", p, ns, vl)
		}
		if l, _ := Lag(ts[1]); l == 0 {
			t.Errorf("%s: the waiting tasks should have non-zero lag", p)
		}
	}
}

func traceOf(t *testing.T, policy string, seed uint64) string {
	rec := &trace.Recorder{}
	runSim(t, sim.Config{Spec: spec(t, mixed), Sched: config(t, policy, 2, nil, nil), Duration: 5e8, Seed: seed, Sink: rec, Check: true})
	var b strings.Builder
	for _, ev := range rec.Events {
		fmt.Fprintf(&b, "%+v\n", ev)
	}
	return b.String()
}

func TestDeterministic(t *testing.T) {
	for _, p := range profiles {
		a, b, c := traceOf(t, p, 7), traceOf(t, p, 7), traceOf(t, p, 8)
		if a != b {
			t.Errorf("%s: same seed, different event streams", p)
		}
		if a == c {
			t.Errorf("%s: different seeds, same event stream", p)
		}
	}
}

func simNew(t testing.TB, cfg *sched.Config, js string) (*sim.Engine, error) {
	return sim.New(sim.Config{Spec: spec(t, js), Sched: cfg, Params: sim.DefaultParams(), Duration: 1e9, Check: true})
}

// skipProbe records the running task's runtime when a wakeup marks it for
// preemption, and compares it after the pick that follows.
type skipProbe struct {
	*EEVDF
	marked  *entity
	sum0    int64
	charges []int64
}

func (p *skipProbe) CheckPreempt(rq sched.RQ, w *sched.Task, wf int) {
	before := rq.NeedResched()
	p.EEVDF.CheckPreempt(rq, w, wf)
	if curr := rq.Curr(); curr != nil && !before && rq.NeedResched() {
		p.marked, p.sum0 = taskSE(curr), taskSE(curr).sumExec
	}
}

func (p *skipProbe) PickNext(rq sched.RQ) *sched.Task {
	t := p.EEVDF.PickNext(rq)
	if p.marked != nil {
		p.charges = append(p.charges, p.marked.sumExec-p.sum0)
		p.marked = nil
	}
	return t
}

// 6.6 on, a wakeup that leaves the running task marked requests a clock
// skip (wakeup_preempt's rq_clock_skip_update): schedule() keeps the
// wakeup's clock, so the preempted task is charged nothing for its way
// from the wakeup to schedule() (cost_resched_ns), unlike 2.6.35's.
func TestPreemptedTaskKeepsWakeupClock(t *testing.T) {
	for _, c := range []struct {
		policy  string
		charged bool
	}{{"eevdf-6.18", false}, {"eevdf-7.2", true}} {
		charges := preemptedCharges(t, c.policy)
		if len(charges) < 40 {
			t.Fatalf("%s: only %d preemptions", c.policy, len(charges))
		}
		for i, ch := range charges {
			// 7.2's mark is the lazy bit, which wakeup_preempt's
			// test_tsk_need_resched does not see: no skip, and the
			// preempted task pays for the way to schedule().
			if (ch != 0) != c.charged {
				t.Fatalf("%s: preemption %d: the preempted task was charged %d ns after the wakeup that marked it, want charged=%v", c.policy, i, ch, c.charged)
			}
		}
	}
}

func preemptedCharges(t *testing.T, policy string) []int64 {
	prof := *config(t, policy, 1, nil, nil).Profile
	real := prof.New
	var probe *skipProbe
	prof.New = func(cfg *sched.Config) (sched.Class, error) {
		cl, err := real(cfg)
		probe = &skipProbe{EEVDF: cl.(*EEVDF)}
		return probe, err
	}
	cfg, _ := prof.NewConfig(1, nil, nil)
	runSim(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"run": 100000}, "w": {"run": 500, "sleep": 20000}}}`),
		Sched: cfg, Duration: 1e9, Check: true})
	return probe.charges
}

// tickWaits runs a busy loop beside a thread that wakes every 8 ms (two
// jiffies at HZ=250) for 1 ms of CPU, its expiries off ns after a tick,
// and returns how long each wakeup after the first 100 ms waited for the
// CPU.
func tickWaits(t *testing.T, profile string, off int64) []int64 {
	t.Helper()
	// periodic comes first, so it runs first, at 0, where its timer grid
	// starts.
	const js = `{"tasks": {"periodic": {"run": 1000, "timer": {"ref": "t", "period": 8000}}, "hog": {"run": 100000}}}`
	p := sim.DefaultParams()
	p.HZ, p.CostContextSwitch, p.CostResched, p.TickPhase = 250, 0, 0, off
	rec := &trace.Recorder{}
	runSim(t, sim.Config{Spec: spec(t, js), Sched: config(t, profile, 1, nil, nil), Params: p, Duration: 2e9, Sink: rec, Check: true})
	var waits []int64
	var woke int64 = -1
	for _, ev := range rec.Events {
		switch {
		case ev.Kind == trace.Wakeup && ev.PID == 1001:
			woke = ev.TS
		case ev.Kind == trace.Switch && ev.NextPID == 1001 && woke >= 0:
			if woke > 100e6 {
				waits = append(waits, ev.TS-woke)
			}
			woke = -1
		}
	}
	return waits
}

// Debian's 6.12.95 makes a thread woken just after a tick wait for the
// next one behind a busy loop whenever it comes back owed nothing
// (FIDELITY.md: sleeper-vs-hog's p90 of 3977 µs). Two rules together:
//
//   - update_deadline runs only from update_curr: without HRTICK the
//     hog's 0.7 ms request is renewed at the tick, from its vruntime then,
//     and the tick's reschedule re-picks it.
//   - a sleeper that left owing service stays queued as delayed
//     (DELAY_DEQUEUE) until a pick finds it eligible, and leaves with its
//     positive lag dropped (finish_delayed_dequeue_entity, DELAY_ZERO);
//     place_entity then puts it at V, the hog's vruntime, which has moved
//     on since the tick, with a full request: its deadline is the hog's
//     plus the time since the tick, and check_preempt_wakeup_fair's
//     pick_eevdf keeps the hog.
//
// Hand-computed, with equal weights (lag L at a wakeup at tick + 102 µs,
// the timer's 2 µs wakeup path included): the wakee's deadline is before
// the hog's when 2L > 102 µs. A wakeup at L = 0 waits for the next tick,
// 4 ms − 102 µs, queued while the hog runs: L grows by half of that,
// 1.949 ms. The 1 ms run takes 0.5 ms of lag, so it sleeps at 1.449 ms,
// wakes and runs at once at 1.449, 0.949 and 0.449 ms, then sleeps at
// −0.051 ms, delayed; the hog's 2.9 ms to the next tick make it eligible,
// the tick's pick drops it with its lag zeroed, and the cycle restarts:
// one wakeup in four waits 3.898 ms, the others none.
//
// Woken 2.1 ms after a tick, the hog's request is over (1.4 ms past it):
// update_curr renews it from now, and a wakee at V has the same deadline
// and is first in the tree: every wakeup runs at once.
func TestWakeeWaitsForTheTick612(t *testing.T) {
	wait := int64(4e6 - 100000 - sim.DefaultParams().CostWakeup - sim.DefaultParams().TimerIRQ)
	waits := tickWaits(t, "eevdf-6.12", 100000)
	if len(waits) < 200 {
		t.Fatalf("%d wakeups, want over 200", len(waits))
	}
	n := 0
	for i, w := range waits {
		switch {
		case w == wait:
			n++
			if i >= 4 && waits[i-4] != wait {
				t.Errorf("woken 100 µs after a tick: wakeup %d waited for the tick, but not wakeup %d four before it", i, i-4)
			}
		case w != 0:
			t.Errorf("woken 100 µs after a tick: wakeup %d waited %d ns, want 0 or %d", i, w, wait)
		}
	}
	t.Logf("woken 100 µs after a tick: %d of %d wakeups waited %d ns", n, len(waits), wait)
	if d := n*4 - len(waits); d < -4 || d > 4 {
		t.Errorf("woken 100 µs after a tick: %d of %d wakeups waited for the tick, want one in four", n, len(waits))
	}
	for i, w := range tickWaits(t, "eevdf-6.12", 2100000) {
		if w != 0 {
			t.Errorf("woken 2.1 ms after a tick: wakeup %d waited %d ns, want 0 (the hog's request is over)", i, w)
			break
		}
	}
}

// A run without checks keeps no lag account (SkipChecks), and that
// changes nothing it does: the same load, with its joins, leaves,
// reweights (nice, groups) and yields, traces the same events checked
// and unchecked.
func TestSkipChecksChangesNothing(t *testing.T) {
	for _, p := range profiles {
		var got [2][]trace.Event
		for i, check := range []bool{true, false} {
			rec := &trace.Recorder{}
			runSim(t, sim.Config{Spec: spec(t, mixed), Sched: config(t, p, 2, nil, nil), Duration: 1e9, Sink: rec, Check: check})
			got[i] = rec.Events
		}
		if len(got[0]) == 0 || fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
			t.Errorf("%s: %d events checked, %d unchecked, or they differ", p, len(got[0]), len(got[1]))
		}
	}
}
