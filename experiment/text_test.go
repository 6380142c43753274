package experiment

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/reproduce.golden")

// The text layout of reproduce on a synthetic result (no simulation):
// the table with each row's spread, the verdict lines, a noise detail and
// the variants' table. Update deliberately: go test ./experiment -run
// TestWriteTextGolden -update.
func TestWriteTextGolden(t *testing.T) {
	rows := []RowResult{
		{Config: "A", Paper: Figures{Max: f(200), Avg: f(100)}, Sim: Figures{Max: f(210), Avg: f(90.5)}, Ratio: Figures{Max: f(1.05), Avg: f(0.91)},
			Lo: Figures{Max: f(150), Avg: f(80)}, Hi: Figures{Max: f(260), Avg: f(101)}},
		{Config: "B", Paper: Figures{Avg: f(50)}, Sim: Figures{Max: f(120), Avg: f(95)}, Ratio: Figures{Avg: f(1.9)},
			Lo: Figures{Max: f(100), Avg: f(60)}, Hi: Figures{Max: f(140), Avg: f(130)}},
	}
	r := &Result{ID: "synthetic", Title: "a synthetic experiment", Citation: "nobody, nowhere", Load: "none",
		Scenario: "two-hogs", Settings: "cfs-2.6.35", Runs: 10, Duration: "30s", metric: TimerMaxAvg,
		Noise: 1.3, NoiseNote: "made up", Rows: rows,
		Claims: []ClaimResult{
			{Text: "average: A > B", Verdict: WithinNoise, Detail: "avg us: A 90.5 > B 95.0; in 20 % of 120 3-run means; the means miss it by 1.05x (the mails' own spread: 1.30x)",
				WithoutNoise: false, WithNoise: false, NoiseDetail: "the VM's noise: [within the mails' own noise] avg us: A 91.0 > B 94.0"},
			{Text: "maximum: A > B", Verdict: Holds, Holds: true, Detail: "max us: A 210.0 > B 120.0; in 100 % of 120 3-run means", WithoutNoise: true, WithNoise: true},
		},
		Variants: []VariantResult{{Name: "HZ=1000", Why: "another HZ", Scenario: "two-hogs", Settings: "cfs-2.6.35, HZ=1000", Rows: rows,
			Claims: []ClaimResult{{Text: "maximum: A > B", Verdict: DoesNotHold, Detail: "max us: A 1.0 > B 2.0; in 0 % of 120 3-run means"}}}},
	}
	var b strings.Builder
	if err := WriteText(&b, []*Result{r}); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/reproduce.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("reproduce's text changed (rerun with -update if meant):\n%s", b.String())
	}
}
