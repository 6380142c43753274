package lab

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"schedlab/report"
	"schedlab/trace"
	"schedlab/workload"
)

func load(t *testing.T, name string, params map[string]string) Request {
	t.Helper()
	spec, n, err := workload.Load(name, params)
	if err != nil {
		t.Fatal(err)
	}
	return Request{Spec: spec, Name: n}
}

func TestSimulateOutcome(t *testing.T) {
	req := load(t, "wakeup-latency", map[string]string{"period": "20000"})
	req.Duration, req.Check = time.Second, true
	oc, err := Simulate(req)
	if err != nil {
		t.Fatal(err)
	}
	r := oc.Report
	if r.Scenario != "wakeup-latency period=20000" || r.TimerLatency.Count != 49 || r.Policy != DefaultPolicy || r.CPUs != 1 {
		t.Fatalf("scenario %q policy %s on %d CPUs, %d samples in 1 s of a 20 ms timer", r.Scenario, r.Policy, r.CPUs, r.TimerLatency.Count)
	}
	if oc.Source.Origin != Simulation || oc.Source.Sim == nil || oc.Source.Host != nil || oc.Source.Trace != nil {
		t.Errorf("source %+v", oc.Source)
	}
	if oc.Timer != nil || oc.Timeline != nil {
		t.Errorf("kept samples or a timeline nobody asked for")
	}
	if oc.End != 1e9 || r.SimNS != 1e9 {
		t.Errorf("end %d, sim_ns %d", oc.End, r.SimNS)
	}
	// What Keep asks is kept, and changes nothing else.
	var rec trace.Recorder
	req.Keep = Keep{Samples: true, Timeline: 50 * time.Millisecond, Sink: &rec}
	kept, err := Simulate(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Timer) != 49 || kept.Timeline == nil || len(rec.Events) == 0 || rec.Events[0].Kind != trace.Begin {
		t.Errorf("kept %d samples, timeline %v, %d events (first %v)", len(kept.Timer), kept.Timeline != nil, len(rec.Events), rec.Events[0].Kind)
	}
	if d := cmp.Diff(r, kept.Report, cmpopts.IgnoreFields(report.Run{}, "Engine")); d != "" {
		t.Errorf("keeping samples changed the report (-without +with):\n%s", d)
	}
}

// Typed values are checked as the command line's are, with errors that
// name the value and the valid choices.
func TestRequestChecked(t *testing.T) {
	base := load(t, "two-hogs", nil)
	for _, c := range []struct {
		change func(*Request)
		want   string
	}{
		{func(r *Request) { r.Policy = "bfs" }, "cfs-2.6.35"},
		{func(r *Request) { r.Features = []string{"NO_START_DEBITX"} }, "NO_START_DEBITX"},
		{func(r *Request) { r.Tunables = map[string]int64{"sched_latncy_ns": 1} }, "sched_latency_ns"},
		{func(r *Request) { r.Tunables = map[string]int64{"sched_latency_ns": 5} }, "outside"},
		{func(r *Request) { r.Tunables = map[string]int64{"arch": 16} }, "not one of"},
		{func(r *Request) { r.CPUs = MaxCPUs + 1 }, "1 to 4096"},
		{func(r *Request) { r.Duration = -time.Second }, "positive"},
	} {
		req := base
		c.change(&req)
		_, err := Resolve(req)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an input error with %q", req, err, c.want)
		}
	}
	if _, err := Resolve(Request{}); err == nil {
		t.Error("a request without a workload resolved")
	}
	// Engine parameters and policy tunables share the map; HZ reaches the
	// engine.
	req := base
	req.Tunables = map[string]int64{"HZ": 250, "sched_latency_ns": 20000000}
	cfg, err := Resolve(req)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Params.HZ != 250 || cfg.Sched.Tunable("sched_latency_ns") != 20000000 {
		t.Errorf("HZ %d, latency %d", cfg.Params.HZ, cfg.Sched.Tunable("sched_latency_ns"))
	}
}

func TestParseTunables(t *testing.T) {
	got, err := ParseTunables("", []string{"HZ=100", "sched_latency_ns=10000000", "HZ=250"})
	if err != nil || got["HZ"] != 250 || got["sched_latency_ns"] != 1e7 || len(got) != 2 {
		t.Errorf("got %v, %v", got, err)
	}
	for in, want := range map[string]string{"HZ": "want NAME=VALUE", "HZ=x": "not an integer", "nope=1": "unknown tunable"} {
		if _, err := ParseTunables("", []string{in}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// A simulation written as a trace and read back is the same report: the
// trace path and the simulation share one analysis.
func TestTraceRoundTrip(t *testing.T) {
	text, sim := simTrace(t)
	got, err := AnalyzeTrace("-", strings.NewReader(text), Keep{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Source.Origin != TraceFile || got.Report.Scenario != sim.Report.Scenario {
		t.Errorf("source %v, scenario %q", got.Source.Origin, got.Report.Scenario)
	}
	a, c := sim.Report, got.Report
	for _, d := range []string{
		cmp.Diff(a.TimerLatency, c.TimerLatency), cmp.Diff(a.WakeupLatency, c.WakeupLatency),
		cmp.Diff(a.WastedCapacityMS, c.WastedCapacityMS), cmp.Diff(a.Tasks, c.Tasks),
	} {
		if d != "" {
			t.Errorf("read back differs (-simulated +read):\n%s", d)
		}
	}
}

// The engine's HZ reaches a class that models the tick (eevdf's tick_nsec)
// unless the user sets the tunable; other classes only see the machine.
func TestEngineTickReachesTheClass(t *testing.T) {
	for _, c := range []struct {
		policy string
		set    map[string]int64
		want   int64 // tick_nsec; 0: the policy has none
	}{
		{"eevdf-6.18", nil, 4000000},
		{"eevdf-6.18", map[string]int64{"HZ": 1000}, 1000000},
		{"eevdf-6.6", map[string]int64{"HZ": 300}, 3333333},
		{"eevdf-6.18", map[string]int64{"HZ": 1000, "tick_nsec": 2000000}, 2000000},
		{"cfs-2.6.35", map[string]int64{"HZ": 100}, 0},
	} {
		req := load(t, "two-hogs", nil)
		req.Policy, req.Tunables = c.policy, c.set
		cfg, err := Resolve(req)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := cfg.Sched.Tunables["tick_nsec"]
		if got != c.want || ok != (c.want != 0) || cfg.Sched.TickNS != 1e9/cfg.Params.HZ {
			t.Errorf("%s %v: tick_nsec %d (present %v), machine tick %d; want %d", c.policy, c.set, got, ok, cfg.Sched.TickNS, c.want)
		}
	}
}

// A workload without a timer says so, instead of wakeup-latency.c's
// three lines of zeros.
func TestNoTimerSaid(t *testing.T) {
	for name, want := range map[string]bool{"two-hogs": true, "sleeper-vs-hog": false} {
		req := load(t, name, nil)
		req.Duration = 100 * time.Millisecond
		oc, err := Simulate(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		oc.Report.WriteText(&b, report.TextOptions{})
		said := strings.Contains(b.String(), "no timer in this workload")
		if said != want || said == strings.Contains(b.String(), "maximum latency:") {
			t.Errorf("%s: says no timer %v, want %v:\n%s", name, said, want, b.String())
		}
	}
}

// simTrace is the text of a simulation's trace, and the simulation.
func simTrace(t *testing.T) (string, *Outcome) {
	t.Helper()
	req := load(t, "wakeup-latency-calibrated-make-j5", nil)
	req.CPUs, req.Duration = 2, 2*time.Second
	var b strings.Builder
	w := trace.NewWriter(&b, trace.WriterOptions{CPUs: 2, Meta: [][2]string{{"scenario", req.Name}, {"seed", "0"}}})
	req.Keep.Sink = w
	sim, err := Simulate(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(sim.End); err != nil {
		t.Fatal(err)
	}
	return b.String(), sim
}

var eventTS = regexp.MustCompile(`^(.*\] \S+ +)\d+\.\d+(: .*)$`)

// setTS replaces the timestamp of an event line of schedlab's trace.
func setTS(line, ts string) string { return eventTS.ReplaceAllString(line, "${1}"+ts+"${2}") }

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// One corrupted timestamp, 285 years ahead, costs its one event: the later
// events all count, the report is the clean trace's, and the damage is
// counted and said.
func TestAnalyzeOneCorruptedTimestamp(t *testing.T) {
	text, sim := simTrace(t)
	lines := strings.Split(text, "\n")
	// A sched_wakeup a third of the way in: its sched_waking before it
	// starts the wakeup, so losing it changes no statistic.
	at := -1
	for i := len(lines) / 3; i < len(lines); i++ {
		if strings.Contains(lines[i], " sched_wakeup: ") && strings.Contains(lines[i-1], " sched_waking: ") {
			at = i
			break
		}
	}
	lines[at] = setTS(lines[at], "9000000000.000000000")
	got, err := AnalyzeTrace(writeTemp(t, "corrupted.txt", strings.Join(lines, "\n")), nil, Keep{})
	if err != nil {
		t.Fatal(err)
	}
	a, c := sim.Report, got.Report
	for _, d := range []string{
		cmp.Diff(a.TimerLatency, c.TimerLatency), cmp.Diff(a.WakeupLatency, c.WakeupLatency),
		cmp.Diff(a.WastedCapacityMS, c.WastedCapacityMS), cmp.Diff(a.Tasks, c.Tasks), cmp.Diff(a.SimNS, c.SimNS),
	} {
		if d != "" {
			t.Errorf("the report differs from the clean trace's (-simulated +read):\n%s", d)
		}
	}
	counts := got.Source.Trace.Trace.Counts()
	if counts.Damaged != 1 || counts.ForwardJumps != 1 || counts.SchedEvents+counts.Marks != counts.EventLines-1 {
		t.Errorf("counts %+v, want 1 damaged event", counts)
	}
	note := fmt.Sprintf("1 events had a timestamp ahead of their CPU's next events (a corrupted or misplaced line) and were skipped (first at line %d)", at+1)
	if !slices.Contains(c.Warnings, note) {
		t.Errorf("warnings %q lack %q", c.Warnings, note)
	}
}

// A trace whose timestamps are mostly garbage is bad input (exit status
// 2), named with its counts, not a report of the few events left.
func TestAnalyzeMostlyGarbage(t *testing.T) {
	text, _ := simTrace(t)
	lines := strings.Split(text, "\n")
	r := rand.New(rand.NewPCG(3, 4))
	for i, l := range lines {
		if eventTS.MatchString(l) && r.IntN(10) < 7 {
			lines[i] = setTS(l, fmt.Sprintf("%d.%09d", r.IntN(3), r.IntN(1e9)))
		}
	}
	p := writeTemp(t, "garbage.txt", strings.Join(lines, "\n"))
	_, err := AnalyzeTrace(p, nil, Keep{})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), p+" is too damaged to analyse: ") ||
		!regexp.MustCompile(`: \d+ of its \d+ scheduler events and marks are unusable \(\d+ earlier than their CPU's previous event \(first at line \d+\)`).MatchString(err.Error()) {
		t.Errorf("error %v, want an InputError naming %s and its counts", err, p)
	}
}

// A comm from a trace reaches the text report escaped, and the JSON as it
// was.
func TestAnalyzeEscapesComms(t *testing.T) {
	text := "x-5 [000] d..2. 1.0: sched_waking: comm=\x1b]0;owned\x07 pid=5 prio=120 target_cpu=000\n" +
		"x-5 [000] d..2. 1.5: sched_switch: prev_comm=y prev_pid=6 prev_prio=120 prev_state=S ==> next_comm=\x1b]0;owned\x07 next_pid=5 next_prio=120\n"
	oc, err := AnalyzeTrace("-", strings.NewReader(text), Keep{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := oc.Report.WriteText(&b, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") || !strings.Contains(b.String(), `\x1b]0;owned\x07:5`) {
		t.Errorf("text:\n%q", b.String())
	}
	if oc.Report.Tasks[0].Comm != "\x1b]0;owned\x07" {
		t.Errorf("comm %q", oc.Report.Tasks[0].Comm)
	}
}

// A workload the engine cannot finish (zero-cost events looping at one
// instant) is an input error, as a bad file is: the command exits 2.
func TestWorkloadLoopIsInputError(t *testing.T) {
	spec, err := workload.Parse("loop.json", []byte(`{"tasks": {"y": {"loop": -1, "yield": 0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Simulate(Request{Spec: spec, Name: "loop.json", Tunables: map[string]int64{"cost_yield_ns": 0}})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "simulation of loop.json: the workload makes no progress") {
		t.Fatalf("got %v, want an input error saying the workload makes no progress", err)
	}
}

// A what-if feature (schedlab's own, in no kernel) is in a run's report
// only when it is on, with its tunables and its reconstruction line; off,
// the report is the kernel's, as before the what-if existed.
func TestWhatIfsReportedOnlyWhenOn(t *testing.T) {
	for _, on := range []bool{false, true} {
		req := load(t, "wakeup-latency", nil)
		req.Policy, req.Duration = "eevdf-6.18", 100*time.Millisecond
		if on {
			req.Features = []string{"START_NICE"}
		}
		oc, err := Simulate(req)
		if err != nil {
			t.Fatal(err)
		}
		r := oc.Report
		_, feat := r.Features["START_NICE"]
		_, expFeat := r.Features["TIMER_FORK_EXPEDITED"]
		_, tun := r.Tunables["start_nice_delta"]
		_, def := r.DefaultTunables["start_nice_end"]
		if feat != on || tun != on || def != on || expFeat {
			t.Errorf("START_NICE on=%v: reported START_NICE %v, TIMER_FORK_EXPEDITED %v, start_nice_delta %v, default start_nice_end %v",
				on, feat, expFeat, tun, def)
		}
		want := []string(nil)
		if on {
			want = []string{"START_NICE@R1 (start_nice_delta=3 start_nice_end=0)"}
		}
		if !slices.Equal(r.Reconstructions, want) {
			t.Errorf("START_NICE on=%v: reconstructions %q, want %q", on, r.Reconstructions, want)
		}
		if _, ok := r.Features["PLACE_LAG"]; !ok {
			t.Error("a kernel feature left the report")
		}
	}
}
