package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"schedlab/internal/hosttest"
)

// fakeKernel stands for a VM: it records each row's run and answers with
// figures made from the row's settings, so that a test can tell the rows
// apart.
type fakeKernel struct {
	sched string
	runs  []KernelRun
}

func (f *fakeKernel) Name() string    { return "fake-6.1" }
func (f *fakeKernel) Release() string { return "6.1.0-fake" }
func (f *fakeKernel) Sched() string   { return f.sched }
func (f *fakeKernel) Measure(_ context.Context, r KernelRun) ([]KernelFigures, error) {
	f.runs = append(f.runs, r)
	var out []KernelFigures
	for i := range r.Runs {
		// 1000 µs more with START_DEBIT, and the run's index, so that
		// the mean and extremes are checkable by hand.
		base := 1000.0
		if slices.Contains(r.Features, "START_DEBIT") {
			base = 2000
		}
		out = append(out, KernelFigures{Max: 10 * base, Avg: base + float64(i), P50: base / 2})
	}
	return out, nil
}

func kernelRows(t *testing.T, sched string, ids ...string) ([]*Result, *fakeKernel) {
	t.Helper()
	exps, err := Lookup(ids)
	if err != nil {
		t.Fatal(err)
	}
	var quickExps []*Experiment
	for _, e := range exps {
		c := *e
		c.Runs, c.Duration, c.Variants = 1, 200*time.Millisecond, nil
		quickExps = append(quickExps, &c)
	}
	fk := &fakeKernel{sched: sched}
	res, err := Run(quickExps, Options{NoNoiseCheck: true, Kernel: &KernelOptions{Measurer: fk, Runs: 3, Duration: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return res, fk
}

// Which rows a CFS kernel expresses, with what it is told, and the
// column's figures: the means and extremes of the runs.
func TestKernelColumnCFS(t *testing.T) {
	res, fk := kernelRows(t, "CFS", "start-nice", "check-preempt-tick", "fair-user-sched")
	want := map[string]map[string]string{
		"start-nice": {"START_DEBIT": "START_DEBIT sched_min_granularity_ns=750000", "NO_START_DEBIT": "NO_START_DEBIT sched_min_granularity_ns=750000",
			"START_NICE@R1": "", "START_NICE@R2": ""},
		"check-preempt-tick": {"mainline": "START_DEBIT sched_min_granularity_ns=2000000", "check_preempt": "",
			"min_gran": "START_DEBIT sched_min_granularity_ns=750000", "both": ""},
		"fair-user-sched": {"FAIR_USER_SCHED": "START_DEBIT sched_min_granularity_ns=4000000", "FAIR_USER_SCHED+fix": "", "no-groups": "",
			"same-uid": "START_DEBIT sched_min_granularity_ns=4000000"},
	}
	for _, r := range res {
		if r.Kernel == nil || r.Kernel.Release != "6.1.0-fake" || r.Kernel.Runs != 3 {
			t.Fatalf("%s: column head %+v", r.ID, r.Kernel)
		}
		for _, row := range r.Rows {
			k := row.Kernel
			w, ok := want[r.ID][row.Config]
			if !ok {
				t.Fatalf("%s: unexpected row %s", r.ID, row.Config)
			}
			got := strings.Join(append(append([]string{}, k.Features...), k.Set...), " ")
			if k.Expressible != (w != "") || got != w {
				t.Errorf("%s %s: expressible %v with %q (%s), want %q", r.ID, row.Config, k.Expressible, got, k.Why, w)
			}
			if !k.Expressible {
				if !strings.HasPrefix(k.Why, "not expressible: ") || k.Avg != nil {
					t.Errorf("%s %s: %+v", r.ID, row.Config, k)
				}
				continue
			}
			base := 1000.0
			if slices.Contains(k.Features, "START_DEBIT") {
				base = 2000
			}
			if *k.Avg != base+1 || *k.Lo.Avg != base || *k.Hi.Avg != base+2 || *k.Max != 10*base {
				t.Errorf("%s %s: avg %v (%v-%v) max %v, want %v (%v-%v) %v", r.ID, row.Config, *k.Avg, *k.Lo.Avg, *k.Hi.Avg, *k.Max, base+1, base, base+2, 10*base)
			}
			if (r.ID == "fair-user-sched") != (k.P50 != nil) {
				t.Errorf("%s %s: p50 %v", r.ID, row.Config, k.P50)
			}
		}
	}
	// One boot per expressible row, with the row's workload and seeds 1-3.
	if len(fk.runs) != 6 {
		t.Fatalf("%d boots, want 6", len(fk.runs))
	}
	for _, kr := range fk.runs {
		if kr.Runs != 3 || kr.Seed != 1 || kr.Duration != time.Second {
			t.Errorf("run %+v", kr)
		}
	}
	if fk.runs[5].Scenario != "fair-user-sched" || fk.runs[5].Params["uid"] != "1" {
		t.Errorf("same-uid ran %s %v", fk.runs[5].Scenario, fk.runs[5].Params)
	}
	if fk.runs[0].Scenario != "wakeup-latency-calibrated-make-j10" || fk.runs[0].Params["cc1_io"] != calibrationIO {
		t.Errorf("START_DEBIT ran %s %v", fk.runs[0].Scenario, fk.runs[0].Params)
	}
	// The simulated machine (arch, HZ) and the patch common to the rows
	// are named as not applied.
	if got := fmt.Sprint(res[0].Kernel.NotApplied); got != "[CPT_FIX arch=32 HZ=100]" {
		t.Errorf("start-nice not applied: %s", got)
	}

	// JSON: a "kernel" key per row and in the head.
	b, err := json.Marshal(res[0])
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Kernel struct{ Release string }
		Rows   []struct {
			Kernel map[string]any
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Kernel.Release != "6.1.0-fake" || got.Rows[0].Kernel["avg_us"] != 2001.0 || got.Rows[0].Kernel["release"] != "6.1.0-fake" ||
		got.Rows[0].Kernel["runs"] != 3.0 || got.Rows[2].Kernel["expressible"] != false {
		t.Errorf("JSON %s", b)
	}

	// Text: the column and its head.
	var text strings.Builder
	if err := WriteText(&text, res[:1]); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"kernel max", "2001.0", "2000-2002", "not expressible: START_NICE is no sched feature", "kernel: fake-6.1 (Linux 6.1.0-fake, CFS)"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
}

// An EEVDF kernel has no START_DEBIT and no min_granularity: only the
// rows that switch neither run, and the experiment's setting of them is
// not applied.
func TestKernelColumnEEVDF(t *testing.T) {
	res, fk := kernelRows(t, "EEVDF", "check-preempt-tick")
	var expressible []string
	for _, row := range res[0].Rows {
		if row.Kernel.Expressible {
			expressible = append(expressible, row.Config)
		}
	}
	if fmt.Sprint(expressible) != "[mainline]" || len(fk.runs) != 1 {
		t.Fatalf("expressible %v, %d boots", expressible, len(fk.runs))
	}
	if got := fmt.Sprint(fk.runs[0].Features, fk.runs[0].Set); got != "[PLACE_DEADLINE_INITIAL] []" {
		t.Errorf("mainline on EEVDF: %s", got)
	}
}

// eevdf-today on an EEVDF kernel: the kernels and PLACE_DEADLINE_INITIAL's
// rows run; the what-ifs' rows do not, and say that no kernel has them.
func TestKernelColumnWhatIfs(t *testing.T) {
	res, _ := kernelRows(t, "EEVDF", "eevdf-today")
	n := 0
	for _, row := range res[0].Rows {
		whatIf := strings.Contains(row.Config, "TIMER_FORK_EXP") || strings.Contains(row.Config, "START_NICE")
		k := row.Kernel
		if k.Expressible == whatIf {
			t.Errorf("%s: expressible %v (%s)", row.Config, k.Expressible, k.Why)
		}
		if whatIf {
			n++
			if !strings.Contains(k.Why, "what-if") || !strings.Contains(k.Why, "no kernel has such a feature") {
				t.Errorf("%s: %q", row.Config, k.Why)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d what-if rows, want 6", n)
	}
}

// Without the column nothing of it is in the JSON.
func TestNoKernelNoKey(t *testing.T) {
	e := quick(t, "fork-expedited")
	e.Variants, e.Duration = nil, 200*time.Millisecond
	res, err := Run([]*Experiment{e}, Options{NoNoiseCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), `"kernel":`) {
		t.Errorf("a kernel key without --kernel: %s", b)
	}
}

// TestMain makes this test binary a guest's init when TestKernelColumnInVM
// boots it.
func TestMain(m *testing.M) { hosttest.Main(m) }

// One row on Debian's 6.1 in a VM, as short as it can be: fork-expedited's
// baseline (its other row is an RFC feature, not expressible), one run of
// 1 s. No latency is asserted: that the row ran, with samples.
func TestKernelColumnInVM(t *testing.T) {
	k := hosttest.Kernel(t, "debian-6.1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := quick(t, "fork-expedited")
	e.Variants, e.Duration = nil, 200*time.Millisecond
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run([]*Experiment{e}, Options{NoNoiseCheck: true, Kernel: &KernelOptions{
		Measurer: &VMMeasurer{K: k, Init: exe, Warmup: 100 * time.Millisecond, Log: &log}, Runs: 1, Duration: time.Second, Context: ctx}})
	t.Logf("%s", log.String())
	if err != nil {
		t.Fatal(err)
	}
	base, rfc := res[0].Rows[0].Kernel, res[0].Rows[1].Kernel
	if !base.Expressible || base.Runs != 1 || base.Avg == nil || *base.Avg <= 0 || *base.Max < *base.Avg || base.Release != k.Release {
		t.Errorf("baseline on %s: %+v", k.Name, base)
	}
	if rfc.Expressible {
		t.Errorf("TIMER_FORK_EXPEDITED ran on a real kernel: %+v", rfc)
	}
	t.Logf("baseline on Linux %s: avg %.1f max %.1f us", k.Release, *base.Avg, *base.Max)
}

// The HTML report has the column as a table, with what the kernel was
// told and why a row did not run.
func TestKernelColumnPage(t *testing.T) {
	e := quick(t, "fork-expedited")
	e.Variants, e.Duration = nil, 200*time.Millisecond
	res, err := Run([]*Experiment{e}, Options{NoNoiseCheck: true, Figures: true,
		Kernel: &KernelOptions{Measurer: &fakeKernel{sched: "CFS"}, Runs: 2, Duration: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := Page(res)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, tb := range page.Sections[0].Tables {
		if strings.HasPrefix(tb.Caption, "On a real kernel: fake-6.1 (Linux 6.1.0-fake, CFS)") {
			found = true
			if len(tb.Rows) != 2 || tb.Rows[0][3] != "2001 (2000–2001)" && tb.Rows[0][3] != "2000 (2000–2001)" ||
				!strings.HasPrefix(tb.Rows[1][7], "not expressible: ") {
				t.Errorf("rows %q", tb.Rows)
			}
		}
	}
	if !found {
		t.Errorf("no kernel table in the page")
	}
}

// A kept column shows again as it was measured: reproduce --kernel --json,
// read back into a run without --kernel, gives the same figures, ranges
// and text, and says it is kept; a row whose switches changed since says
// so; a file without the experiments is an error naming what it has.
func TestKeptKernel(t *testing.T) {
	ids := []string{"start-nice", "fair-user-sched"}
	measured, _ := kernelRows(t, "CFS", ids...)
	data, err := json.Marshal(map[string]any{"experiments": measured})
	if err != nil {
		t.Fatal(err)
	}
	exps, _ := Lookup(ids)
	for _, e := range exps {
		e.Runs, e.Duration, e.Variants = 1, 200*time.Millisecond, nil
	}
	again, err := Run(exps, Options{NoNoiseCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := KeptKernel(exps, again, data, "kept.json"); err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	WriteText(&a, measured)
	WriteText(&b, again)
	var want strings.Builder
	for _, line := range strings.SplitAfter(a.String(), "\n") {
		want.WriteString(line)
		if strings.HasPrefix(line, "   kernel: ") {
			want.WriteString("   kernel column kept in kept.json (measured then, not now)\n")
		}
	}
	if b.String() != want.String() {
		t.Errorf("kept column's text differs from the measured one:\n%s\nwant\n%s", b.String(), want.String())
	}
	for i, r := range again {
		for j, row := range r.Rows {
			k, m := row.Kernel, measured[i].Rows[j].Kernel
			if k.Expressible && (*k.Avg != *m.Avg || *k.Lo.Max != *m.Lo.Max || *k.Hi.Avg != *m.Hi.Avg || len(k.PerRun) != 3) {
				t.Errorf("%s %s: kept %+v, measured %+v", r.ID, row.Config, k, m)
			}
		}
	}

	// The row now asks for another tunable than its kept run was told.
	changed := strings.Replace(string(data), `"sched_min_granularity_ns=750000"`, `"sched_min_granularity_ns=1000000"`, 1)
	again, _ = Run(exps, Options{NoNoiseCheck: true})
	if err := KeptKernel(exps, again, []byte(changed), "kept.json"); err != nil {
		t.Fatal(err)
	}
	if why := again[0].Rows[0].Kernel.Why; !strings.Contains(why, "kept run was told [START_DEBIT] [sched_min_granularity_ns=1000000]") {
		t.Errorf("changed row: %q", why)
	}
	// Twice the same experiment, and a file of other experiments.
	if err := KeptKernel(exps, again, data, "again.json"); err == nil || !strings.Contains(err.Error(), "already (from kept.json)") {
		t.Errorf("second column: %v", err)
	}
	cpt, _ := Lookup([]string{"check-preempt-tick"})
	if err := KeptKernel(cpt, make([]*Result, 1), data, "kept.json"); err == nil || !strings.Contains(err.Error(), "has one for: start-nice, fair-user-sched") {
		t.Errorf("other experiments: %v", err)
	}
	if err := KeptKernel(exps, again, []byte("{"), "bad.json"); err == nil || !strings.HasPrefix(err.Error(), "bad.json: not the JSON of reproduce --json") {
		t.Errorf("bad JSON: %v", err)
	}
}
