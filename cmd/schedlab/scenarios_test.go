package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestScenariosListsParametricOnes(t *testing.T) {
	out, _, code := schedlab(t, "scenarios")
	if code != 0 {
		t.Fatal(code)
	}
	for _, n := range []string{"two-hogs", "sleeper-vs-hog", "sigev-thread", "wakeup-latency", "calibrated-make-j5", "calibrated-make-j10",
		"wakeup-latency-calibrated-make-j5", "wakeup-latency-calibrated-make-j10", "fair-user-sched", "desktop-make-j10"} {
		if !strings.Contains(out, "\n"+n+" ") && !strings.HasPrefix(out, n+" ") {
			t.Errorf("scenarios does not list %s", n)
		}
	}
	long, _, _ := schedlab(t, "scenarios", "--long")
	for _, w := range []string{"calibrated-make-jN: calibrated-make-j5, calibrated-make-j10, or any calibrated-make-jN with N in 1..100000", "  N=10 ", "cc1_sigma=1 ",
		"period=10000 ", "input_hz=30 ", "uid=2 ", "jitter=20000 ", "--param NAME=VALUE"} {
		if !strings.Contains(long, w) {
			t.Errorf("scenarios output lacks %q", w)
		}
	}
}

func TestParamFlag(t *testing.T) {
	// --param reaches the template: a 5 ms period gives twice the samples.
	count := func(args ...string) float64 {
		out, stderr, code := schedlab(t, append([]string{"run", "wakeup-latency", "--duration", "1s", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		if args != nil && m["scenario"] != "wakeup-latency period=5000" {
			t.Errorf("scenario name %v does not record the parameter", m["scenario"])
		}
		return m["timer_latency"].(map[string]any)["count"].(float64)
	}
	if a, b := count(), count("--param", "period=5000"); a != 99 || b != 199 { // the expiry at 1 s has its callback after the end
		t.Fatalf("samples: %v with the default period, %v with period=5000", a, b)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "calibrated-make-j5", "--param", "jobs=3"}, []string{`unknown parameter "jobs"`, "valid: N, exec"}},
		{[]string{"run", "calibrated-make-j5", "--param", "exec=fast"}, []string{`exec="fast"`, "integer", "valid:"}},
		{[]string{"run", "calibrated-make-j5", "--param", "N=3"}, []string{"set by the name"}},
		{[]string{"run", "calibrated-make-j5", "--param", "exec"}, []string{`--param "exec"`, "NAME=VALUE"}},
		{[]string{"run", "two-hogs", "--param", "N=3"}, []string{"takes no parameters"}},
		{[]string{"scenario", "show", "calibrated-make-j5", "--param", "x=1"}, []string{`unknown parameter "x"`, "valid:"}},
		{[]string{"scenario", "show", "calibrated-make-j0"}, []string{"[1, 100000]"}},
	} {
		stdout, stderr, code := schedlab(t, c.args...)
		if code != 2 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 and one line", c.args, code, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: error %q lacks %q", c.args, strings.TrimSpace(stderr), w)
			}
		}
	}
}

func TestShownTemplateRunsAsFile(t *testing.T) {
	show, _, code := schedlab(t, "scenario", "show", "wakeup-latency-calibrated-make-j3", "--param", "cc1_burst=5000")
	if code != 0 || !json.Valid([]byte(show)) || !strings.Contains(show, `"median": 5000`) {
		t.Fatalf("scenario show: %d %q", code, show)
	}
	p := writeFile(t, "copy.json", show)
	a, _, _ := schedlab(t, "run", "wakeup-latency-calibrated-make-j3", "--param", "cc1_burst=5000", "--duration", "1s")
	b, _, _ := schedlab(t, "run", p, "--duration", "1s")
	if a == "" || strings.SplitN(a, "\n", 2)[1] != strings.SplitN(b, "\n", 2)[1] {
		t.Fatal("a saved rendering of a parametric scenario runs differently")
	}
}

// The list is a table a terminal shows whole: one line per scenario, the
// name first, nothing past 80 columns.
func TestScenariosOneLineEach(t *testing.T) {
	out, _, code := schedlab(t, "scenarios")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	names := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if n := len([]rune(line)); n > 80 && !strings.HasPrefix(line, "parametric:") {
			t.Errorf("%d columns: %q", n, line)
		}
		if strings.HasPrefix(line, "two-hogs ") || strings.HasPrefix(line, "calibrated-make-j10 ") {
			names++
		}
	}
	if names != 2 {
		t.Errorf("rows for two-hogs and calibrated-make-j10 not found:\n%s", out)
	}
	long, _, _ := schedlab(t, "scenarios", "--long")
	if !strings.Contains(long, "cc1_burst=20000") {
		t.Errorf("--long lacks the parameters")
	}
}

func TestSummary(t *testing.T) {
	for in, want := range map[string]string{
		"Seed 003 (2008, FAIR_USER_SCHED), a reconstruction (x; y): two busy loops.": "Seed 003, a reconstruction",
		"Two nice-0 busy loops on one CPU: CFS gives each half of it.":               "Two nice-0 busy loops on one CPU",
		"A very long sentence that goes on and on well past the width we allow":      "A very long sentence that goes on…",
	} {
		if got := summary(in, 36); got != want {
			t.Errorf("summary(%q) = %q, want %q", in, got, want)
		}
	}
}
