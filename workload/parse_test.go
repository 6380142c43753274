package workload

import (
	"strings"
	"testing"

	"schedlab/uapi"
)

func mustParse(t *testing.T, js string) *Spec {
	t.Helper()
	s, err := Parse("w.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func kinds(ph *Phase) string {
	var out []string
	for _, e := range ph.Events {
		out = append(out, e.Kind.String())
	}
	return strings.Join(out, ",")
}

func TestEventsRunInKeyOrder(t *testing.T) {
	s := mustParse(t, `{
		// rt-app accepts comments and trailing commas
		"global": {"duration": 2.5, "default_policy": "SCHED_BATCH",},
		"tasks": {
			"b": {"sleep0": 10, "runtime0": 20, "running": 30, "yield": 0, "run1": 40},
			"a": {"instance": 3, "priority": -5, "cpus": [0], "uid": 7, "run": 1},
		}}`)
	if s.Duration != 2.5e9 || s.DefaultPolicy != uapi.SchedBatch {
		t.Fatalf("global: duration %d policy %v", s.Duration, s.DefaultPolicy)
	}
	if s.Tasks[0].Name != "b" || s.Tasks[1].Name != "a" {
		t.Fatal("tasks not in file order")
	}
	if got := kinds(s.Tasks[0].Phases[0]); got != "sleep,runtime,run,yield,run" {
		t.Fatalf("event order/types: %s", got)
	}
	ev := s.Tasks[0].Phases[0].Events
	if ev[0].Dur.Fixed != 10000 || ev[1].Dur.Fixed != 20000 || ev[4].Dur.Fixed != 40000 {
		t.Fatal("durations not in ns")
	}
	a := s.Tasks[1]
	if a.Instances != 3 || *a.Props.Nice != -5 || a.Props.CPUs[0] != 0 || *a.Props.UID != 7 || a.Loop != -1 {
		t.Fatalf("task a: %+v", a)
	}
}

func TestDuplicateKeysCollapseLikeRtApp(t *testing.T) {
	s := mustParse(t, `{"tasks": {"t": {"run": 1000, "sleep": 2000, "run": 3000}}}`)
	ev := s.Tasks[0].Phases[0].Events
	if len(ev) != 2 || ev[0].Kind != Run || ev[0].Dur.Fixed != 3000e3 || ev[1].Kind != Sleep {
		t.Fatalf("want run 3000, sleep 2000; got %+v", ev)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `"run"`) {
		t.Fatalf("warnings: %v", s.Warnings)
	}
}

func TestPhasesLoopsAndTemplates(t *testing.T) {
	s := mustParse(t, `{"tasks": {
		"p": {"loop": 2, "phases": {"one": {"loop": 3, "run": 1}, "two": {"priority": 4, "sleep": 1}}},
		"tmpl": {"instance": 0, "loop": 1, "run": 5},
		"f": {"fork": "tmpl", "sleep": 1}}}`)
	p := s.Tasks[0]
	if p.Loop != 2 || len(p.Phases) != 2 || p.Phases[0].Loop != 3 || p.Phases[1].Loop != 1 || *p.Phases[1].Props.Nice != 4 {
		t.Fatalf("phases: %+v", p)
	}
	if s.Tasks[1].Instances != 0 || s.Tasks[1].Loop != 1 {
		t.Fatal("template")
	}
	if ev := s.Tasks[2].Phases[0].Events[0]; ev.Kind != Fork || ev.Fork != 1 {
		t.Fatalf("fork target: %+v", ev)
	}
}

func TestTimersAndGroups(t *testing.T) {
	s := mustParse(t, `{"global": {"taskgroups": {"/u/1": {"shares": 512}}},
		"tasks": {
		"a": {"taskgroup": "/u/2", "timer": {"ref": "shared", "period": 1000, "mode": "absolute"}},
		"b": {"timer": {"ref": "shared", "period": 2000, "mode": "absolute"}, "timer1": {"ref": "unique_x", "period": 5}},
		"c": {"timer": {"ref": "p", "period": 10000, "notify": "thread"}, "run": 1}}}`)
	if len(s.Timers) != 3 || !s.Timers[0].Absolute || s.Timers[0].PerThread || !s.Timers[1].PerThread || s.Timers[2].Notify != "thread" {
		t.Fatalf("timers: %+v %+v %+v", s.Timers[0], s.Timers[1], s.Timers[2])
	}
	if e := s.Tasks[1].Phases[0].Events[0]; e.Timer != 0 || e.Period != 2e6 {
		t.Fatalf("shared timer event: %+v", e)
	}
	var got []string
	for _, g := range s.Groups {
		got = append(got, g.Path+"<"+g.Parent+">")
	}
	if strings.Join(got, " ") != "/u<> /u/1</u> /u/2</u>" {
		t.Fatalf("groups: %v", got)
	}
	if s.Groups[1].Shares != 512 || s.Groups[2].Shares != 1024 {
		t.Fatal("shares")
	}
}

func TestDistributions(t *testing.T) {
	s := mustParse(t, `{"tasks": {"t": {
		"run": {"dist": "lognormal", "median": 20000, "sigma": 0.8},
		"sleep": {"dist": "exponential", "mean": 500},
		"run1": {"dist": "uniform", "min": 1, "max": 2}}}}`)
	ev := s.Tasks[0].Phases[0].Events
	if ev[0].Dur.Dist != LogNormal || ev[0].Dur.Median != 20e6 || ev[0].Dur.Sigma != 0.8 ||
		ev[1].Dur.Dist != Exponential || ev[1].Dur.Mean != 500e3 || ev[2].Dur.Min != 1000 || ev[2].Dur.Max != 2000 {
		t.Fatalf("%+v", ev)
	}
}

func TestSuspendResumeAndLatencyEnd(t *testing.T) {
	s := mustParse(t, `{"tasks": {
		"x": {"timer": {"ref": "k", "period": 33333, "notify": "input"}, "run": 1, "resume": "term", "suspend": "x",
		      "latency_end": 0, "latency_end1": "ignored"},
		"term": {"instance": 2, "suspend": 0, "resume0": "x", "resume1": "term-1"}}}`)
	x, term := s.Tasks[0].Phases[0], s.Tasks[1].Phases[0]
	if got := kinds(x); got != "timer,run,resume,suspend,latency_end,latency_end" {
		t.Fatalf("x: %s", got)
	}
	if got := kinds(term); got != "suspend,resume,resume" {
		t.Fatalf("term: %s", got)
	}
	if ev := x.Events[2]; ev.Target != "term" || ev.TargetDef != 1 {
		t.Fatalf("resume of term: %+v", ev)
	}
	if ev := term.Events[1]; ev.Target != "x" || ev.TargetDef != 0 {
		t.Fatalf("resume of x: %+v", ev)
	}
	if ev := term.Events[2]; ev.Target != "term-1" || ev.TargetDef != 1 {
		t.Fatalf("resume of an instance: %+v", ev)
	}
	if s.Timers[0].Notify != "input" {
		t.Fatalf("notify: %q", s.Timers[0].Notify)
	}
	// latency_end is not an rt-app event: rt-app ignores it as a property.
	if eventType("latency_end") != "" {
		t.Fatal("latency_end starts with an rt-app event prefix")
	}
}

func TestRandomTimerPeriodParses(t *testing.T) {
	s := mustParse(t, `{"tasks": {"a": {
		"timer": {"ref": "unique", "period": {"dist": "uniform", "min": 10000, "max": 30000}},
		"timer1": {"ref": "p", "period": {"dist": "lognormal", "median": 500, "sigma": 0.5}, "notify": "signal"}}}}`)
	ev := s.Tasks[0].Phases[0].Events
	if ev[0].PeriodDur.Dist != Uniform || ev[0].PeriodDur.Min != 10e6 || ev[0].PeriodDur.Max != 30e6 || ev[0].Period != 20e6 {
		t.Fatalf("uniform period: %+v", ev[0])
	}
	if ev[1].PeriodDur.Dist != LogNormal || ev[1].Period != 500e3 {
		t.Fatalf("lognormal period: %+v", ev[1])
	}
	fixed := mustParse(t, `{"tasks": {"a": {"timer": {"ref": "t", "period": 7}}}}`).Tasks[0].Phases[0].Events[0]
	if fixed.PeriodDur != (Duration{Fixed: 7000}) || fixed.Period != 7000 {
		t.Fatalf("fixed period: %+v", fixed)
	}
}

func TestErrorsNameFileLineAndChoices(t *testing.T) {
	for _, c := range []struct {
		js   string
		want []string
	}{
		{"{\"tasks\": {\n \"a\": {\"run\": \"x\"}}}", []string{"w.json:2:15", `task "a"`, "run must be"}},
		{`{"tasks": {"a": {"mem": "x"}}}`, []string{`task "a": mem must be an integer of bytes`}},
		{`{"tasks": {"a": {"lock": 3}}}`, []string{`lock must name a mutex`}},
		{`{"tasks": {"a": {"wait": {"ref": "c", "mutx": "m"}}}}`, []string{`unknown key "mutx" in wait`, "ref, mutex"}},
		{`{"tasks": {"a": {"memrun": {"type": "copy"}}}}`, []string{`"read", "write" or "chase"`}},
		{`{"tasks": {"a": {"rum": 1}}}`, []string{`unknown key "rum"`, "barrier", "sem_wait"}},
		{`{"global": {"pi_enabled": 1}, "tasks": {"a": {"run": 1}}}`, []string{"global.pi_enabled must be true or false"}},
		{`{"global": {"calibration": "GPU0"}, "tasks": {"a": {"run": 1}}}`, []string{`"GPU0"`, "CPUn"}},
		{`{"global": {"log_size": "big"}, "tasks": {"a": {"run": 1}}}`, []string{`"big"`, "disable"}},
		{`{"tasks": {"a": {"run": 1, "fork": "nobody"}}}`, []string{"fork of undefined task \"nobody\"", "defined: a"}},
		{`{"tasks": {"a": {"run": 1, "priority": 20}}}`, []string{"[-20, 19]"}},
		{`{"tasks": {"a": {"run": 1, "policy": "SCHED_FAIR"}}}`, []string{"SCHED_FAIR", "SCHED_OTHER"}},
		{`{"tasks": {"a": {"run": -1}}}`, []string{"non-negative"}},
		{`{"global": {"duration": -3}, "tasks": {"a": {"run": 1}}}`, []string{"duration -3"}},
		{`{"global": {"durration": 3}, "tasks": {"a": {"run": 1}}}`, []string{`"durration"`, "duration"}},
		{`{"tasks": {"a": {"timer": {"ref": "t", "period": 0}}}}`, []string{"period must be a positive"}},
		{`{"tasks": {"a": {"timer": {"ref": "t", "period": 1, "notify": "sms"}}}}`, []string{"signal", "thread", "input"}},
		{`{"tasks": {"a": {"run": 1, "resume": "ghost"}}}`, []string{`resume of "ghost"`, "defined: a"}},
		{`{"tasks": {"a": {"instance": 2, "run": 1, "resume": "a-2"}}}`, []string{`resume of "a-2"`}},
		{`{"tasks": {"a": {"run": 1, "resume": 3}}}`, []string{"resume must name the thread"}},
		{`{"tasks": {"a": {"timer": {"ref": "t", "period": {"dist": "exponential", "mean": 0}}}}}`, []string{"random timer period needs a positive"}},
		{`{"tasks": {"a": {"latency_start": 0}}}`, []string{`unknown key "latency_start"`, "latency_end"}},
		{`{"tasks": {"a": {"loop": 0, "run": 1}}}`, []string{"loop must be -1"}},
		{`{"tasks": {"a": {"priority": 1}}}`, []string{"has no events"}},
		{`{"tasks": {"a": {"phases": {"p": {"uid": 1, "run": 1}}}}}`, []string{`"uid" can only be set on the task`}},
		{`{"tasks": {"a": {"phases": {"p": {"cpus": [], "run": 1}}}}}`, []string{`phase "p": cpus must be a non-empty array`}},
		{`{"tasks": {"a": {"taskgroup": "g", "run": 1}}}`, []string{"/name"}},
		{`{"tasks": {"a": {"run": {"dist": "pareto"}}}}`, []string{"pareto", "lognormal"}},
		{`{"tasks": {"a": {"run": 1, "policy": "SCHED_FIFO", "priority": 0}}}`, []string{"w.json:1:64", "real-time priority", "[1, 99]"}},
		{`{"global": {"default_policy": "SCHED_RR"}, "tasks": {"a": {"run": 1, "priority": -5}}}`, []string{"SCHED_RR", "[1, 99]"}},
		{`{"tasks": {"a": {"run": 1, "priority": 100}}}`, []string{"[-20, 19]", "[1, 99]"}},
		{`{"tasks": {"a": {"policy": "SCHED_FIFO", "phases": {"p": {"priority": 5, "run": 1}}}}}`, []string{`phase "p"`, "not simulated yet"}},
		{`{"tasks": {"a": {"run": 1, "policy": "SCHED_DEADLINE"}}}`, []string{"needs dl-runtime"}},
		{`{"tasks": {"a": {"run": 1, "policy": "SCHED_DEADLINE", "dl-runtime": 5000, "dl-period": 1000}}}`, []string{"dl-runtime <= dl-deadline <= dl-period"}},
		{`{"tasks": {"a": {"run": 1, "policy": "SCHED_DEADLINE", "dl-runtime": 500, "priority": 3}}}`, []string{"has no priority"}},
		{`{"tasks": {"a": {"run": 1, "dl-runtime": 1000001}}}`, []string{"custom slice", "1000000"}},
		{`[1]`, []string{"JSON object"}},
		{`{"global": {}}`, []string{`no "tasks"`}},
	} {
		_, err := Parse("w.json", []byte(c.js))
		if err == nil {
			t.Errorf("%s: no error", c.js)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.js, err, w)
			}
		}
		if !strings.HasPrefix(err.Error(), "w.json:") {
			t.Errorf("%s: error %q does not name the file", c.js, err)
		}
	}
}

func TestBuiltinScenariosParse(t *testing.T) {
	list := Scenarios()
	if len(list) < 2 {
		t.Fatalf("only %d built-in scenarios", len(list))
	}
	for _, sc := range list {
		if sc.Description == "" {
			t.Errorf("%s has no description", sc.Name)
		}
		if _, _, err := Load(sc.Name, nil); err != nil {
			t.Errorf("%s: %v", sc.Name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"tasks": {"a": {"run": 1}}}`,
		`{"global": {"duration": 1}, "tasks": {"a": {"phases": {"p": {"loop": 2, "run": 1, "sleep": 2}}}}}`,
		`{"tasks": {"a": {"timer": {"ref": "t", "period": 10, "notify": "thread"}, "fork": "b"}, "b": {"instance": 0, "run": 1}}}`,
		`{"tasks": {"a": {"run": {"dist": "uniform", "min": 1, "max": 3}}}}`,
		`{"global": {"taskgroups": {"/a/b": {"shares": 3}}}, "tasks": {"a": {"taskgroup": "/a/b", "run": 1}}}`,
		`{"tasks": {"x": {"timer": {"ref": "k", "period": {"dist": "uniform", "min": 1, "max": 9}, "notify": "input"}, "resume": "y", "latency_end": 0}, "y": {"instance": 2, "suspend": 0}}}`,
		`{"tasks": {"a": {"delay": 10000000000000, "loop": 2147483647, "run": 10000000000000, "taskgroup": "/user.slice/a"}}}`,
		`{"tasks": {"a": {"delay": 10000000000001, "loop": 2147483648, "run": 18446744073709552, "taskgroup": "/a/../b"}}}`,
		`{"global": {"pi_enabled": true, "frag": 1, "calibration": 10}, "tasks": {"a": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "barrier": "b"}, "b": {"signal": "c", "broad": "c", "sync": {"ref": "c"}, "barrier": "b"}}}`,
		`{"tasks": {"a": {"suspend", "mem": 10, "iorun": 5, "memrun": {"type": "chase", "count": 3}, "sem_post": "s", "sem_wait": "s"}, "b": {"resume": "x"}, "c": {"suspend": "x"}}}`,
		`{"tasks": {"a": {"cpus": [1], "phases": {"p": {"cpus": [0], "priority": 3, "util_min": 5, "run": 1}}}}}`,
		`{`, `[]`, `{"tasks": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, wg := range []bool{false, true} {
			checkFuzzed(t, data, wg)
		}
	})
}

// checkFuzzed parses data as rt-app (json-c) or workgen reads it.
func checkFuzzed(t *testing.T, data []byte, workgen bool) {
	{
		s, err := ParseWith("f.json", data, ReadOptions{Workgen: workgen})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Whatever parses is runnable: every phase has events, every fork
		// and timer index is in range, and every count, time and path is
		// within the language's limits.
		inRange := func(d Duration) bool {
			for _, v := range []int64{d.Fixed, d.Median, d.Mean, d.Min, d.Max} {
				if v < 0 || v > MaxNS {
					return false
				}
			}
			return true
		}
		loopOK := func(n int) bool { return n == -1 || n >= 1 && n <= MaxLoop }
		threads := 0
		for _, g := range s.Groups {
			if checkGroupPath(g.Path) != nil {
				t.Fatalf("group path %q", g.Path)
			}
		}
		for _, tk := range s.Tasks {
			if len(tk.Phases) == 0 {
				t.Fatal("task without phases")
			}
			if threads += tk.Instances; threads > MaxThreads || tk.Delay < 0 || tk.Delay > MaxNS || !loopOK(tk.Loop) {
				t.Fatalf("task %q: %d threads so far, delay %d, loop %d", tk.Name, threads, tk.Delay, tk.Loop)
			}
			for _, ph := range tk.Phases {
				if len(ph.Events) == 0 {
					t.Fatal("phase without events")
				}
				if !loopOK(ph.Loop) {
					t.Fatalf("phase loop %d", ph.Loop)
				}
				for _, ev := range ph.Events {
					if !inRange(ev.Dur) || !inRange(ev.PeriodDur) || ev.Period > MaxNS {
						t.Fatalf("event %q out of range: %+v", ev.Key, ev)
					}
					if ev.Kind == Fork && (ev.Fork < 0 || ev.Fork >= len(s.Tasks)) {
						t.Fatal("fork index out of range")
					}
					if ev.Kind == Timer && (ev.Timer < 0 || ev.Timer >= len(s.Timers) || ev.Period <= 0) {
						t.Fatal("bad timer event")
					}
					if ev.Kind == Resume && (ev.TargetDef < -1 || ev.TargetDef >= len(s.Tasks) || ev.Cond < -1 || ev.Cond >= len(s.Conds) || ev.TargetDef < 0 && ev.Cond < 0) {
						t.Fatal("resume target out of range")
					}
					if ev.Kind == Suspend && (ev.Cond < -1 || ev.Cond >= len(s.Conds)) {
						t.Fatal("suspend rendezvous out of range")
					}
					n := map[EventKind]int{Lock: len(s.Mutexes), Unlock: len(s.Mutexes), Wait: len(s.Conds), Signal: len(s.Conds),
						Broadcast: len(s.Conds), SigAndWait: len(s.Conds), Barrier: len(s.Barriers), SemPost: len(s.Sems), SemWait: len(s.Sems)}
					if max, ok := n[ev.Kind]; ok && (ev.Res < 0 || ev.Res >= max) {
						t.Fatalf("event %q: object %d of %d", ev.Key, ev.Res, max)
					}
					if (ev.Kind == Wait || ev.Kind == SigAndWait) && (ev.Mutex < 0 || ev.Mutex >= len(s.Mutexes)) {
						t.Fatalf("event %q: mutex %d of %d", ev.Key, ev.Mutex, len(s.Mutexes))
					}
					if ev.Bytes < 0 || ev.Bytes > MaxBytes {
						t.Fatalf("event %q: %d bytes", ev.Key, ev.Bytes)
					}
				}
			}
		}
	}
}

// rt-app's priority is the nice value of a fair task and the real-time
// priority of a FIFO or RR one (default 10), whichever key comes first;
// dl-runtime is a fair task's custom slice and a deadline task's runtime.
func TestPriorityAndDeadlineKeysByPolicy(t *testing.T) {
	s := mustParse(t, `{"tasks": {
		"n": {"priority": -3, "dl-runtime": 700, "run": 1},
		"f": {"priority": 42, "policy": "SCHED_FIFO", "run": 1},
		"r": {"policy": "SCHED_RR", "dl-runtime": 700, "run": 1},
		"d": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 10000, "run": 1}},
		"global": {"default_policy": "SCHED_OTHER"}}`)
	n, f, r, d := s.Tasks[0].Props, s.Tasks[1].Props, s.Tasks[2].Props, s.Tasks[3].Props
	if n.Nice == nil || *n.Nice != -3 || n.RTPrio != 0 || n.Slice != 700000 {
		t.Errorf("fair task: nice %v, rt prio %d, slice %d", n.Nice, n.RTPrio, n.Slice)
	}
	if f.Nice != nil || f.RTPrio != 42 {
		t.Errorf("FIFO task: nice %v, rt prio %d, want 42", f.Nice, f.RTPrio)
	}
	if r.RTPrio != 10 || r.Slice != 0 {
		t.Errorf("RR task: rt prio %d (want rt-app's default 10), slice %d (want none)", r.RTPrio, r.Slice)
	}
	if want := (Deadline{Runtime: 1e6, Period: 1e7, Deadline: 1e7}); d.DL != want || d.Slice != 0 {
		t.Errorf("deadline task: %+v, slice %d, want %+v", d.DL, d.Slice, want)
	}
	if got := s.Policies(); len(got) != 4 {
		t.Errorf("Policies() = %v", got)
	}
}
