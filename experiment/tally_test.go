package experiment

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The tally against hand-counted rows: the band's edges are in, a
// non-positive paper figure is not judged, rows without paper figures and
// the variants do not count.
func TestTally(t *testing.T) {
	res := []*Result{{ID: "a", Rows: []RowResult{
		{Config: "edge", Paper: Figures{Max: f(100), Avg: f(100)}, Sim: Figures{Max: f(150), Avg: f(50)}},
		{Config: "out", Paper: Figures{Max: f(100), Avg: f(1000)}, Sim: Figures{Max: f(151), Avg: f(400)}},
		{Config: "nopaper", Sim: Figures{Max: f(1), Avg: f(1)}},
	}, Variants: []VariantResult{{Name: "v", Rows: []RowResult{{Config: "edge", Paper: Figures{Avg: f(1)}, Sim: Figures{Avg: f(100)}}}}}},
		{ID: "b", Rows: []RowResult{{Config: "zero", Paper: Figures{P50: f(-82.4)}, Sim: Figures{P50: f(6)}},
			{Config: "m", Paper: Figures{P50: f(4000)}, Sim: Figures{P50: f(5999)}},
			// One row of the mail under two readings: one figure, met
			// only if both readings meet it.
			{Config: "N@R1", Paper: Figures{Avg: f(100)}, Sim: Figures{Avg: f(120)}},
			{Config: "N@R2", Paper: Figures{Avg: f(100)}, Sim: Figures{Avg: f(20)}}}}}
	tl := Tally(res)
	if tl.Judged != 6 || tl.Within != 3 || tl.Share != 0.5 || tl.Meets {
		t.Fatalf("tally %+v, want 3 of 6, not met", tl)
	}
	if got := tl.Outside[2]; got != "b N avg 1.20 (R1), 0.20 (R2)" {
		t.Errorf("two readings: %q", got)
	}
	res[1].Rows = res[1].Rows[:2]
	if got := strings.Join(tl.Outside[:2], "; "); got != "a out max 1.51; a out avg 0.40" {
		t.Errorf("outside %q", got)
	}
	if len(tl.NotJudged) != 1 || !strings.Contains(tl.NotJudged[0], "b zero median (paper -82.4 us") {
		t.Errorf("not judged %q", tl.NotJudged)
	}
	res[0].Rows[1].Sim.Max = f(149)
	res[0].Rows[1].Sim.Avg = f(500)
	if tl := Tally(res); tl.Within != 5 || !tl.Meets {
		t.Errorf("all within: %+v", tl)
	}
	var b bytes.Buffer
	if err := WriteTally(&b, Tally(res[:1])); err != nil {
		t.Fatal(err)
	}
	if want := "4 of 4 (100 %); goal at least 75 %: met"; !strings.Contains(b.String(), want) {
		t.Errorf("text %q lacks %q", b.String(), want)
	}
	if data, _ := json.Marshal(Tally(res)); !strings.Contains(string(data), `"within":5,"judged":5`) || !strings.Contains(string(data), `"meets_goal":true`) {
		t.Errorf("JSON %s", data)
	}
	b.Reset()
	if WriteTally(&b, Tally([]*Result{{ID: "none"}})); b.Len() != 0 {
		t.Errorf("no paper figures, yet %q", b.String())
	}
}
