package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReproduceJSON(t *testing.T) {
	start := time.Now()
	out, stderr, code := schedlab(t, "reproduce", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("reproduce took %v", time.Since(start))
	var doc struct {
		Experiments []struct {
			ID     string `json:"id"`
			Source string `json:"source"`
			Rows   []struct {
				Config string                 `json:"config"`
				Paper  map[string]*float64    `json:"paper"`
				Sim    map[string]*float64    `json:"sim"`
				SimMin map[string]*float64    `json:"sim_min"`
				SimMax map[string]*float64    `json:"sim_max"`
				Other  map[string]interface{} `json:"-"`
			} `json:"rows"`
			Claims []struct {
				Text    string `json:"text"`
				Holds   *bool  `json:"holds"`
				Verdict string `json:"verdict"`
			} `json:"claims"`
		} `json:"experiments"`
		PaperFigures struct {
			Within, Judged int
			Share          float64
		} `json:"paper_figures"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// Every paper figure of the four mails but fair-user-sched's
	// non-positive no-groups median is judged.
	if p := doc.PaperFigures; p.Judged != 17 || p.Within > p.Judged || p.Share != float64(p.Within)/float64(p.Judged) {
		t.Errorf("paper_figures %+v, want 17 judged (one per figure of the mails)", p)
	}
	want := map[string]string{"fork-expedited": "000_", "start-nice": "002_", "fair-user-sched": "003_", "check-preempt-tick": "004_", "eevdf-today": "(none"}
	if len(doc.Experiments) != 5 {
		t.Fatalf("%d experiments", len(doc.Experiments))
	}
	for _, e := range doc.Experiments {
		if !strings.HasPrefix(e.Source, want[e.ID]) {
			t.Errorf("%s: source %q", e.ID, e.Source)
		}
		if len(e.Claims) == 0 {
			t.Errorf("%s: no claims", e.ID)
		}
		for _, c := range e.Claims {
			if c.Text == "" || c.Holds == nil {
				t.Errorf("%s: claim without text or verdict", e.ID)
			}
			switch c.Verdict {
			case "holds", "within the mails' own noise", "does not hold":
			default:
				t.Errorf("%s: claim %q: verdict %q", e.ID, c.Text, c.Verdict)
			}
			if (c.Verdict == "holds") != *c.Holds {
				t.Errorf("%s: claim %q: holds %v but verdict %q", e.ID, c.Text, *c.Holds, c.Verdict)
			}
		}
		for _, r := range e.Rows {
			key := "avg_us"
			if e.ID == "fair-user-sched" {
				key = "p50_us"
			}
			if _, ok := r.Paper[key]; !ok {
				t.Errorf("%s/%s: paper lacks %s", e.ID, r.Config, key)
			}
			if v, ok := r.Sim[key]; !ok || v == nil {
				t.Errorf("%s/%s: sim lacks %s", e.ID, r.Config, key)
			}
			if _, ok := r.Sim["max_us"]; !ok {
				t.Errorf("%s/%s: sim lacks max_us", e.ID, r.Config)
			}
			// The spread over the runs brackets their mean.
			if lo, hi := r.SimMin[key], r.SimMax[key]; lo == nil || hi == nil || *lo > *r.Sim[key]+0.05 || *hi < *r.Sim[key]-0.05 {
				t.Errorf("%s/%s: %s range %v-%v does not bracket %v", e.ID, r.Config, key, lo, hi, *r.Sim[key])
			}
		}
	}
}

func TestReproduceOneAndUnknown(t *testing.T) {
	out, _, code := schedlab(t, "reproduce", "fair-user-sched")
	if code != 0 || !strings.Contains(out, "== fair-user-sched") || strings.Contains(out, "== start-nice") {
		t.Fatalf("reproduce fair-user-sched: %d\n%s", code, out)
	}
	_, stderr, code := schedlab(t, "reproduce", "nope")
	if code != 2 || !strings.Contains(stderr, "check-preempt-tick") {
		t.Fatalf("unknown experiment: %d %q", code, stderr)
	}
}

// --kernel-from: a kept column instead of a measured one, never both; a
// file that is not there or holds none of the experiments asked for is a
// one-line error naming it.
func TestReproduceKernelFromErrors(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"experiments": [{"id": "start-nice", "kernel": {"name": "k"}, "rows": []}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kernel", "debian-6.1", "--kernel-from", other}, "give one of them"},
		{[]string{"--kernel-from", filepath.Join(dir, "none.json")}, "none.json"},
		{[]string{"fair-user-sched", "--kernel-from", other}, "has one for: start-nice"},
	} {
		_, stderr, code := schedlab(t, append([]string{"reproduce"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
