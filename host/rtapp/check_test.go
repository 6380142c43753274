package rtapp

import (
	"strings"
	"testing"

	"schedlab/workload"
)

func load(t *testing.T, name string) *workload.Spec {
	t.Helper()
	spec, _, err := workload.Load(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func parse(t *testing.T, js string) *workload.Spec {
	t.Helper()
	spec, err := workload.Parse("test.json", []byte(js))
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	return spec
}

func TestCheckScenarios(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"two-hogs", ""},
		{"sleeper-vs-hog", ""},
		{"wakeup-latency", `timer "posix" has "notify": "thread"`},
		{"sigev-thread", `"notify"`},
		{"calibrated-make-j5", `task "make" uses fork (event "fork")`},
		{"fair-user-sched", `task "busy" sets uid 1`},
		{"desktop-make-j10", "fork"},
	} {
		err := Check(load(t, c.name))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// Each thing rt-app 1.0 cannot run as schedlab means it, with its reason.
func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct{ tasks, global, want string }{
		{tasks: `"a": {"run": 10, "fork": "b"}, "b": {"instance": 0, "loop": 1, "run": 5}`,
			want: `task "a" uses fork (event "fork")`},
		{tasks: `"a": {"run": 10}, "b": {"instance": 0, "loop": 1, "run": 5}`,
			want: `task "b" has instance 0`},
		{tasks: `"a": {"taskgroup": "/g", "run": 10}`, want: `task "a" uses taskgroup "/g"`},
		{tasks: `"a": {"run": 10}`, global: `"taskgroups": {"/g": {"shares": 2048}}`,
			want: `global.taskgroups declares "/g"`},
		{tasks: `"a": {"run0": {"dist": "exponential", "mean": 100}, "sleep": 10}`,
			want: `task "a" event "run0" has a random duration (exponential)`},
		{tasks: `"a": {"run": 10, "sleep1": {"dist": "uniform", "min": 1, "max": 9}}`,
			want: `event "sleep1" has a random duration (uniform)`},
		{tasks: `"a": {"timer": {"ref": "t", "period": {"dist": "lognormal", "median": 100, "sigma": 1}}, "run": 10}`,
			want: `timer "t" has a random period (lognormal)`},
		{tasks: `"a": {"timer": {"ref": "t", "period": 1000, "notify": "signal"}, "run": 10}`,
			want: `timer "t" has "notify": "signal"`},
		{tasks: `"a": {"timer": {"ref": "t", "period": 1000}, "run": 10, "latency_end": 0}`,
			want: `task "a" uses latency_end (event "latency_end"`},
		{tasks: `"a": {"uid": 3, "run": 10}`, want: `task "a" sets uid 3`},
		{tasks: `"a": {"dl-runtime": 3000, "run": 10}`, want: `task "a" sets dl-runtime`},
		{tasks: `"a": {"policy": "SCHED_BATCH", "run": 10}`, want: `task "a" has policy SCHED_BATCH,`},
		{tasks: `"a": {"run": 10}`, global: `"default_policy": "SCHED_IDLE"`,
			want: `task "a" has policy SCHED_IDLE (global.default_policy)`},
		{tasks: `"a": {"phases": {"p1": {"run": 10}, "p2": {"priority": 5, "run": 10}}}`,
			want: `task "a" phase "p2" sets priority`},
		{tasks: `"a": {"instance": 2, "timer": {"ref": "t", "period": 1000}, "run": 10}`,
			want: `timer "t" is shared by 2 threads`},
		{tasks: `"a": {"timer": {"ref": "t", "period": 1000}, "run": 10}, "b": {"timer": {"ref": "t", "period": 1000}}`,
			want: `timer "t" is shared by 2 threads`},
		{tasks: `"a": {"instance": 2, "suspend": 0, "run": 10}, "b": {"run": 10, "resume": "a-1"}`,
			want: `task "b" event "resume" resumes "a-1", one instance of task "a"`},
		{tasks: `"a": {"instance": 2, "suspend": 0, "run": 10}, "b": {"run": 10, "resume": "a"}`,
			want: `resumes "a", which has 2 instances`},
		{tasks: `"a/b": {"run": 10}`, want: `task "a/b" has a "/" in its name`},
		{tasks: `"a": {"run": 10, "sem_post": "s"}`, want: `event "sem_post" is rt-app HEAD's sem_post, which rt-app 1.0 lacks`},
		{tasks: `"a": {"memrun": {"type": "read", "count": 5}}`, want: `rt-app HEAD's memrun`},
		{tasks: `"a": {"phases": {"p": {"cpus": [0], "run": 10}}}`, want: `phase "p" sets cpus`},
		{tasks: `"a": {"run": 10}`, global: `"duration": 1.5`, want: `global.duration 1.5s is not a whole number of seconds`},
	} {
		global := `"duration": 1`
		if c.global != "" {
			global = c.global
		}
		spec := parse(t, `{"global": {`+global+`}, "tasks": {`+c.tasks+`}}`)
		err := Check(spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("tasks %s: got %v, want an error with %q", c.tasks, err, c.want)
		}
	}
}

// What rt-app 1.0 runs as schedlab does.
func TestCheckAccepts(t *testing.T) {
	spec := parse(t, `{
	  "global": {"duration": 2, "default_policy": "SCHED_OTHER"},
	  "tasks": {
	    "x": {"priority": 5, "timer": {"ref": "own", "period": 10000}, "run": 100, "resume": "term", "suspend": 0, "yield": 0},
	    "term": {"cpus": [0], "delay": 1000, "suspend": 0, "runtime": 200, "resume": "x", "sleep": 10},
	    "rt": {"policy": "SCHED_FIFO", "priority": 10, "loop": 3, "timer": {"ref": "unique", "period": 1000, "mode": "absolute"}},
	    "ph": {"instance": 3, "loop": 2, "phases": {"a": {"loop": 5, "run": 10, "timer": {"ref": "unique1", "period": 100}}, "b": {"sleep": 10}}},
	    "sy": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "signal": "c", "broad": "c", "sync": {"ref": "c", "mutex": "m"},
	      "unlock": "m", "barrier": "B", "mem": 100, "iorun": 100, "suspend": "R"},
	    "sz": {"barrier": "B", "resume": "R", "run": 10}
	  }
	}`)
	if err := Check(spec); err != nil {
		t.Fatal(err)
	}
}
