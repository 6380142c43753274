package workload

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func render(t *testing.T, name string, params map[string]string) (*Spec, map[string]any) {
	t.Helper()
	data, err := Scenario(name, params)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) {
		t.Fatalf("%s renders invalid JSON:\n%s", name, data)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(name, data)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, data)
	}
	return s, m
}

func task(t *testing.T, s *Spec, name string) *Task {
	t.Helper()
	for _, tk := range s.Tasks {
		if tk.Name == name {
			return tk
		}
	}
	t.Fatalf("no task %q", name)
	return nil
}

func renderedParams(m map[string]any) map[string]any {
	return m["rendered_from"].(map[string]any)["params"].(map[string]any)
}

func TestTemplateDefaultsAndOverrides(t *testing.T) {
	s, m := render(t, "wakeup-latency", nil)
	h := task(t, s, "sigev-helper").Phases[0].Events
	if h[0].Kind != Timer || h[0].Period != 10e6 || h[1].Dur.Fixed != 30e3 || s.Timers[0].Notify != "thread" || !s.Timers[0].Absolute {
		t.Fatalf("defaults: %+v %+v", h, s.Timers[0])
	}
	if cb := task(t, s, "callback"); cb.Instances != 0 || cb.Loop != 1 || cb.Phases[0].Events[0].Dur.Fixed != 20e3 {
		t.Fatalf("callback: %+v", cb)
	}
	if p := renderedParams(m); p["period"] != 10000.0 || p["helper_run"] != 30.0 || p["callback_run"] != 20.0 {
		t.Fatalf("rendered_from: %v", p)
	}

	s, m = render(t, "wakeup-latency", map[string]string{"period": "5000", "helper_run": " 7"})
	h = task(t, s, "sigev-helper").Phases[0].Events
	if h[0].Period != 5e6 || h[1].Dur.Fixed != 7e3 || task(t, s, "callback").Phases[0].Events[0].Dur.Fixed != 20e3 {
		t.Fatalf("overrides: %+v", h)
	}
	if p := renderedParams(m); p["period"] != 5000.0 || p["helper_run"] != 7.0 {
		t.Fatalf("rendered_from: %v", p)
	}
}

func TestNameSetsN(t *testing.T) {
	for name, n := range map[string]int{"calibrated-make-j5": 5, "calibrated-make-j10": 10, "calibrated-make-j16": 16, "calibrated-make-j1": 1, "calibrated-make-jN": 10,
		"wakeup-latency-calibrated-make-j7": 7, "desktop-make-j3": 3} {
		s, m := render(t, name, nil)
		mk := task(t, s, "make")
		if mk.Phases[1].Name != "spawn" || mk.Phases[1].Loop != n || mk.Phases[1].Events[0].Kind != Fork {
			t.Errorf("%s: make spawns %d jobs, want %d", name, mk.Phases[1].Loop, n)
		}
		if renderedParams(m)["N"] != float64(n) {
			t.Errorf("%s: rendered_from N = %v", name, renderedParams(m)["N"])
		}
	}
	s, _ := render(t, "calibrated-make-jN", map[string]string{"N": "4"})
	if task(t, s, "make").Phases[1].Loop != 4 {
		t.Fatal("calibrated-make-jN with N=4")
	}
}

func TestMakeModel(t *testing.T) {
	s, _ := render(t, "calibrated-make-j10", nil)
	chain := map[string]string{"make": "sh", "sh": "gcc", "gcc": "cc1", "cc1": "as", "as": "sh"}
	for from, to := range chain {
		var forks []string
		for _, ph := range task(t, s, from).Phases {
			for _, ev := range ph.Events {
				if ev.Kind == Fork {
					forks = append(forks, s.Tasks[ev.Fork].Name)
				}
			}
		}
		if len(forks) != 1 || forks[0] != to {
			t.Errorf("%s forks %v, want %s", from, forks, to)
		}
	}
	for _, n := range []string{"sh", "gcc", "cc1", "as"} {
		tk := task(t, s, n)
		if tk.Instances != 0 || tk.Loop != 1 || tk.Phases[0].Events[0].Kind != Run || tk.Phases[0].Events[0].Dur.Fixed != 300e3 {
			t.Errorf("%s: a forked process that runs its exec cost first and exits: %+v", n, tk)
		}
	}
	cc1 := task(t, s, "cc1").Phases[1]
	if cc1.Loop != 9 || cc1.Events[0].Dur.Dist != LogNormal || cc1.Events[0].Dur.Median != 20e6 || cc1.Events[0].Dur.Sigma != 1 ||
		cc1.Events[1].Dur.Dist != Exponential || cc1.Events[1].Dur.Mean != 500e3 {
		t.Fatalf("cc1: %+v", cc1)
	}
	// With σ = 0 every burst is the median: 300 ms / 20 ms.
	s, _ = render(t, "calibrated-make-j10", map[string]string{"cc1_sigma": "0"})
	if l := task(t, s, "cc1").Phases[1].Loop; l != 15 {
		t.Fatalf("σ=0: %d bursts, want 15", l)
	}
	if ev := task(t, s, "make").Phases[2].Events[0]; ev.Kind != Suspend || task(t, s, "make").Phases[2].Loop != -1 {
		t.Fatal("make should wait forever")
	}
}

func TestDesktopAndFairUserSched(t *testing.T) {
	s, _ := render(t, "desktop-make-j10", map[string]string{"input_hz": "50"})
	x := task(t, s, "Xorg").Phases[0]
	if kinds(x) != "timer,run,resume,suspend,run,latency_end" || x.Events[0].Period != 20e6 || s.Timers[0].Notify != "input" {
		t.Fatalf("Xorg: %s %+v", kinds(x), x.Events[0])
	}
	if term := task(t, s, "gnome-terminal").Phases[0]; kinds(term) != "suspend,run,resume" || term.Events[2].Target != "Xorg" {
		t.Fatalf("terminal: %s", kinds(term))
	}
	s, _ = render(t, "fair-user-sched", map[string]string{"uid": "1", "jitter": "0"})
	if *task(t, s, "busy").Props.UID != 1 || task(t, s, "busy").Instances != 2 || *task(t, s, "sleeper").Props.UID != 1 {
		t.Fatal("uids")
	}
	ev := task(t, s, "sleeper").Phases[0].Events
	if ev[0].Dur.Fixed != 50e3 || ev[1].PeriodDur.Dist != Uniform || ev[1].PeriodDur.Min != 10e6 || ev[1].PeriodDur.Max != 10e6 || s.Timers[0].Absolute {
		t.Fatalf("sleeper: %+v", ev)
	}
}

func TestParamErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		params map[string]string
		want   []string
	}{
		{"calibrated-make-j10", map[string]string{"jobs": "3"}, []string{`unknown parameter "jobs"`, "valid: N, exec,", "cc1_sigma"}},
		{"calibrated-make-j10", map[string]string{"exec": "abc"}, []string{`exec="abc"`, "integer in [0, 10000000]", "valid: N,"}},
		{"calibrated-make-j10", map[string]string{"exec": "-1"}, []string{`exec="-1"`, "integer"}},
		{"calibrated-make-j10", map[string]string{"cc1_sigma": "NaN"}, []string{"cc1_sigma", "number in [0, 3]"}},
		{"calibrated-make-j10", map[string]string{"cc1_sigma": "4"}, []string{"cc1_sigma", "[0, 3]"}},
		{"calibrated-make-j10", map[string]string{"N": "3"}, []string{"N is set by the name", "valid:"}},
		{"calibrated-make-j0", nil, []string{`N="0"`, "[1, 100000]", "valid:"}},
		{"calibrated-make-j100001", nil, []string{`N="100001"`}},
		{"wakeup-latency", map[string]string{"N": "3"}, []string{`unknown parameter "N"`, "valid: period, helper_run, callback_run"}},
		{"two-hogs", map[string]string{"N": "3"}, []string{"two-hogs takes no parameters"}},
		{"calibrated-make-j", nil, []string{`no built-in scenario "calibrated-make-j"`, "calibrated-make-j5", "calibrated-make-jN (any N in 1..100000)"}},
		{"calibrated-make-j5x", nil, []string{`no built-in scenario`}},
		// The renamed names say where they went, both ways.
		{"kbuild-j10", nil, []string{`"kbuild-j10" was renamed`, "now make-j10", "calibrated-make-j10"}},
		{"wakeup-latency-kbuild-j5", nil, []string{"now wakeup-latency-make-j5", "wakeup-latency-calibrated-make-j5"}},
		{"make-j65", nil, []string{`N="65"`, "[1, 64]"}},
	} {
		_, err := Scenario(c.name, c.params)
		if err == nil {
			t.Errorf("%s %v: no error", c.name, c.params)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: error is more than one line: %q", c.name, c.params, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: error %q lacks %q", c.name, c.params, err, w)
			}
		}
	}
	f := filepath.Join(t.TempDir(), "w.json")
	if err := os.WriteFile(f, []byte(`{"tasks": {"a": {"run": 1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(f, map[string]string{"N": "1"}); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("params on a file: %v", err)
	}
	if _, name, err := Load("calibrated-make-j3", map[string]string{"exec": "100", "as_run": "9"}); err != nil || name != "calibrated-make-j3 as_run=9 exec=100" {
		t.Errorf("Load with params: %q %v", name, err)
	}
}

func TestScenarioList(t *testing.T) {
	names := map[string]ScenarioInfo{}
	for _, s := range Scenarios() {
		names[s.Name] = s
	}
	for _, n := range []string{"two-hogs", "sleeper-vs-hog", "sigev-thread", "wakeup-latency", "calibrated-make-j5", "calibrated-make-j10",
		"wakeup-latency-calibrated-make-j5", "wakeup-latency-calibrated-make-j10", "fair-user-sched", "desktop-make-j10"} {
		s, ok := names[n]
		if !ok {
			t.Errorf("%s is not listed", n)
			continue
		}
		if s.Template != "" && !strings.Contains(s.Description, "reconstruction") {
			t.Errorf("%s: the description does not say it is a reconstruction: %s", n, s.Description)
		}
	}
	if s := names["calibrated-make-j5"]; s.Template != "calibrated-make-jN" || s.NameParam != "N" || s.Params[0].Name != "N" || s.Params[0].Default != "5" {
		t.Errorf("calibrated-make-j5: %+v", s)
	}
	var order []string
	for _, s := range Scenarios() {
		if strings.HasPrefix(s.Name, "calibrated-make-j") {
			order = append(order, s.Name)
		}
	}
	if strings.Join(order, " ") != "calibrated-make-j5 calibrated-make-j10" {
		t.Errorf("order: %v", order)
	}
	for _, tm := range Templates() {
		_, m := render(t, tm.Listed[0], nil)
		rp := renderedParams(m)
		if len(rp) != len(tm.Params) {
			t.Errorf("%s: rendered_from has %d params, the template declares %d", tm.Name, len(rp), len(tm.Params))
		}
		for _, p := range tm.Params {
			if p.Doc == "" || rp[p.Name] == nil {
				t.Errorf("%s: parameter %s: doc %q, rendered %v", tm.Name, p.Name, p.Doc, rp[p.Name])
			}
		}
	}
}

func TestTemplateHeaderErrors(t *testing.T) {
	body := "{\"tasks\": {\"a\": {\"run\": {{.x}}}}}"
	for _, c := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"a.json.tmpl": body}, "must begin with"},
		{map[string]string{"a.json.tmpl": "{{/*\nparam x int 1 0..\n*/}}" + body}, "want \"param NAME"},
		{map[string]string{"a.json.tmpl": "{{/*\nparam x int 1 5..0 doc\n*/}}" + body}, "range"},
		{map[string]string{"a.json.tmpl": "{{/*\nparam x int 9 0..5 doc\n*/}}" + body}, "default"},
		{map[string]string{"a.json.tmpl": "{{/*\nparam x int 1 0..5 doc\nparam x int 1 0..5 doc\n*/}}" + body}, "declared twice"},
		{map[string]string{"a.json.tmpl": "{{/*\nparm x int 1 0..5 doc\n*/}}" + body}, "unknown directive"},
		{map[string]string{"a.json.tmpl": "{{/*\ninclude b\n*/}}" + body}, "unknown template"},
		{map[string]string{"aN.json.tmpl": "{{/*\nparam N int 1 1..5 doc\n*/}}" + body}, "needs a \"list\""},
		{map[string]string{"aN.json.tmpl": "{{/*\nparam N int 1 1..5 doc\nlist b3\n*/}}" + body}, "does not name it"},
		{map[string]string{"a.json.tmpl": "{{/*\ninclude b\n*/}}" + body, "b.json.tmpl": "{{/*\ninclude a\n*/}}" + body}, "includes itself"},
		{map[string]string{"a.json": body, "a.json.tmpl": "{{/*\nparam x int 1 0..5 doc\n*/}}" + body}, "both"},
	} {
		fsys := fstest.MapFS{}
		for n, d := range c.files {
			fsys["scenarios/"+n] = &fstest.MapFile{Data: []byte(d)}
		}
		if _, err := newLibrary(fsys); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.files, err, c.want)
		}
	}
}

// TestDefaultMakeIsTheProcessBuild: make-jN is the process-level build
// (one definition per job slot, parents woken by their children's exit)
// and calibrated-make-jN the chain model with cc1's I/O wait, which the
// 2010 experiments calibrate.
func TestDefaultMakeIsTheProcessBuild(t *testing.T) {
	has := func(s *Spec, name string) bool {
		for _, t := range s.Tasks {
			if t.Name == name {
				return true
			}
		}
		return false
	}
	def, _ := render(t, "make-j10", nil)
	if !has(def, "fixdep_9") {
		t.Errorf("make-j10 has no fixdep_9: not the process-level build (%d tasks)", len(def.Tasks))
	}
	cal, _ := render(t, "calibrated-make-j10", nil)
	if !has(cal, "cc1") || len(cal.Tasks) != 5 {
		t.Errorf("calibrated-make-j10: want the chain make, sh, gcc, cc1, as; got %d tasks", len(cal.Tasks))
	}
	if _, err := Scenario("wakeup-latency-calibrated-make-j10", map[string]string{"cc1_io": "350000"}); err != nil {
		t.Errorf("wakeup-latency-calibrated-make-j10 cc1_io=350000: %v", err)
	}
	if _, err := Scenario("wakeup-latency-make-j10", map[string]string{"cc1_io": "350000"}); err == nil {
		t.Error("wakeup-latency-make-j10 took cc1_io, a parameter of the chain model")
	}
}
