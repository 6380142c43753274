package sweep

import (
	"bytes"
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
	// Shards are disjoint and cover the grid.
	seen := map[string]int{}
	for i := 0; i < 5; i++ {
		for _, p := range Shard(pts, i, 5) {
			seen[p.Key()]++
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("point %s in %d shards", k, n)
		}
	}
	if len(seen) != len(pts) {
		t.Fatal("shards miss points")
	}
}

func TestGridErrors(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`{"scenarios": ["a"], "polices": ["x"]}`, `unknown field "polices"`},
		{"{\"scenarios\": [\"a\"],\n \"seeds\": [1,]}", "g.json:2:"},
		{`{"scenarios": ["a"], "seeds": ["one"]}`, `key "seeds"`},
		{`{"policies": ["cfs-2.6.35"]}`, "at least one scenario"},
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
	// Resuming skips everything already there.
	again, _ := Run(g, Options{Out: dir, Workers: 2})
	if again.Ran != 0 || again.Skipped != 36 {
		t.Fatalf("resumed summary %+v", again)
	}
	tbl, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Rows) != 12 {
		t.Fatalf("%d rows, want 12 configurations", len(tbl.Rows))
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
	if !strings.HasPrefix(svg.String(), "<svg") || strings.Count(svg.String(), "<circle") != 8 {
		t.Errorf("svg has %d points, want 8 (4 configurations × 2 policies with results)", strings.Count(svg.String(), "<circle"))
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
	if third.Ran != 1 {
		t.Fatalf("after removing one result, resume ran %d", third.Ran)
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
