package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "schedlab-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "schedlab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func schedlab(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadInput(t *testing.T) {
	malformed := writeFile(t, "bad.json", "{\n  \"tasks\": {\n    \"a\" {\"run\": 1}\n  }\n}\n")
	unknownEvent := writeFile(t, "ev.json", `{"tasks": {"a": {"run": 10, "lock0": 3}}}`)
	unknownKey := writeFile(t, "key.json", `{"tasks": {"a": {"run": 10, "priorty": 3}}}`)
	badFork := writeFile(t, "fork.json", `{"tasks": {"a": {"run": 10, "fork": "ghost"}}}`)
	emptyTrace := writeFile(t, "empty.txt", "")
	notTrace := writeFile(t, "notes.txt", "shopping list\n- eggs\n- milk\n")
	garbage := writeFile(t, "garbage.bin", "\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe")
	for _, c := range []struct {
		name string
		args []string
		want []string // substrings of the one-line error
	}{
		{"missing file", []string{"run", "/nonexistent/w.json"}, []string{"/nonexistent/w.json", "no such file"}},
		{"unknown scenario", []string{"run", "no-such-scenario"}, []string{"no-such-scenario", "two-hogs"}},
		{"malformed JSON", []string{"run", malformed}, []string{"bad.json:3:9", "malformed JSON"}},
		{"bad event", []string{"run", unknownEvent}, []string{"lock0", "must name a mutex"}},
		{"unknown key", []string{"run", unknownKey}, []string{"priorty", "valid:", "priority"}},
		{"fork of undefined task", []string{"run", badFork}, []string{"ghost", "defined: a"}},
		{"unknown feature", []string{"run", "two-hogs", "--features", "NO_START_DEBITX"}, []string{"NO_START_DEBITX", "START_DEBIT", "GENTLE_FAIR_SLEEPERS"}},
		{"prefix is not a feature", []string{"run", "two-hogs", "--features", "START"}, []string{`"START"`, "valid:"}},
		{"unknown policy", []string{"run", "two-hogs", "--policy", "bfs"}, []string{"bfs", "cfs-2.6.35", "cfs-2.6.36"}},
		{"unknown subcommand", []string{"scenario", "bogus"}, []string{"bogus", "valid: show"}},
		{"features on no CPUs", []string{"features", "--cpus", "-5"}, []string{"--cpus -5", "4096"}},
		{"run on no CPUs", []string{"run", "two-hogs", "--cpus", "0"}, []string{"--cpus 0", "4096"}},
		{"unknown tunable", []string{"run", "two-hogs", "--set", "sched_latncy_ns=1"}, []string{"sched_latncy_ns", "sched_latency_ns", "HZ"}},
		{"bad tunable value", []string{"run", "two-hogs", "--set", "sched_latency_ns=abc"}, []string{"sched_latency_ns", "abc"}},
		{"out-of-range tunable", []string{"run", "two-hogs", "--set", "sched_latency_ns=5"}, []string{"sched_latency_ns", "outside"}},
		{"negative duration", []string{"run", "two-hogs", "--duration", "-5s"}, []string{"duration", "-5s", "positive"}},
		{"unparsable duration", []string{"run", "two-hogs", "--duration", "soon"}, []string{"duration", "soon"}},
		{"unknown flag", []string{"run", "two-hogs", "--colour"}, []string{"colour"}},
		{"no workload", []string{"run"}, []string{"accepts 1 arg"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
		{"features of unknown policy", []string{"features", "--policy", "x"}, []string{`"x"`, "cfs-2.6.35"}},
		{"show unknown scenario", []string{"scenario", "show", "x"}, []string{`"x"`, "two-hogs"}},
		{"analyze missing trace", []string{"analyze", "/nonexistent/trace.txt"}, []string{"/nonexistent/trace.txt"}},
		{"analyze empty trace", []string{"analyze", emptyTrace}, []string{"empty.txt"}},
		{"analyze a text that is not a trace", []string{"analyze", notTrace}, []string{"notes.txt"}},
		{"analyze binary garbage", []string{"analyze", garbage}, []string{"garbage.bin"}},
	} {
		stdout, stderr, code := schedlab(t, c.args...)
		if code != 2 {
			t.Errorf("%s: exit status %d, want 2 (stderr %q)", c.name, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%s: printed output on error: %q", c.name, stdout)
		}
		if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
			t.Errorf("%s: error is %d lines, want one: %q", c.name, n+1, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: error %q does not mention %q", c.name, strings.TrimSpace(stderr), w)
			}
		}
	}
}

func TestRunJSONKeysAndDeterminism(t *testing.T) {
	get := func() (map[string]any, []byte) {
		out, stderr, code := schedlab(t, "run", "sigev-thread", "--duration", "2s", "--json", "--check")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "engine")
		b, _ := json.Marshal(m)
		return m, b
	}
	m, a := get()
	_, b := get()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ outside \"engine\"")
	}
	for _, k := range []string{"scenario", "policy", "features", "tunables", "seed", "sim_ns", "timer_latency", "wakeup_latency", "tasks"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks key %q", k)
		}
	}
	tl := m["timer_latency"].(map[string]any)
	for _, k := range []string{"count", "avg_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "missed"} {
		if _, ok := tl[k]; !ok {
			t.Errorf("timer_latency lacks %q", k)
		}
	}
	if tl["count"].(float64) < 150 {
		t.Errorf("only %v timer samples in 2 s of a 10 ms timer", tl["count"])
	}
	feats := m["features"].(map[string]any)
	if len(feats) < 14 || feats["START_DEBIT"] != true || feats["NEXT_BUDDY"] != false {
		t.Errorf("features: %v", feats)
	}
	task := m["tasks"].([]any)[0].(map[string]any)
	for _, k := range []string{"comm", "pid", "runtime_ms", "switches", "avg_delay_us", "max_delay_us"} {
		if _, ok := task[k]; !ok {
			t.Errorf("task row lacks %q", k)
		}
	}
}

func TestRunTextEndsWithSeedLines(t *testing.T) {
	out, stderr, code := schedlab(t, "run", "sigev-thread", "--duration", "1s", "--features", "NO_START_DEBIT")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	n := len(lines)
	if n < 3 || !strings.HasPrefix(lines[n-3], "maximum latency: ") || !strings.HasPrefix(lines[n-2], "average latency: ") ||
		!strings.HasPrefix(lines[n-1], "missed timer events: ") || !strings.HasSuffix(lines[n-3], " µs") {
		t.Fatalf("text does not end with wakeup-latency.c's lines:\n%s", out)
	}
	if !strings.Contains(out, "features changed: NO_START_DEBIT") {
		t.Errorf("text does not say which features changed:\n%s", out)
	}
}

func TestFeaturesListsEverything(t *testing.T) {
	out, _, code := schedlab(t, "features", "--policy", "cfs-2.6.36")
	if code != 0 {
		t.Fatal(code)
	}
	for _, w := range []string{"GENTLE_FAIR_SLEEPERS", "START_DEBIT", "WAKEUP_PREEMPT", "NEXT_BUDDY", "LAST_BUDDY", "HRTICK",
		"DOUBLE_TICK", "CACHE_HOT_BUDDY", "[SMP only]", "sched_latency_ns", "sched_min_granularity_ns", "750000",
		"sched_wakeup_granularity_ns", "sched_child_runs_first", "sched_nr_latency", "HZ", "cost_context_switch_ns"} {
		if !strings.Contains(out, w) {
			t.Errorf("features output lacks %q", w)
		}
	}
}

func TestScenarios(t *testing.T) {
	out, _, code := schedlab(t, "scenarios")
	if code != 0 || !strings.Contains(out, "two-hogs") || !strings.Contains(out, "sigev-thread") {
		t.Fatalf("scenarios: %d %q", code, out)
	}
	show, _, code := schedlab(t, "scenario", "show", "two-hogs")
	if code != 0 || !json.Valid([]byte(show)) {
		t.Fatalf("scenario show: %d %q", code, show)
	}
	// A shown scenario, saved and run as a file, gives the same result.
	p := writeFile(t, "copy.json", show)
	a, _, _ := schedlab(t, "run", "two-hogs", "--duration", "1s")
	b, _, _ := schedlab(t, "run", p, "--duration", "1s")
	if strings.SplitN(a, "\n", 2)[1] != strings.SplitN(b, "\n", 2)[1] {
		t.Fatal("a copy of a built-in scenario runs differently")
	}
}

func TestVersion(t *testing.T) {
	out, errOut, code := schedlab(t, "version")
	if code != 0 || !strings.HasPrefix(out, "schedlab ") || !strings.Contains(out, "go1.") || errOut != "" {
		t.Errorf("version: code %d, %q, %q", code, out, errOut)
	}
	flag, _, code := schedlab(t, "--version")
	if code != 0 || flag != out {
		t.Errorf("--version: code %d, %q; want what version prints, %q", code, flag, out)
	}
	// A build stamped from the checkout names its commit.
	stamped := filepath.Join(t.TempDir(), "schedlab")
	if b, err := exec.Command("go", "build", "-buildvcs=true", "-o", stamped, ".").CombinedOutput(); err != nil {
		t.Skipf("no VCS-stamped build here: %v: %s", err, b)
	}
	b, err := exec.Command(stamped, "version").Output()
	if err == nil && strings.Contains(string(b), "commit unknown") {
		// go build stamps only a checkout whose .git is a directory, not a
		// git worktree's .git file.
		t.Skipf("go build stamped no commit in this checkout: %s", b)
	}
	if err != nil || !regexp.MustCompile(`^schedlab \S+, commit [0-9a-f]{12}`).Match(b) {
		t.Errorf("stamped build: %q, %v", b, err)
	}
}

// The per-task table merges a comm's tasks, as perf sched latency does;
// --pids gives a row per task, as perf's -p.
func TestTaskTableByComm(t *testing.T) {
	out, _, code := schedlab(t, "run", "calibrated-make-j10", "--duration", "2s")
	if code != 0 || !regexp.MustCompile(`\n  cc1:\(\d+\) +\|`).MatchString(out) || regexp.MustCompile(`\n  cc1:\d+ `).MatchString(out) {
		t.Errorf("by comm: code %d\n%s", code, out)
	}
	if !strings.Contains(out, "| Max delay start           | Max delay end          |") {
		t.Errorf("header is not perf's:\n%s", out)
	}
	pids, _, _ := schedlab(t, "run", "calibrated-make-j10", "--duration", "2s", "--pids", "--tasks", "1000")
	if !regexp.MustCompile(`\n  cc1:\d+ +\|`).MatchString(pids) || strings.Contains(pids, "cc1:(") {
		t.Errorf("--pids:\n%s", pids)
	}
	// --json: the same rows by comm, and a row per task with --pids; the
	// merged rows add up to the tasks'.
	type row struct {
		Comm     string  `json:"comm"`
		NrTasks  int     `json:"nr_tasks"`
		Switches int     `json:"switches"`
		MaxUS    float64 `json:"max_delay_us"`
	}
	tables := map[bool][]row{}
	for _, perTask := range []bool{false, true} {
		args := []string{"run", "calibrated-make-j10", "--duration", "2s", "--json"}
		if perTask {
			args = append(args, "--pids")
		}
		out, _, code := schedlab(t, args...)
		var r struct{ Tasks []row }
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v", args, code, err)
		}
		tables[perTask] = r.Tasks
	}
	merged := map[string]row{}
	for _, r := range tables[true] {
		if r.NrTasks != 1 {
			t.Errorf("--pids row %+v: nr_tasks is not 1", r)
		}
		m := merged[r.Comm]
		m.NrTasks++
		m.Switches += r.Switches
		m.MaxUS = max(m.MaxUS, r.MaxUS)
		merged[r.Comm] = m
	}
	if len(tables[false]) != len(merged) || merged["cc1"].NrTasks < 2 {
		t.Errorf("%d rows by comm for %d comms (cc1: %d tasks)", len(tables[false]), len(merged), merged["cc1"].NrTasks)
	}
	for _, r := range tables[false] {
		if m := merged[r.Comm]; m.NrTasks != r.NrTasks || m.Switches != r.Switches || m.MaxUS != r.MaxUS {
			t.Errorf("row %+v, per-task rows merged %+v", r, m)
		}
	}
}
