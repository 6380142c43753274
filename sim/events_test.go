package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"schedlab/analyze"
	"schedlab/internal/simtest"
	"schedlab/sched"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// record runs a workload on policy cfs-2.6.35 with checking on and returns
// its events.
func record(t *testing.T, js string, ncpu int, dur int64, p sim.Params) (*sim.Engine, []trace.Event) {
	t.Helper()
	rec := &trace.Recorder{}
	e := run(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-2.6.35", ncpu, nil, nil), Params: p,
		Duration: dur, Sink: rec, Check: true})
	return e, rec.Events
}

func find(evs []trace.Event, f func(*trace.Event) bool) []trace.Event {
	var out []trace.Event
	for i := range evs {
		if f(&evs[i]) {
			out = append(out, evs[i])
		}
	}
	return out
}

func TestSuspendThenResume(t *testing.T) {
	// a (pid 1001) starts and suspends at once; b starts 1 ms later, runs
	// 5 ms and resumes a. The wakeup happens after b's resume system call.
	p := sim.DefaultParams()
	_, evs := record(t, `{"tasks": {
		"a": {"loop": 1, "suspend": "a", "run": 1000},
		"b": {"delay": 1000, "loop": 1, "run": 5000, "resume": "a", "run1": 1000}}}`, 1, 1e9, p)
	wakes := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Waking && e.PID == 1001 })
	if len(wakes) != 1 {
		t.Fatalf("a woken %d times, want once", len(wakes))
	}
	// b: start at 1 ms, switch-in cost, 5 ms, resume cost.
	want := 1e6 + p.CostContextSwitch + 5e6 + p.CostWakeup
	if wakes[0].TS != want {
		t.Fatalf("a woken at %d ns, want %d (b's 5 ms after two switches, plus the resume's cost)", wakes[0].TS, want)
	}
	sleeps := find(evs, func(e *trace.Event) bool {
		return e.Kind == trace.Switch && e.PID == 1001 && e.PrevState == trace.Sleeping
	})
	if len(sleeps) != 1 || sleeps[0].TS != p.CostContextSwitch {
		t.Fatalf("a should block once, at %d ns: %+v", p.CostContextSwitch, sleeps)
	}
	if len(find(evs, func(e *trace.Event) bool { return e.Kind == trace.Exit })) != 2 {
		t.Fatal("both tasks should exit")
	}
}

func TestResumeIsRemembered(t *testing.T) {
	// Two CPUs: b resumes a twice while a is still running its 5 ms. a's
	// first suspend returns at once; the resumes do not add up (a binary
	// semaphore), so its second suspend blocks for good.
	_, evs := record(t, `{"tasks": {
		"a": {"loop": 1, "run": 5000, "suspend": 0, "run1": 1000, "suspend1": 0, "run2": 1000},
		"b": {"loop": 1, "resume": "a", "resume1": "a", "run": 100}}}`, 2, 1e9, sim.DefaultParams())
	sleeps := find(evs, func(e *trace.Event) bool {
		return e.Kind == trace.Switch && e.PID == 1001 && e.PrevState == trace.Sleeping
	})
	if len(sleeps) != 1 {
		t.Fatalf("a blocked %d times, want once (at its second suspend)", len(sleeps))
	}
	// It blocks after its 5 ms and 1 ms runs: the first suspend did not wait.
	if p := sim.DefaultParams(); sleeps[0].TS != p.CostContextSwitch+6e6 {
		t.Fatalf("a blocked at %d ns, want %d", sleeps[0].TS, p.CostContextSwitch+6e6)
	}
	if n := len(find(evs, func(e *trace.Event) bool { return e.Kind == trace.Waking && e.PID == 1001 })); n != 0 {
		t.Fatalf("a was woken %d times; the resumes came before it suspended", n)
	}
	if n := len(find(evs, func(e *trace.Event) bool { return e.Kind == trace.Exit && e.PID == 1001 })); n != 0 {
		t.Fatal("a exited: two resumes were counted as two")
	}
}

func TestResumeFindsThreadByCommThenDefinition(t *testing.T) {
	// "w-1" is the second instance's comm; "w" matches no comm, so it
	// wakes the first live thread of definition w (w-0). r starts once
	// both have suspended.
	_, evs := record(t, `{"tasks": {
		"w": {"instance": 2, "loop": 1, "suspend": 0, "run": 100},
		"r": {"delay": 1000, "loop": 1, "run": 1000, "resume": "w-1", "run1": 1000, "resume1": "w", "run2": 1000}}}`, 1, 1e9, sim.DefaultParams())
	wakes := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Waking })
	if len(wakes) != 2 || wakes[0].Comm != "w-1" || wakes[1].Comm != "w-0" {
		t.Fatalf("want w-1 then w-0 woken, got %+v", wakes)
	}
}

// wakeProbe wraps the CFS class and records how each wakeup reaches the
// class: its source and its waker.
type wakeProbe struct {
	sched.Class
	wakes []string
}

func (p *wakeProbe) Enqueue(rq sched.RQ, t *sched.Task, flags int) {
	if flags&sched.EnqueueWakeup != 0 {
		waker := "-"
		if t.Wake.Waker != nil {
			waker = t.Wake.Waker.Comm
		}
		src := map[sched.WakeSource]string{sched.WakeTask: "task", sched.WakeTimer: "timer",
			sched.WakeInput: "input", sched.WakeFork: "fork"}[t.Wake.Source]
		p.wakes = append(p.wakes, fmt.Sprintf("%s<-%s:%s", t.Comm, waker, src))
	}
	p.Class.Enqueue(rq, t, flags)
}

func probed(t *testing.T) (*sched.Config, *wakeProbe) {
	probe := &wakeProbe{}
	return wrapped(t, probe, func(c sched.Class) { probe.Class = c }), probe
}

// desktop is the input chain of desktop-make-jN without the load.
const desktop = `{"tasks": {
	"Xorg": {"timer": {"ref": "kbd", "period": 33333, "mode": "absolute", "notify": "input"},
	         "run": 1000, "resume": "term", "suspend": "Xorg", "run1": 1000, "latency_end": 0},
	"term": {"suspend": "term", "run": 2000, "resume": "Xorg"}}}`

func TestWakeSourceAndWaker(t *testing.T) {
	cfg, probe := probed(t)
	run(t, sim.Config{Spec: spec(t, `{"tasks": {
		"a": {"loop": 1, "suspend": "a", "run": 1000},
		"b": {"delay": 1000, "loop": 1, "run": 5000, "resume": "a"},
		"x": {"timer": {"ref": "kbd", "period": 33333, "notify": "input"}, "run": 10},
		"nap": {"sleep": 50000, "run": 10}}}`), Sched: cfg, Duration: 70e6, Check: true})
	// b's resume of a at 6 ms, key events at 33.3 and 66.7 ms, the
	// sleeper's hrtimer at 50 ms.
	want := "a<-b:task x<--:input nap<--:timer x<--:input"
	if got := strings.Join(probe.wakes, " "); got != want {
		t.Fatalf("wakeups as the class saw them:\n got %s\nwant %s", got, want)
	}
}

func TestInputTokenGivesInputToDraw(t *testing.T) {
	// On an otherwise idle CPU each key event's sample is X's 1 ms, the
	// terminal's 2 ms and X's 1 ms draw, plus three context switches
	// (idle→X, X→term, term→X), the input wakeup's path, the two
	// resume system calls, and X's way from its resume back to user
	// space, where the terminal it woke preempts it (cost_resched_ns).
	for _, p := range []sim.Params{sim.DefaultParams(), {HZ: 1000, CostContextSwitch: 7000, CostWakeup: 5000, CostFork: 1, CostExit: 1, CostYield: 1}} {
		an := analyze.New()
		rec := &trace.Recorder{}
		e := run(t, sim.Config{Spec: spec(t, desktop),
			Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Params: p, Duration: 1e9, Sink: trace.Tee{an, rec}, Check: true})
		r := an.Finish(e.Now())
		want := int64(4e6) + 3*p.CostContextSwitch + p.CostWakeup + 2*p.CostWakeup + p.CostResched
		s := r.TimerLatency
		if s.Count != 29 || s.Min != want || s.Max != want || r.TimerMissed != 0 || r.TimerUnmatched != 0 {
			t.Fatalf("params %+v: input-to-draw n=%d min %d max %d missed %d unmatched %d, want 29 samples of %d ns",
				p, s.Count, s.Min, s.Max, r.TimerMissed, r.TimerUnmatched, want)
		}
		// The sample ends in X (pid 1001), after the draw, not when X or
		// the terminal first runs.
		for _, m := range find(rec.Events, func(e *trace.Event) bool { return e.Kind == trace.Mark && e.Mark == trace.CallbackStart }) {
			if m.PID != 1001 {
				t.Fatalf("callback mark written by pid %d (%s), want Xorg", m.PID, m.Comm)
			}
		}
	}
}

func TestInputTokenWithoutLatencyEndIsNoSample(t *testing.T) {
	// An input waiter that never ends its sample gives no timer latency:
	// the token is not ended when it runs (unlike a "signal" timer).
	_, evs := record(t, `{"tasks": {"x": {"timer": {"ref": "k", "period": 10000, "notify": "input"}, "run": 100}}}`,
		1, 105e6, sim.DefaultParams()) // 10 expiries: the grid starts at the first step, 3 µs in
	if n := len(find(evs, func(e *trace.Event) bool { return e.Kind == trace.Mark && e.Mark == trace.CallbackStart })); n != 0 {
		t.Fatalf("%d callback marks without latency_end", n)
	}
	if n := len(find(evs, func(e *trace.Event) bool { return e.Kind == trace.Mark && e.Mark == trace.TimerExpiry })); n != 10 {
		t.Fatalf("%d expiries in 100 ms of a 10 ms input source, want 10", n)
	}
}

func TestRandomTimerPeriod(t *testing.T) {
	_, evs := record(t, `{"tasks": {
		"rt": {"timer": {"ref": "unique", "period": {"dist": "uniform", "min": 1000, "max": 3000}}, "run": 10},
		"px": {"timer": {"ref": "p", "period": {"dist": "uniform", "min": 5000, "max": 6000}, "notify": "signal"}, "run": 10}}}`,
		1, 1e9, sim.DefaultParams())
	// An expiry mark names the running task, not the timer's owner: the
	// timers are told apart by their ids (in order of first use).
	ids := map[int32]bool{}
	for _, e := range evs {
		if e.Kind == trace.Mark && e.Mark == trace.TimerExpiry {
			ids[e.Timer] = true
		}
	}
	if len(ids) != 2 {
		t.Fatalf("%d timers, want 2", len(ids))
	}
	ranges := map[int32][2]int64{}
	for id := range ids {
		// The rt-app timer's periods are 1-3 ms, the POSIX timer's 5-6 ms:
		// a timer's first period says which it is.
		var e0 *trace.Event
		for i := range evs {
			if e := &evs[i]; e.Kind == trace.Mark && e.Mark == trace.TimerExpiry && e.Timer == id {
				if e0 != nil {
					if e.Expected-e0.Expected < 4e6 {
						ranges[id] = [2]int64{1e6, 3e6}
					} else {
						ranges[id] = [2]int64{5e6, 6e6}
					}
					break
				}
				e0 = e
			}
		}
	}
	seen := map[[2]int64]bool{}
	for _, r := range ranges {
		seen[r] = true
	}
	if len(seen) != 2 {
		t.Fatalf("timer ranges %v: want one timer of each", ranges)
	}
	for id, lim := range ranges {
		pid := id
		exp := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Mark && e.Mark == trace.TimerExpiry && e.Timer == id })
		distinct := map[int64]bool{}
		for i := 1; i < len(exp); i++ {
			d := exp[i].Expected - exp[i-1].Expected
			if d < lim[0] || d > lim[1] {
				t.Fatalf("pid %d: period %d ns outside [%d, %d]", pid, d, lim[0], lim[1])
			}
			distinct[d] = true
		}
		if len(exp) < 100 || len(distinct) < 50 {
			t.Fatalf("pid %d: %d expiries with %d distinct periods: not drawn anew", pid, len(exp), len(distinct))
		}
	}
}

// scenario loads a built-in scenario.
func scenario(t *testing.T, name string, params map[string]string) *workload.Spec {
	t.Helper()
	sp, _, err := workload.Load(name, params)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestMakeKeepsNJobsAlive(t *testing.T) {
	const n = 3
	rec := &trace.Recorder{}
	run(t, sim.Config{Spec: scenario(t, "calibrated-make-j3", nil), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil),
		Duration: 10e9, Seed: 3, Sink: rec, Check: true})
	job := map[string]bool{"sh": true, "gcc": true, "cc1": true, "as": true}
	alive := 0
	gaps := map[int32]bool{} // job processes that forked their successor and have not exited yet
	forks, exits, started := 0, 0, false
	files := 0
	for _, e := range rec.Events {
		switch e.Kind {
		case trace.Fork:
			if e.ChildComm == "make" {
				continue
			}
			if !job[e.ChildComm] {
				t.Fatalf("unexpected fork of %s", e.ChildComm)
			}
			forks++
			alive++
			if job[e.Comm] {
				if gaps[e.PID] {
					t.Fatalf("%s:%d forked twice", e.Comm, e.PID)
				}
				gaps[e.PID] = true
			} else if e.Comm != "make" {
				t.Fatalf("fork by %s", e.Comm)
			}
			if e.ChildComm == "as" {
				files++
			}
		case trace.Exit:
			if !job[e.Comm] {
				t.Fatalf("%s exited", e.Comm)
			}
			if !gaps[e.PID] {
				t.Fatalf("%s:%d exited without forking the next process of its job", e.Comm, e.PID)
			}
			delete(gaps, e.PID)
			exits++
			alive--
		default:
			continue
		}
		if alive == n {
			started = true
		}
		if started && alive != n+len(gaps) {
			t.Fatalf("at %d ns: %d job processes alive, %d in a fork gap; want %d outside the gaps", e.TS, alive, len(gaps), n)
		}
	}
	if !started || forks != exits+alive || alive != n+len(gaps) {
		t.Fatalf("forks %d, exits %d, alive %d, in gaps %d", forks, exits, alive, len(gaps))
	}
	// One CPU, ≈0.3 s of CPU per file: about 33 files in 10 s.
	if files < 20 || files > 50 {
		t.Fatalf("%d files compiled in 10 s", files)
	}
	t.Logf("%d forks, %d exits, %d files", forks, exits, files)
}

func TestBuiltinScenariosRunChecked(t *testing.T) {
	for _, sc := range workload.Scenarios() {
		an := analyze.New()
		e := run(t, sim.Config{Spec: scenario(t, sc.Name, nil), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil),
			Duration: 2e9, Seed: 1, Sink: an, Check: true})
		r := an.Finish(e.Now())
		// The builds alone have no measurer.
		measured := !strings.HasPrefix(sc.Name, "calibrated-make-j") && !strings.HasPrefix(sc.Name, "make-j") && sc.Name != "two-hogs"
		if measured && r.TimerLatency.Count < 50 {
			t.Errorf("%s: %d timer-latency samples in 2 s", sc.Name, r.TimerLatency.Count)
		}
		if r.TimerUnmatched != 0 {
			t.Errorf("%s: %d callback marks without an expiry", sc.Name, r.TimerUnmatched)
		}
	}
}

func TestMakeSameSeedSameTrace(t *testing.T) {
	text := func(seed uint64) string {
		rec := &trace.Recorder{}
		run(t, sim.Config{Spec: scenario(t, "calibrated-make-j10", nil), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil),
			Duration: 3e9, Seed: seed, Sink: rec})
		var b strings.Builder
		for _, ev := range rec.Events {
			fmt.Fprintf(&b, "%+v\n", ev)
		}
		return b.String()
	}
	a, b, c := text(5), text(5), text(6)
	if a != b {
		t.Fatal("calibrated-make-j10: same seed, different traces")
	}
	if a == c {
		t.Fatal("calibrated-make-j10: different seeds, identical traces")
	}
}

// The virtual machine's late timer interrupt delays every timer-driven
// wakeup by cost_timer_irq_ns, and nothing else: on an idle CPU an rt-app
// timer's sample is the wakeup path, the interrupt's delay and one context
// switch; a sleep ends that much later; a task-to-task wakeup (resume) is
// not affected.
func TestTimerIRQ(t *testing.T) {
	p := sim.DefaultParams()
	p.TimerIRQ = 50000
	an := analyze.New()
	rec := &trace.Recorder{}
	e := run(t, sim.Config{Spec: spec(t, `{"tasks": {
		"tick": {"timer": {"ref": "t", "period": 10000}, "run": 100},
		"nap": {"delay": 5000, "loop": 1, "sleep": 1000, "resume": "sus"},
		"sus": {"delay": 5000, "loop": 1, "suspend": 0, "run": 1}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Params: p, Duration: 50e6, Sink: trace.Tee{an, rec}, Check: true})
	r := an.Finish(e.Now())
	want := p.CostWakeup + p.TimerIRQ + p.CostContextSwitch
	if s := r.TimerLatency; s.Count != 4 || s.Min != want || s.Max != want {
		t.Fatalf("timer latency n=%d min %d max %d, want 4 samples of %d ns", s.Count, s.Min, s.Max, want)
	}
	// nap starts at 5 ms (+ a context switch) and sleeps 1 ms: it is woken
	// 1 ms + wakeup path + interrupt delay later, then resumes sus, whose
	// wakeup is the resume system call's cost after nap runs again.
	wake := func(pid int32) int64 {
		w := find(rec.Events, func(e *trace.Event) bool { return e.Kind == trace.Waking && e.PID == pid })
		if len(w) != 1 {
			t.Fatalf("pid %d woken %d times", pid, len(w))
		}
		return w[0].TS
	}
	napWoken := wake(1002)
	if want := 5e6 + p.CostContextSwitch + 1e6 + p.CostWakeup + p.TimerIRQ; napWoken != int64(want) {
		t.Errorf("nap woken at %d, want %d", napWoken, int64(want))
	}
	if got, want := wake(1003)-napWoken, p.CostContextSwitch+p.CostWakeup; got != want {
		t.Errorf("resume took %d ns after nap's wakeup, want %d (no interrupt delay)", got, want)
	}
}

// A timer that fires on an idle CPU pays cost_idle_exit_ns on top (the
// halted virtual CPU is woken first); one that fires on a busy CPU does not.
func TestIdleExit(t *testing.T) {
	p := sim.DefaultParams()
	p.TimerIRQ, p.IdleExit = 30000, 70000
	for _, c := range []struct {
		name, js string
		idle     bool
	}{
		{"alone", `{"tasks": {"tick": {"timer": {"ref": "t", "period": 10000}, "run": 100}}}`, true},
		{"beside a hog", `{"tasks": {"tick": {"timer": {"ref": "t", "period": 10000}, "run": 100}, "hog": {"run": 100000}}}`, false},
		{"sleep alone", `{"tasks": {"tick": {"sleep": 9000, "run": 100}}}`, true},
	} {
		_, evs := record(t, c.js, 1, 50e6, p)
		wakes := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Waking && e.PID == 1001 })
		if len(wakes) < 4 {
			t.Fatalf("%s: %d wakeups", c.name, len(wakes))
		}
		want := p.CostWakeup + p.TimerIRQ
		if c.idle {
			want += p.IdleExit
		}
		// The timer fires on the 10 ms grid from the task's first step
		// (its first switch-in and the switch's cost); the first sleep's
		// 9 ms after it (checked for the first only).
		in := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Switch && e.NextPID == 1001 })
		first := in[0].TS + p.CostContextSwitch
		for i, w := range wakes[:4] {
			fired := first + int64(i+1)*10e6
			if strings.HasPrefix(c.name, "sleep") {
				if i > 0 {
					continue
				}
				fired = first + 9e6 // the first event is the sleep
			}
			if got := w.TS - fired; got != want {
				t.Errorf("%s: wakeup %d at +%d ns after the timer, want %d", c.name, i, got, want)
			}
		}
	}
}

// An expiry mark is written in the timer interrupt: it names the task
// running on the timer's CPU (or the idle task), as a trace_marker line
// names the current task; a callback's start is its own task's.
func TestMarksNameTheCurrentTask(t *testing.T) {
	for _, name := range []string{"sleeper-vs-hog", "wakeup-latency-calibrated-make-j5"} {
		rec := &trace.Recorder{}
		run(t, sim.Config{Spec: simtest.Scenario(t, name), Sched: schedConfig(t, "cfs-2.6.35", 2, nil, nil), Duration: 1e9, Seed: 1, Sink: rec})
		cur := map[int32]int32{}
		expiries := 0
		for _, e := range rec.Events {
			switch {
			case e.Kind == trace.Switch:
				cur[e.CPU] = e.NextPID
			case e.Kind == trace.Mark && e.Mark == trace.TimerExpiry:
				expiries++
				if e.PID != cur[e.CPU] {
					t.Fatalf("%s: expiry mark at %d on CPU %d names %d, but %d runs there", name, e.TS, e.CPU, e.PID, cur[e.CPU])
				}
			case e.Kind == trace.Mark && e.Mark == trace.CallbackStart:
				if e.PID != cur[e.CPU] {
					t.Fatalf("%s: callback mark at %d names %d, not the running %d", name, e.TS, e.PID, cur[e.CPU])
				}
			}
		}
		if expiries < 50 {
			t.Errorf("%s: %d expiry marks", name, expiries)
		}
	}
}

// A "process" task first spends cost_exec_ns in exec(), then its program;
// a thread does not.
func TestProcessExecCost(t *testing.T) {
	p := sim.DefaultParams()
	p.CostExec = 2e6
	_, evs := record(t, `{"tasks": {
		"proc": {"process": true, "loop": 1, "run": 1000, "suspend": "never"},
		"thr": {"delay": 10000, "loop": 1, "run": 1000, "suspend": "never"}}}`, 1, 1e8, p)
	sleeps := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Switch && e.PrevState == trace.Sleeping })
	if len(sleeps) != 2 {
		t.Fatalf("%d tasks blocked, want 2", len(sleeps))
	}
	// proc: the switch, the exec, its 1 ms; thr: from 10 ms, the switch and 1 ms.
	if want := p.CostContextSwitch + p.CostExec + 1e6; sleeps[0].PID != 1001 || sleeps[0].TS != want {
		t.Errorf("proc blocked at %d ns (pid %d), want %d", sleeps[0].TS, sleeps[0].PID, want)
	}
	if want := 10e6 + p.CostContextSwitch + 1e6; sleeps[1].TS != want {
		t.Errorf("thr blocked at %d ns, want %d (no exec)", sleeps[1].TS, want)
	}
}

// cost_thread_start_ns is run before a thread's first event, so its timer
// grid starts after it; a thread on a stack its process cached from an
// exited thread takes cost_thread_start_cached_ns instead. A SIGEV_THREAD
// callback marks its start before its setup.
func TestThreadStartAnchorsTheGrid(t *testing.T) {
	p := sim.DefaultParams()
	p.CostThreadStart, p.CostThreadStartCached = 56000, 35000
	_, evs := record(t, `{"tasks": {"tick": {"timer": {"ref": "t", "period": 10000}, "run": 100}}}`, 1, 50e6, p)
	in := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Switch && e.NextPID == 1001 })
	first := in[0].TS + p.CostContextSwitch + p.CostThreadStart
	wakes := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Waking && e.PID == 1001 })
	if len(wakes) < 3 {
		t.Fatalf("%d wakeups of the periodic thread", len(wakes))
	}
	for i, w := range wakes[:3] {
		if got, want := w.TS, first+int64(i+1)*10e6+p.CostWakeup+p.TimerIRQ; got < want || got > want+1e5 {
			t.Errorf("wakeup %d at %d, want from %d (the grid from the first switch-in + switch + thread start)", i, got, want)
		}
	}
	// Each callback marks its start right after its switch-in, then runs
	// its setup and its 20 µs: the first on a new stack, the later ones
	// on the stack of the callback before, which has exited.
	_, evs = record(t, `{"tasks": {
		"sigev-helper": {"timer": {"ref": "h", "period": 10000, "notify": "thread"}, "fork": "callback"},
		"callback": {"instance": 0, "loop": 1, "run": 20}}}`, 1, 50e6, p)
	marks := find(evs, func(e *trace.Event) bool {
		return e.Kind == trace.Mark && e.Mark == trace.CallbackStart && strings.HasPrefix(e.Comm, "callback")
	})
	if len(marks) < 3 {
		t.Fatalf("%d callback marks", len(marks))
	}
	for i, m := range marks[:3] {
		sw := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Switch && e.NextPID == m.PID && e.TS <= m.TS })
		sw = sw[len(sw)-1:]
		if d := m.TS - sw[0].TS; d > p.CostContextSwitch {
			t.Errorf("callback %d marks %d ns after its switch-in, want at most the switch's %d", m.PID, d, p.CostContextSwitch)
		}
		out := find(evs, func(e *trace.Event) bool { return e.Kind == trace.Switch && e.PID == m.PID && e.TS > m.TS })
		want := p.CostContextSwitch + p.CostThreadStart + 20000 + p.CostExit
		if i > 0 {
			want += p.CostThreadStartCached - p.CostThreadStart
		}
		if d := out[0].TS - sw[0].TS; d != want {
			t.Errorf("callback %d (%d) ran %d ns, want %d", i, m.PID, d, want)
		}
	}
}

// A process fork holds its process's fork-time locks until the parent
// returns from it: a thread of the same process that starts meanwhile (on
// another CPU) waits at its setup until then. Without the thread start
// (a model of a kernel) nothing waits.
func TestForkHoldsThreadStart(t *testing.T) {
	js := `{"tasks": {
		"make": {"loop": 1, "fork": "sh"},
		"sh": {"instance": 0, "process": true, "run": 100},
		"late": {"loop": 1, "delay": 500, "run": 100}}}`
	exitOf := func(p sim.Params) int64 {
		_, evs := record(t, js, 2, 10e6, p)
		for _, e := range evs {
			if e.Kind == trace.Exit && e.Comm == "late" {
				return e.TS
			}
		}
		t.Fatal("late never exited")
		return 0
	}
	p := sim.DefaultParams()
	p.CostFork = 1e6
	free := exitOf(p)
	p.CostThreadStart = 56000
	held := exitOf(p)
	// make's fork runs from its first step (a switch in) to 1 ms later;
	// late starts at 0.5 ms, so it waits about 0.5 ms more than the start.
	if d := held - free; d < 56000+400000 || d > 56000+600000 {
		t.Errorf("late exits %d ns later with the thread start on, want its 56 µs and the ~0.5 ms left of make's fork", d)
	}
}
