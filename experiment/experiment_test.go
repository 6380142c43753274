package experiment

import (
	"strings"
	"testing"
	"time"

	"schedlab/sched"
	_ "schedlab/sched/cfs"
)

// quick returns a copy of an experiment that runs once, briefly.
func quick(t *testing.T, id string) *Experiment {
	t.Helper()
	exps, err := Lookup([]string{id})
	if err != nil {
		t.Fatal(err)
	}
	e := *exps[0]
	e.Runs, e.Duration = 1, 3*time.Second
	return &e
}

// The rows are computed by the simulator, never copied: a profile whose
// START_DEBIT default is flipped moves the START_DEBIT row.
func TestRowsMoveWithTheModel(t *testing.T) {
	prof, err := sched.Lookup("cfs-2.6.35")
	if err != nil {
		t.Fatal(err)
	}
	flipped := *prof
	flipped.Name = "cfs-2.6.35-no-debit-default"
	flipped.Features = append([]sched.Feature(nil), prof.Features...)
	for i := range flipped.Features {
		if flipped.Features[i].Name == "START_DEBIT" {
			flipped.Features[i].Default = false
		}
	}
	sched.Register(&flipped)

	orig := quick(t, "start-nice")
	orig.Rows = orig.Rows[:1] // START_DEBIT: the row that relies on the default
	copied := *orig
	copied.Policy = flipped.Name
	res, err := Run([]*Experiment{orig, &copied}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := res[0].SimFigures("START_DEBIT")
	b, _ := res[1].SimFigures("START_DEBIT")
	if *a.Avg == *b.Avg {
		t.Fatalf("flipping START_DEBIT's default left the row at %.1f us", *a.Avg)
	}
	// The flipped model behaves like NO_START_DEBIT: lower average latency.
	if !(*b.Avg < *a.Avg) {
		t.Fatalf("without START_DEBIT the average rose: %.1f -> %.1f us", *a.Avg, *b.Avg)
	}
}

func TestRunIsDeterministicAndOrdered(t *testing.T) {
	e := quick(t, "check-preempt-tick")
	r1, err := Run([]*Experiment{e}, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Run([]*Experiment{e}, Options{Workers: 1, Figures: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r1[0].Rows {
		x, y := r1[0].Rows[i], r2[0].Rows[i]
		if x.Config != e.Rows[i].Config || *x.Sim.Avg != *y.Sim.Avg || *x.Sim.Max != *y.Sim.Max {
			t.Fatalf("row %d differs between 2 workers and 1: %+v vs %+v", i, x.Sim, y.Sim)
		}
	}
}

// The HTML page draws the same runs as the table: keeping the figures
// changes no row, and each row's samples are there, pooled over its runs.
func TestPageFromTheSameRuns(t *testing.T) {
	e := quick(t, "fair-user-sched")
	e.Runs = 2
	plain, err := Run([]*Experiment{e}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Page(plain); err == nil {
		t.Error("Page of results run without figures: no error")
	}
	withFigs, err := Run([]*Experiment{e}, Options{Figures: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range withFigs[0].Rows {
		if p := plain[0].Rows[i]; *p.Sim.P50 != *row.Sim.P50 || *p.Sim.Max != *row.Sim.Max {
			t.Errorf("row %s: %+v with figures, %+v without", row.Config, row.Sim, p.Sim)
		}
		f := withFigs[0].figures[i]
		if len(f.timer) == 0 || f.timeline == nil {
			t.Errorf("row %s: %d samples, timeline %v", row.Config, len(f.timer), f.timeline != nil)
		}
	}
	page, err := Page(withFigs)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Sections) != 1 || len(page.Sections[0].Figures) == 0 {
		t.Errorf("page: %d sections", len(page.Sections))
	}
}

func TestRowLabelsAreTheDesigns(t *testing.T) {
	want := map[string][]string{
		"fork-expedited":     {"baseline", "TIMER_FORK_EXPEDITED"},
		"start-nice":         {"START_DEBIT", "NO_START_DEBIT", "START_NICE@R1", "START_NICE@R2"},
		"fair-user-sched":    {"FAIR_USER_SCHED", "FAIR_USER_SCHED+fix", "no-groups", "same-uid"},
		"check-preempt-tick": {"mainline", "check_preempt", "min_gran", "both"},
		"eevdf-today": {"eevdf-6.6", "eevdf-6.12", "eevdf-6.18", "eevdf-7.2", "6.12 NO_PLACE_DL_INIT", "6.18 NO_PLACE_DL_INIT", "7.2 NO_PLACE_DL_INIT",
			"6.12 TIMER_FORK_EXP", "6.18 TIMER_FORK_EXP", "7.2 TIMER_FORK_EXP", "6.12 START_NICE", "6.18 START_NICE", "7.2 START_NICE"},
	}
	for _, e := range All() {
		w := want[e.ID]
		if len(w) != len(e.Rows) {
			t.Fatalf("%s: %d rows", e.ID, len(e.Rows))
		}
		for i, r := range e.Rows {
			if r.Config != w[i] {
				t.Errorf("%s row %d: %q, want %q", e.ID, i, r.Config, w[i])
			}
		}
	}
	if _, err := Lookup([]string{"nope"}); err == nil {
		t.Error("unknown experiment accepted")
	}
}

// A variant replaces what it names and nothing else: HZ=1000 keeps the
// calibrated load and the row's settings; the kbuild load keeps the HZ.
func TestVariantRequests(t *testing.T) {
	exps, _ := Lookup([]string{"check-preempt-tick"})
	e := exps[0]
	row := e.Rows[2] // min_gran
	for _, v := range e.Variants {
		req, err := e.request(row, &v, 1)
		if err != nil {
			t.Fatal(err)
		}
		hz := req.Tunables["HZ"]
		switch v.Name {
		case "HZ=1000":
			if hz != 1000 || req.Name != "wakeup-latency-calibrated-make-j10 cc1_io=300000" {
				t.Errorf("%s: HZ %d, scenario %s", v.Name, hz, req.Name)
			}
		case "kbuild":
			if hz != calibrationHZ || !strings.HasPrefix(req.Name, "wakeup-latency-make-j10") {
				t.Errorf("%s: HZ %d, scenario %s", v.Name, hz, req.Name)
			}
		}
		if req.Tunables["sched_min_granularity_ns"] != 750000 || req.Tunables["arch"] != 32 {
			t.Errorf("%s: the row's and the machine's settings lost: %v", v.Name, req.Tunables)
		}
	}
	if len(e.Variants) != 3 {
		t.Errorf("%d variants", len(e.Variants))
	}
}
