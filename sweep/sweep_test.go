package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "schedlab/sched/cfs"
)

const grid = `{"scenarios": ["sigev-thread"], "policies": ["cfs-2.6.35", "cfs-2.6.36"],
	"features": [[], ["NO_START_DEBIT"]], "tunables": {"HZ": [250, 1000]}, "seeds": [1, 2, 3], "duration": "1s"}`

func TestPointsAndShards(t *testing.T) {
	g, err := ParseGrid("g.json", []byte(grid))
	if err != nil {
		t.Fatal(err)
	}
	pts := g.Points()
	if len(pts) != 1*2*2*2*3 {
		t.Fatalf("%d points, want 24", len(pts))
	}
	keys := map[string]bool{}
	for _, p := range pts {
		keys[p.Key()] = true
	}
	if len(keys) != len(pts) {
		t.Fatal("two points share a key")
	}
	// Point(i) is the expansion's i-th run: the axes are digits, seeds
	// fastest, scenarios slowest.
	if p := g.Point(0); p.Policy != "cfs-2.6.35" || p.Seed != 1 || len(p.Features) != 0 || p.Tunables["HZ"] != 250 {
		t.Errorf("point 0: %+v", p)
	}
	if p := g.Point(1); p.Seed != 2 || p.Tunables["HZ"] != 250 {
		t.Errorf("point 1: %+v", p)
	}
	if p := g.Point(3); p.Seed != 1 || p.Tunables["HZ"] != 1000 {
		t.Errorf("point 3: %+v", p)
	}
	if p := g.Point(23); p.Policy != "cfs-2.6.36" || p.Features[0] != "NO_START_DEBIT" || p.Tunables["HZ"] != 1000 || p.Seed != 3 {
		t.Errorf("point 23: %+v", p)
	}
	// Shards are disjoint and cover the grid.
	seen := map[string]int{}
	total := 0
	for i := 0; i < 5; i++ {
		n := shardLen(len(pts), i, 5)
		total += n
		for j := 0; j < n; j++ {
			seen[g.Point(i+j*5).Key()]++
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("point %s in %d shards", k, n)
		}
	}
	if len(seen) != len(pts) || total != len(pts) {
		t.Fatal("shards miss points")
	}
}

// A grid of billions of runs is refused at once, without expanding it.
func TestHugeGridRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"scenarios": ["two-hogs"], "seeds": [`)
	for i := 1; i <= 3000; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString(`], "tunables": {"HZ": [100, 250, 300, 1000], "sched_latency_ns": [`)
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, 6000000+i)
	}
	b.WriteString(`]}}`)
	_, err := ParseGrid("huge.json", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "more than 10000000 runs") || !strings.Contains(err.Error(), "seeds 3000") {
		t.Errorf("got %v, want the limit named with the axes", err)
	}
}

func TestGridErrors(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`{"scenarios": ["a"], "polices": ["x"]}`, `unknown field "polices"`},
		{"{\"scenarios\": [\"a\"],\n \"seeds\": [1,]}", "g.json:2:"},
		{`{"scenarios": ["a"], "seeds": ["one"]}`, `key "seeds"`},
		{`{"policies": ["cfs-2.6.35"]}`, "at least one scenario"},
		{`{"scenarios": ["two-hogs"]} trailing`, "data after the grid"},
		{`{"scenarios": ["two-hogs"]}{"scenarios": ["x"]}`, "data after the grid"},
		{`{"scenarios": ["two-hogs"], "policies": ["bfs"]}`, `unknown policy "bfs"`},
		{`{"scenarios": ["two-hogs"], "features": [["NO_SUCH"]]}`, `"NO_SUCH"`},
		{`{"scenarios": ["two-hogs"], "tunables": {"sched_latncy_ns": [1]}}`, `unknown tunable "sched_latncy_ns"`},
		{`{"scenarios": ["two-hogs"], "tunables": {"HZ": [7]}}`, "tunables.HZ"},
		{`{"scenarios": ["no-such-scenario"]}`, "no-such-scenario"},
		{`{"scenarios": ["calibrated-make-jN"], "params": {"N": [0]}}`, "params.N=0"},
		{`{"scenarios": ["two-hogs"], "duration": "soon"}`, "duration"},
		{`{"scenarios": ["two-hogs"], "cpus": [0]}`, "cpus: 0"},
	} {
		if _, err := ParseGrid("g.json", []byte(c.js)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.js, err, c.want)
		}
	}
}

func TestRunResumeAndMerge(t *testing.T) {
	g, _ := ParseGrid("g.json", []byte(grid))
	dir := t.TempDir()
	// A failing point (a feature the policy lacks) is recorded, not fatal.
	g.Features = append(g.Features, []string{"NO_SUCH_FEATURE"})
	sum, err := Run(g, Options{Out: dir, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 36 || sum.Failed != 12 || sum.Skipped != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if len(sum.Failures) != maxFailures || !strings.Contains(sum.Failures[0], "NO_SUCH_FEATURE") {
		t.Errorf("failures %q", sum.Failures)
	}
	// Resuming skips every success and retries the failures.
	again, _ := Run(g, Options{Out: dir, Workers: 2})
	if again.Ran != 12 || again.Failed != 12 || again.Skipped != 24 {
		t.Fatalf("resumed summary %+v", again)
	}
	// A foreign file and a corrupt result are no rows; the corrupt one is
	// run again.
	os.WriteFile(filepath.Join(dir, "foreign.json"), []byte(`{"a":1}`), 0o644)
	corrupt := filepath.Join(dir, g.Points()[1].Key()+".json")
	os.WriteFile(corrupt, []byte(`{"point": {"scen`), 0o644)
	tbl, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Rows) != 12 || len(tbl.Skipped) != 2 {
		t.Fatalf("%d rows (want 12 configurations), skipped %q", len(tbl.Rows), tbl.Skipped)
	}
	// A configuration without a successful run has no figures: null.
	js, err := json.Marshal(tbl)
	if err != nil || !strings.Contains(string(js), `"mean":null`) {
		t.Errorf("JSON of a table with failed rows: %v, %.200s", err, js)
	}
	if fix, _ := Run(g, Options{Out: dir, Workers: 1}); fix.Ran != 13 {
		t.Errorf("resume after a corrupt result ran %d, want 12 failures + 1", fix.Ran)
	}
	if tbl, err = Merge(dir); err != nil || len(tbl.Skipped) != 1 {
		t.Fatalf("merge after the rerun: %v, skipped %q", err, tbl.Skipped)
	}
	var text, csv, svg bytes.Buffer
	tbl.WriteText(&text)
	tbl.WriteCSV(&csv)
	tbl.WriteSVG(&svg)
	if !strings.Contains(text.String(), "NO_SUCH_FEATURE") || !strings.Contains(text.String(), "failed:") {
		t.Errorf("text does not report the failures:\n%s", text.String())
	}
	if n := strings.Count(csv.String(), "\n"); n != 13 {
		t.Errorf("csv has %d lines, want 13", n)
	}
	if !strings.HasPrefix(svg.String(), "<svg") || strings.Count(svg.String(), "data-mean=") != 3*8 {
		t.Errorf("svg has %d points, want 24 (average, p99 and maximum of 4 configurations × 2 policies with results)", strings.Count(svg.String(), "data-mean="))
	}
	// NO_START_DEBIT lowers sigev-thread's average latency in every pair.
	for _, r := range tbl.Rows {
		if r.Failed == 0 && (r.Runs != 3 || r.Avg.CI95 < 0) {
			t.Errorf("row %s: %+v", tbl.Label(r), r)
		}
	}
	// An interrupted write leaves no result behind.
	files, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(files) != 0 {
		t.Errorf("temporary files left: %v", files)
	}
	os.Remove(filepath.Join(dir, g.Points()[0].Key()+".json"))
	third, _ := Run(g, Options{Out: dir, Workers: 1})
	if third.Ran != 13 {
		t.Fatalf("after removing one result, resume ran %d (want it and the 12 failures)", third.Ran)
	}
}

func TestStat(t *testing.T) {
	// 1, 2, 3: mean 2, sd 1, t(2) = 4.303 → ±2.484.
	s := stat([]float64{1, 2, 3})
	if s.Mean != 2 || s.CI95 != 2.5 {
		t.Fatalf("stat = %+v, want 2 ± 2.5", s)
	}
	if s := stat([]float64{7}); s.Mean != 7 || s.CI95 != 0 {
		t.Fatalf("one sample: %+v", s)
	}
}
