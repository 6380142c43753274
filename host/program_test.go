//go:build cgo

package host

import (
	"errors"
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

func parse(t *testing.T, src string) *workload.Spec {
	t.Helper()
	spec, err := workload.Parse("test.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// Every built-in scenario can run on the host.
func TestCompileBuiltins(t *testing.T) {
	for _, sc := range workload.Scenarios() {
		spec := load(t, sc.Name)
		groups := map[string]string{}
		for _, g := range spec.Groups {
			groups[g.Path] = "/cg" + g.Path + "/tasks"
		}
		prog, err := compile(spec, []int{0, 1}, groups, 1, "")
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		if !strings.HasPrefix(string(prog), "schedlab-host-program 3\n") || !strings.HasSuffix(string(prog), "end\n") {
			t.Errorf("%s: program not framed: %.60q", sc.Name, prog)
		}
	}
}

// The program carries what the worker needs, in the order it reads it.
func TestCompileText(t *testing.T) {
	spec := parse(t, `{"global": {"duration": 1}, "tasks": {
		"a": {"priority": 5, "cpus": [1], "run": 100, "sleep": 200},
		"b": {"instance": 0, "process": true, "loop": 1, "run": {"dist": "uniform", "min": 10, "max": 20}}}}`)
	prog, err := compile(spec, nil, nil, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	want := `schedlab-host-program 3
seed 7
policy 0
timers 0
groups 0
sync 0 0 0 0 0
users
io 4194304 2f6465762f6e756c6c
log 0 0 - 72742d617070
tasks 2
task 61 1 0 -1 0
props 1 5 -1 -1 -1 0 0 0 0 0 1 1
1
phase 1
props 0 0 -1 -1 -1 0 0 0 0 0 0
2
event 1 0 100000 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 - 0 0 -1 0
event 3 0 200000 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 - 0 0 -1 0
task 62 0 0 1 1
props 0 0 -1 -1 -1 0 0 0 0 0 0
1
phase 1
props 0 0 -1 -1 -1 0 0 0 0 0 0
1
event 1 3 0 0 0 10000 20000 0 0 0 0 0 0 0 0 0 0 0 - 0 0 -1 0
end
`
	if string(prog) != want {
		t.Errorf("program:\n%s\nwant:\n%s", prog, want)
	}
}

// A real-time task's props carry its policy and sched_priority, a
// deadline task's its reservation in ns (runtime, deadline, period), for
// the worker's sched_setattr.
func TestCompileRealTimeProps(t *testing.T) {
	spec := parse(t, `{"global": {"duration": 1}, "tasks": {
		"f": {"policy": "SCHED_FIFO", "priority": 42, "run": 100},
		"r": {"policy": "SCHED_RR", "run": 100},
		"d": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 10000, "run": 100}}}`)
	prog, err := compile(spec, nil, nil, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"props 0 0 1 -1 -1 0 42 0 0 0 0\n",
		"props 0 0 2 -1 -1 0 10 0 0 0 0\n",
		"props 0 0 6 -1 -1 0 0 1000000 10000000 10000000 0\n",
	} {
		if !strings.Contains(string(prog), want) {
			t.Errorf("program lacks %q:\n%s", want, prog)
		}
	}
}

func TestCompileRefuses(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"random notify period", `{"tasks": {"w": {"timer": {"ref": "t", "period": {"dist": "uniform", "min": 10, "max": 20}, "notify": "signal"}, "run": 1}}}`,
			"random period"},
		{"shared signal timer", `{"tasks": {"w": {"instance": 2, "timer": {"ref": "t", "period": 1000, "notify": "signal"}, "run": 1}}}`,
			"waited on by 2 threads"},
		{"callback forks", `{"tasks": {"h": {"timer": {"ref": "t", "period": 1000, "notify": "thread"}, "fork": "cb"},
			"cb": {"instance": 0, "loop": 1, "run": 1, "fork": "x"}, "x": {"instance": 0, "loop": 1, "run": 1}}}`,
			"may only run and sleep"},
		{"helper does more", `{"tasks": {"h": {"timer": {"ref": "t", "period": 1000, "notify": "thread"}, "sleep": 5, "fork": "cb"},
			"cb": {"instance": 0, "loop": 1, "run": 1}}}`,
			"only runs and forks"},
		{"cpus outside --cpus", `{"tasks": {"a": {"cpus": [1], "run": 1}}}`, "outside --cpus 0"},
		{"FIFO", `{"tasks": {"a": {"policy": "SCHED_BATCH", "run": 1}}}`, ""},
	}
	for _, c := range cases {
		spec, err := workload.Parse("t.json", []byte(c.src))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		_, err = compile(spec, []int{0}, nil, 1, "")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want an UnsupportedError containing %q", c.name, err, c.want)
		}
	}
}
