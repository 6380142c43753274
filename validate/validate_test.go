package validate

import (
	"context"
	"strings"
	"testing"
	"time"

	"schedlab/host"
	"schedlab/internal/hosttest"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/workload"
)

func TestWithSession(t *testing.T) {
	spec, err := workload.Parse("g.json", []byte(`{"global": {"taskgroups": {"/a": {"shares": 2048}}}, "tasks": {
		"x": {"taskgroup": "/a/b", "run": 10}, "y": {"run": 10}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := WithSession(spec)
	var got []string
	for _, g := range s.Groups {
		got = append(got, g.Path+"<"+g.Parent+">"+itoa(g.Shares))
	}
	if want := "/session<>1024 /session/a</session>2048 /session/a/b</session/a>1024"; strings.Join(got, " ") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, " "), want)
	}
	if *s.Tasks[0].Props.TaskGroup != "/session/a/b" || *s.Tasks[1].Props.TaskGroup != "/session" {
		t.Errorf("task groups %q %q", *s.Tasks[0].Props.TaskGroup, *s.Tasks[1].Props.TaskGroup)
	}
	// The original is untouched.
	if spec.Tasks[1].Props.TaskGroup != nil || len(spec.Groups) != 2 {
		t.Errorf("WithSession changed its input")
	}
	// One level more changes nothing for two hogs: each gets half of one CPU.
	oc, err := lab.Simulate(lab.Request{Spec: WithSession(load(t, "two-hogs")), Name: "two-hogs", Policy: Policy, Duration: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range oc.Report.Tasks {
		if task.RuntimeMS < 990 || task.RuntimeMS > 1010 {
			t.Errorf("%s ran %.1f ms of 2 s, want half", task.Comm, task.RuntimeMS)
		}
	}
}

func itoa(n uint64) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

func load(t *testing.T, name string) *workload.Spec {
	t.Helper()
	s, _, err := workload.Load(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompare(t *testing.T) {
	run := func(p50, max report.US, n int) RunStats {
		return RunStats{Timer: Stats{Count: n, Avg: p50, P50: p50, P90: p50, P99: max, Max: max}}
	}
	hostRuns := []RunStats{run(100, 1000, 10), run(120, 3000, 10), run(90, 2000, 10)}
	simRuns := []RunStats{run(95, 5000, 10), run(110, 4000, 10), run(105, 6000, 10)}
	figs := compare(hostRuns, simRuns, "host")
	if len(figs) != 10 {
		t.Fatalf("%d figures, want 10", len(figs))
	}
	p50, max, wake := figs[1], figs[4], figs[5]
	if p50.Stat != "p50" || p50.HostMed != 100 || p50.HostMin != 90 || p50.HostMax != 120 || p50.Sim != 105 || !p50.Inside || p50.Verdict != "inside" {
		t.Errorf("p50 figure %+v", p50)
	}
	// Sim median 5000 against a host spread of 1000–3000 (median 2000).
	if max.Inside || max.Verdict != "high by 2 ms (2.5× host median)" {
		t.Errorf("max figure %+v", max)
	}
	if wake.Latency != "wakeup" || wake.Verdict != "no samples on either side" || wake.Inside {
		t.Errorf("wakeup figure %+v", wake)
	}
	if in, n := tally(figs); in != 3 || n != 5 {
		t.Errorf("tally %d of %d, want 3 of 5 (timer avg, p50 and p90 inside; p99 and max high)", in, n)
	}
	if v := verdict(10, 100, 50, 150, "host"); v != "low by 40 µs (0.1× host median)" {
		t.Errorf("verdict low = %q", v)
	}
}

// One short validation on the host: both sides present, every figure has
// a verdict, and no latency is asserted.
func TestValidateOnHost(t *testing.T) {
	hosttest.Need(t)
	spec := load(t, "sigev-thread")
	res, err := Run(context.Background(), Options{Host: host.Options{Spec: spec, Duration: time.Second, Seed: 1},
		Scenario: "sigev-thread", Runs: 1, RTApp: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Host) != 1 || len(res.Sim) != 1 || len(res.Figures) != 10 {
		t.Fatalf("runs %d/%d, figures %d", len(res.Host), len(res.Sim), len(res.Figures))
	}
	// The simulation gives its 99; a host loaded by other work (other
	// tests, a build) delivers fewer SIGEV_THREAD callbacks in the second
	// (43 seen at load 10), so the host's bound only says it measured.
	if res.Host[0].Timer.Count < 10 || res.Sim[0].Timer.Count < 90 {
		t.Errorf("timer samples: host %d, sim %d, want some on the host and about 100 simulated", res.Host[0].Timer.Count, res.Sim[0].Timer.Count)
	}
	for _, f := range res.Figures {
		if f.Verdict == "" {
			t.Errorf("figure without verdict: %+v", f)
		}
	}
	if !strings.Contains(b0(res), "compared figures inside") {
		t.Errorf("no tally in the text")
	}
	if res.RTApp == nil || res.RTApp.Ran || !strings.Contains(res.RTApp.Why, "fork") && !strings.Contains(res.RTApp.Why, "notify") {
		t.Errorf("rt-app: %+v, want a reason it cannot run sigev-thread", res.RTApp)
	}
}

func b0(r *Result) string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}

// The HTML page has the table, a verdict per compared figure, a bar chart
// per latency and the CDFs of both sides.
func TestPage(t *testing.T) {
	run := func(p50 report.US, n int) RunStats {
		return RunStats{Timer: Stats{Count: n, P50: p50, P90: p50, P99: p50, Max: p50}}
	}
	r := &Result{Scenario: "x", Runs: 2, Policy: Policy, Model: []string{"m"},
		Host: []RunStats{run(100, 5), run(120, 5)}, Sim: []RunStats{run(110, 5), run(90, 5)},
		hostSamples: &Samples{Timer: []int64{100e3, 120e3}}, simSamples: &Samples{Timer: []int64{90e3, 110e3}}}
	r.Figures = compare(r.Host, r.Sim, "host")
	var b strings.Builder
	if err := report.WriteHTML(&b, r.Page()); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, "<svg "); n != 4 {
		t.Errorf("%d charts, want 4 (two bar charts, two CDFs)", n)
	}
	for _, want := range []string{"host beside simulation", "timer latency p50: the simulation lies inside the host", "host median"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(html, "wakeup latency p50: the simulation lies inside") {
		t.Error("a figure without samples got a verdict")
	}
}
