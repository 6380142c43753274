package fidelity

import (
	"strings"
	"testing"

	"schedlab/lab"
	"schedlab/report"
	"schedlab/validate"
)

// Every case's workload loads and simulates, names are unique, and every
// toggle is a feature or tunable of the model its kernel is compared with
// (a typo would only show after a boot).
func TestSuite(t *testing.T) {
	cases := Suite([]KernelInfo{{Name: "c", Sched: "CFS"}, {Name: "e", Sched: "EEVDF", DelayDequeue: true}})
	if want := 2*len(baselines) + len(cfsToggles) + len(eevdfToggles) + len(delayToggles); len(cases) != want {
		t.Fatalf("%d cases, want %d", len(cases), want)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name()] {
			t.Errorf("two cases named %s", c.Name())
		}
		seen[c.Name()] = true
		_, spec, err := c.Load()
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		// A CFS kernel is 5.10 (cfs-2.6.36) or 6.1 (cfs-6.1).
		for _, policy := range map[string][]string{"c": {"cfs-2.6.36", "cfs-6.1"}, "e": {"eevdf-6.18"}}[c.Kernel] {
			if f := c.Features(); f != nil {
				if err := lab.CheckFeatures(policy, f); err != nil {
					t.Errorf("%s: %v", c.Name(), err)
				}
			}
			for _, kv := range c.Set() {
				if _, err := lab.ParseTunables(policy, []string{kv[0] + "=" + kv[1]}); err != nil {
					t.Errorf("%s: %v", c.Name(), err)
				}
			}
		}
		policy := map[string]string{"c": "cfs-2.6.36", "e": "eevdf-6.18"}[c.Kernel]
		if c.Kernel == "c" && c.Toggle == "" {
			if _, err := lab.Simulate(lab.Request{Spec: spec, Name: c.Workload, Policy: policy, CPUs: 1, Duration: 2e8, Seed: 1}); err != nil {
				t.Errorf("%s: %v", c.Name(), err)
			}
		}
	}
	if !seen["c/wakeup-latency-calibrated-make-j10--NO_START_DEBIT"] || !seen["e/sleeper-under-hogs--sched_base_slice_ns-3000000"] {
		t.Errorf("names: %v", seen)
	}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		real, lo, hi, sim float64
		agrees, far       bool
	}{
		{100, 90, 110, 105, true, false},  // inside the spread
		{100, 99, 101, 124, true, false},  // within 25 %
		{100, 99, 101, 130, false, false}, // neither
		{100, 60, 300, 250, true, true},   // inside a wide spread, yet 2.5×
		{100, 99, 101, 40, false, true},
	} {
		f := judge("x", c.real, c.lo, c.hi, c.sim)
		if f.Agrees != c.agrees || f.Far != c.far {
			t.Errorf("judge(%v, %v–%v, sim %v) = agrees %v far %v", c.real, c.lo, c.hi, c.sim, f.Agrees, f.Far)
		}
	}
}

// A toggle is judged on the figures it moved on the kernel (spreads apart
// and a 5 % change), by the direction the simulation moved them.
func TestJudgeToggle(t *testing.T) {
	base := []Figure{
		{Name: "timer avg", Real: 100, Lo: 95, Hi: 105, Sim: 100},
		{Name: "timer max", Real: 100, Lo: 50, Hi: 150, Sim: 100},
		{Name: "wakeup avg", Real: 100, Lo: 95, Hi: 105, Sim: 100},
	}
	tog := []Figure{
		{Name: "timer avg", Real: 50, Lo: 45, Hi: 55, Sim: 60},      // down on both: agreed
		{Name: "timer max", Real: 120, Lo: 110, Hi: 130, Sim: 300},  // spreads overlap: not judged
		{Name: "wakeup avg", Real: 200, Lo: 190, Hi: 210, Sim: 101}, // up on the kernel, flat in the model
		{Name: "share a", Real: 0.5, Lo: 0.5, Hi: 0.5, Sim: 0.5},    // no baseline figure
	}
	j := JudgeToggle(Case{Kernel: "k", Workload: "w", Toggle: "NO_X"}, base, tog)
	if j.Judged != 2 || j.Agreed != 1 || len(j.Moves) != 3 {
		t.Fatalf("judged %d agreed %d moves %+v", j.Judged, j.Agreed, j.Moves)
	}
	if m := j.Moves[2]; m.Real != 1 || m.Sim != 0 {
		t.Errorf("wakeup avg move %+v", m)
	}
}

// The report tallies figures and toggles, and shares are compared only
// where a case asks for them.
func TestReport(t *testing.T) {
	run := func(avg report.US, shares map[string]float64) validate.RunStats {
		return validate.RunStats{Timer: validate.Stats{Count: 10, Avg: avg}, Shares: shares}
	}
	res := func(real, sim report.US) *validate.Result {
		r := &validate.Result{Policy: "cfs-2.6.36",
			Host: []validate.RunStats{run(real, map[string]float64{"a": 0.75, "b": 0.25}), run(real+1, map[string]float64{"a": 0.74, "b": 0.26})},
			Sim:  []validate.RunStats{run(sim, map[string]float64{"a": 0.5, "b": 0.5})}}
		r.Figures = []validate.Figure{{Latency: "timer", Stat: "avg", HostMed: real, HostMin: real, HostMax: real + 1, Sim: sim, Compared: true}}
		return r
	}
	base := Case{Kernel: "k", Workload: "nice-pair", Shares: true}
	tog := Case{Kernel: "k", Workload: "nice-pair", Toggle: "NO_X", Shares: true}
	results := map[Case]*validate.Result{base: res(100, 100), tog: res(200, 210)}
	cases := []Case{base, tog, {Kernel: "k", Workload: "gone"}}
	rep := Judge(cases, results)
	// base: timer avg ✓, share a ✗ (0.5 vs 0.75), share b ✗✗ (0.5 vs 0.25 is 2×... exactly 2 is not beyond)
	if rep.Total.N != 6 || rep.Total.Agree != 2 {
		t.Errorf("tally %+v", rep.Total)
	}
	if len(rep.Toggles) != 1 || rep.Toggles[0].Judged != 1 || rep.Toggles[0].Agreed != 1 {
		t.Errorf("toggles %+v", rep.Toggles)
	}
	var b strings.Builder
	WriteMarkdown(&b, cases, results, rep)
	for _, want := range []string{"All kernels: 2 of 6 figures agree", "Toggles: 1 of 1", "Not measured yet (no result): k/gone", "| nice-pair | timer avg |", "share a | 75.0 | 74.0–75.0 | 50.0 | ✗ 0.67× |", "| k | nice-pair | NO_X | 1 | 1 | timer avg ↑/↑ |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}
