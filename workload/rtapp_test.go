package workload

import (
	"strings"
	"testing"
)

func TestEventPrefixRule(t *testing.T) {
	// rt-app types an event by the prefix its key starts with, testing
	// runtime before run and memrun before mem; anything may follow.
	for key, want := range map[string]EventKind{
		"run": Run, "run0": Run, "running": Run, "runtime": Runtime, "runtime7": Runtime,
		"sleepy": Sleep, "mem": Mem, "mem_a": Mem, "memrun": MemRun, "memrun_x": MemRun, "iorun2": IORun,
		"lockA": Lock, "unlock_b": Unlock, "waiting": Wait, "signal_a": Signal, "broadcast": Broadcast,
		"sync1": SigAndWait, "barrier_x": Barrier, "sem_post1": SemPost, "sem_wait1": SemWait,
		"yield9": Yield, "suspend_me": Suspend, "resume_b": Resume, "fork2": Fork, "timer_t": Timer,
	} {
		val := map[EventKind]string{Run: "1", Runtime: "1", Sleep: "1", Mem: "8", IORun: "8", Yield: `""`,
			MemRun: `{"type": "write", "count": 8}`, Wait: `{"ref": "c"}`, SigAndWait: `{"ref": "c"}`,
			Timer: `{"ref": "t", "period": 10}`, Fork: `"a"`, Resume: `"a"`, Suspend: `""`}[want]
		if val == "" {
			val = `"x"`
		}
		s, err := Parse("p.json", []byte(`{"tasks": {"a": {"`+key+`": `+val+`}}}`))
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if got := s.Tasks[0].Phases[0].Events[0].Kind; got != want {
			t.Errorf("%s is a %v event, want %v", key, got, want)
		}
	}
}

func TestRtappDefaults(t *testing.T) {
	s := mustParse(t, `{"tasks": {
		"a": {"instance": 2, "wait": {}, "barrier": "B", "run": 1},
		"b": {"barrier": "B", "run": 1}, "c": {"instance": 0, "barrier": "B", "run": 1}}}`)
	// The defaults of doc/tutorial.txt's global object.
	if g := s.Global; g != (Global{MemBufferSize: 4194304, IODevice: "/dev/null", LogDir: "./", LogBasename: "rt-app"}) {
		t.Errorf("default global %+v", g)
	}
	ev := s.Tasks[0].Phases[0].Events
	// wait's ref and mutex default to rt-app's "unknown".
	if w := ev[0]; w.Kind != Wait || s.Conds[w.Res] != "unknown" || s.Mutexes[w.Mutex] != "unknown" {
		t.Errorf("wait %+v with conds %v mutexes %v", w, s.Conds, s.Mutexes)
	}
	// A barrier's users are the instances of its tasks: 2 + 1 + 0.
	if len(s.Barriers) != 1 || s.Barriers[0].Users != 3 {
		t.Errorf("barriers %+v", s.Barriers[0])
	}
}

func TestIgnoredKeysWarn(t *testing.T) {
	s := mustParse(t, `{"global": {"frag": 1, "calibration": "CPU0", "lock_pages": true, "logdir": "/x", "gnuplot": false, "ftrace": true,
		"pi_enabled": true, "cumulative_slack": true, "io_device": "/dev/sda", "mem_buffer_size": 64, "log_basename": "web", "log_size": "disable"},
		"tasks": {"a": {"util_min": 10, "phases": {"p": {"nodes_membind": [0], "cpus": [1], "priority": 3, "run": 1}}}}}`)
	for _, w := range []string{"frag", "AQuoSA", "calibration", "lock_pages", "logdir", "gnuplot", "ftrace", "util_min", "nodes_membind"} {
		if !strings.Contains(strings.Join(s.Warnings, "\n"), w) {
			t.Errorf("no warning names %s: %q", w, s.Warnings)
		}
	}
	if len(s.Warnings) != 8 {
		t.Errorf("%d warnings, want 8: %q", len(s.Warnings), s.Warnings)
	}
	g := s.Global
	if !g.PIEnabled || !g.CumulativeSlack || g.IODevice != "/dev/sda" || g.MemBufferSize != 64 || g.LogBasename != "web" || !g.LogDisabled {
		t.Errorf("global %+v", g)
	}
	p := s.Tasks[0].Phases[0].Props
	if len(p.CPUs) != 1 || p.CPUs[0] != 1 || p.Nice == nil || *p.Nice != 3 {
		t.Errorf("phase props %+v", p)
	}
	if c := mustParse(t, `{"global": {"calibration": 42}, "tasks": {"a": {"run": 1}}}`); c.Global.NsPerLoop != 42 || len(c.Warnings) != 0 {
		t.Errorf("integer calibration: %+v, %q", c.Global, c.Warnings)
	}
}

func TestBareSuspendAndRendezvous(t *testing.T) {
	// rt-app's video examples write "suspend", with no value; the browser
	// examples suspend on names that are no thread's (rt-app 1.0).
	s := mustParse(t, `{"tasks": {
		"a": {"suspend", "run": 1, "resume": "Display"},
		"b": {"suspend": "Display", "run": 1, "resume": "a", "suspend1": "b"}}}`)
	a, b := s.Tasks[0].Phases[0].Events, s.Tasks[1].Phases[0].Events
	if a[0].Kind != Suspend || a[0].Cond != -1 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "no value") {
		t.Errorf("bare suspend %+v, warnings %q", a[0], s.Warnings)
	}
	if len(s.Conds) != 1 || s.Conds[0] != "Display" || b[0].Cond != 0 || a[2].Cond != 0 || a[2].TargetDef != -1 {
		t.Errorf("rendezvous: conds %v, suspend %+v, resume %+v", s.Conds, b[0], a[2])
	}
	// A suspend naming its own thread is rt-app HEAD's, on the thread.
	if b[3].Cond != -1 || b[2].TargetDef != 0 || b[2].Cond != -1 {
		t.Errorf("own-name suspend %+v, resume %+v", b[3], b[2])
	}
}

func TestWorkgenKeepsRepeatedEvents(t *testing.T) {
	js := []byte(`{"tasks": {"a": {"loop": 1, "run": 10, "sleep": 20, "run": 30}}}`)
	kinds := func(s *Spec) (out []string) {
		for _, e := range s.Tasks[0].Phases[0].Events {
			out = append(out, e.Key)
		}
		return out
	}
	// As rt-app (json-c): one run, with the last value, at the first place.
	s, err := Parse("w.json", js)
	if err != nil || strings.Join(kinds(s), " ") != "run sleep" || s.Tasks[0].Phases[0].Events[0].Dur.Fixed != 30000 {
		t.Fatalf("json-c reading: %v %v", kinds(s), err)
	}
	// As workgen prepares it: both runs, in order.
	s, err = ParseWith("w.json", js, ReadOptions{Workgen: true})
	if err != nil || strings.Join(kinds(s), " ") != "run sleep run1" || s.Tasks[0].Phases[0].Events[2].Dur.Fixed != 30000 {
		t.Fatalf("workgen reading: %v %v", kinds(s), err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "run → run1") {
		t.Errorf("warnings %q", s.Warnings)
	}
}
