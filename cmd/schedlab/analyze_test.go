package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"schedlab/lab"
)

// analyzeRun runs the analyze command in-process (main.go registers it;
// calling analyzeCmd directly keeps these tests independent of that).
func analyzeRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := analyzeCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

// TestTraceRoundTrip: a simulation's trace, read back by analyze, gives
// the run's own report: the same latency statistics, histograms and task
// table, to the nanosecond.
func TestTraceRoundTrip(t *testing.T) {
	// Two hogs pinned to CPU 0 of 3 leave capacity idle while one waits.
	pinned := writeFile(t, "pinned.json", `{"tasks": {"hog": {"instance": 2, "cpus": [0], "run": 100000},
		"tick": {"timer": {"ref": "t", "period": 3000}, "run": 200}}}`)
	for _, c := range [][]string{
		{"wakeup-latency-calibrated-make-j10", "--cpus", "2", "--duration", "5s", "--seed", "3"},
		{"sigev-thread", "--duration", "3s", "--features", "NO_START_DEBIT"},
		{pinned, "--cpus", "3", "--duration", "2s"},
	} {
		path := filepath.Join(t.TempDir(), "trace.txt")
		runOut, stderr, code := schedlab(t, append([]string{"run", "--json", "--trace", path}, c...)...)
		if code != 0 {
			t.Fatalf("run %v: exit %d: %s", c, code, stderr)
		}
		anOut, err := analyzeRun(t, path, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var run, an map[string]any
		if err := json.Unmarshal([]byte(runOut), &run); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(anOut), &an); err != nil {
			t.Fatal(err)
		}
		if c[0] == pinned && run["wasted_capacity_ms"].(float64) == 0 {
			t.Errorf("pinned hogs wasted no capacity")
		}
		for _, k := range []string{"scenario", "policy", "seed", "sim_ns", "cpus", "timer_latency", "wakeup_latency", "tasks", "wasted_capacity_ms"} {
			if !reflect.DeepEqual(run[k], an[k]) {
				t.Errorf("%v: %s differs:\nrun     %v\nanalyze %v", c, k, run[k], an[k])
			}
		}
		tr := an["trace"].(map[string]any)
		if tr["unparsable_lines"] != 0.0 || tr["lost_lines"] != 0.0 || tr["truncated_last_line"] != false || tr["marks"].(float64) == 0 {
			t.Errorf("%v: trace counts %v", c, tr)
		}
		t.Logf("%v: %v timer samples, %v wakeup samples, %v tasks, %v ms wasted capacity: identical", c[0], run["timer_latency"].(map[string]any)["count"],
			run["wakeup_latency"].(map[string]any)["count"], len(run["tasks"].([]any)), run["wasted_capacity_ms"])

		// The text report is run's too, from the latencies on.
		runText, _, _ := schedlab(t, append([]string{"run", "--hist"}, c...)...)
		anText, err := analyzeRun(t, path, "--hist")
		if err != nil {
			t.Fatal(err)
		}
		_, rt, _ := strings.Cut(runText, "\n\n")
		_, at, _ := strings.Cut(anText, "\n\n")
		if rt != at || !strings.Contains(at, "usecs               : count    distribution") {
			t.Errorf("%v: text differs:\n--- run\n%s\n--- analyze\n%s", c, runText, anText)
		}
		if !strings.HasPrefix(anText, "trace "+path+": tracefs text") || !strings.Contains(anText, "written by schedlab run: scenario ") {
			t.Errorf("headline: %.200s", anText)
		}
	}
}

// TestAnalyzeFixtures reads the recorded traces of trace/testdata and
// checks that what each lacks is reported and counted.
func TestAnalyzeFixtures(t *testing.T) {
	for _, c := range []struct {
		file   string
		counts map[string]any
		notes  []string
	}{
		{"host-6.18-trace.txt", map[string]any{"marks": 16.0, "unparsable_lines": 0.0}, []string{"timer latency (callback start - timer expiry):  n=8 "}},
		{"host-6.18-overrun.txt", map[string]any{"overwritten_events": 13398.0, "late_cpu_buffers": 1.0},
			[]string{"overwrote 13398 events", "1 CPU buffer(s) started late", "statistics start at the last, 3630.718433 s"}},
		{"host-6.18-trace_pipe.txt", map[string]any{"lost_lines": 5.0, "lost_events": 12911.0, "truncated_last_line": true},
			[]string{"5 lost-events lines (12911 events lost)", "the last line has no newline"}},
		{"perf-6.1-script.txt", map[string]any{"other_events": 148.0}, []string{"perf script text", "other events ignored: sched_stat_runtime 148"}},
		{"linux-2.6.31.txt", map[string]any{"sched_events": 10.0}, []string{"no sched_waking events", "wakeup latency (sched_waking - switch-in):      n=2 avg 245.0"}},
		{"trace-cmd-report.txt", map[string]any{"lost_lines": 1.0, "lost_events": 12.0}, []string{"trace-cmd report text", "sched plugin"}},
	} {
		path := filepath.Join("..", "..", "trace", "testdata", c.file)
		js, err := analyzeRun(t, path, "--json")
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		var doc struct {
			Trace map[string]any `json:"trace"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		for k, v := range c.counts {
			if doc.Trace[k] != v {
				t.Errorf("%s: trace.%s = %v, want %v", c.file, k, doc.Trace[k], v)
			}
		}
		text, err := analyzeRun(t, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range c.notes {
			if !strings.Contains(text, n) {
				t.Errorf("%s: report lacks %q:\n%s", c.file, n, text)
			}
		}
	}
}

// TestAnalyzeBadInput: a clear one-line InputError (exit status 2) for
// what is not a trace.
func TestAnalyzeBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ name, path, want string }{
		{"missing", filepath.Join(dir, "nope.txt"), "no such file"},
		{"directory", dir, "is a directory"},
		{"empty", file("empty.txt", ""), "empty.txt is empty"},
		{"not a trace", file("w.json", `{"tasks": {"a": {"run": 1}}}`+"\n"), "has no ftrace event lines"},
		{"no sched events", file("irq.txt", "# tracer: nop\n  x-5 [000] ..... 1.0: irq_handler_entry: irq=1 name=x\n"), "no sched_switch"},
		{"binary", file("garbage.bin", string([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0})), "not text"},
		{"perf.data", file("perf.data", "PERFILE2\x68\x00\x00"), "perf script -i"},
	} {
		_, err := analyzeRun(t, c.path)
		var ie *lab.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want a one-line InputError with %q", c.name, err, c.want)
		}
	}
	if _, err := analyzeRun(t); err == nil {
		t.Error("no argument: no error")
	}
	// Standard input.
	cmd := analyzeCmd()
	var out bytes.Buffer
	cmd.SetIn(strings.NewReader("x-5 [000] 1.0: sched_waking: comm=x pid=5 prio=120 target_cpu=000\nx-5 [000] 1.5: sched_switch: prev_comm=y prev_pid=6 prev_prio=120 prev_state=S ==> next_comm=x next_pid=5 next_prio=120\n"))
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-"})
	if err := cmd.Execute(); err != nil || !strings.Contains(out.String(), "trace -: ftrace text") || !strings.Contains(out.String(), "n=1 avg 500000.0") {
		t.Errorf("stdin: %v\n%s", err, out.String())
	}
	cmd = analyzeCmd()
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err == nil || err.Error() != "standard input is empty" {
		t.Errorf("empty stdin: %v", err)
	}
}

// TestHTMLAndSVGOutputs: run --html, analyze --html and reproduce --html
// --svg write their files (the rendering itself is tested in report).
func TestHTMLAndSVGOutputs(t *testing.T) {
	dir := t.TempDir()
	runHTML, tr := filepath.Join(dir, "run.html"), filepath.Join(dir, "t.txt")
	if _, stderr, code := schedlab(t, "run", "sigev-thread", "--duration", "1s", "--html", runHTML, "--trace", tr, "--timeline", "50ms"); code != 0 {
		t.Fatalf("run --html: %s", stderr)
	}
	anHTML := filepath.Join(dir, "an.html")
	if _, err := analyzeRun(t, tr, "--html", anHTML, "--timeline", "50ms"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{runHTML, anHTML} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "<svg "); n != 5 || !strings.Contains(string(b), "The first 50 ms, per CPU") {
			t.Errorf("%s: %d charts", p, n)
		}
	}
	repHTML, svgDir := filepath.Join(dir, "rep.html"), filepath.Join(dir, "svg")
	if _, stderr, code := schedlab(t, "reproduce", "fork-expedited", "--html", repHTML, "--svg", svgDir); code != 0 {
		t.Fatalf("reproduce --html: %s", stderr)
	}
	svgs, _ := filepath.Glob(filepath.Join(svgDir, "*.svg"))
	var names []string
	for _, s := range svgs {
		names = append(names, filepath.Base(s))
	}
	want := []string{"fork-expedited-avg.svg", "fork-expedited-hist.svg", "fork-expedited-max.svg", "fork-expedited-tail.svg",
		"fork-expedited-timeline.svg"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("svg files %v, want %v", names, want)
	}
	b, _ := os.ReadFile(repHTML)
	if !strings.Contains(string(b), "TIMER_FORK_EXPEDITED cuts the average latency") || strings.Count(string(b), "<svg ") != len(want) {
		t.Errorf("reproduce page: %d charts", strings.Count(string(b), "<svg "))
	}
	if _, stderr, code := schedlab(t, "run", "sigev-thread", "--html", filepath.Join(dir, "no", "such", "dir.html")); code != 2 || !strings.Contains(stderr, "--html") {
		t.Errorf("unwritable --html: exit %d, %q", code, stderr)
	}
	if _, stderr, code := schedlab(t, "run", "sigev-thread", "--trace", filepath.Join(dir, "no", "t.txt")); code != 2 || !strings.Contains(stderr, "--trace") {
		t.Errorf("unwritable --trace: exit %d, %q", code, stderr)
	}
}
