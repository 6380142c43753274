package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// N shards run as separate processes into one directory merge to the same
// table as the whole sweep run by one process.
func TestShardsMergeLikeOneProcess(t *testing.T) {
	grid := writeFile(t, "grid.json", `{"scenarios": ["sigev-thread", "two-hogs"], "policies": ["cfs-2.6.35", "cfs-2.6.36"],
		"features": [[], ["NO_START_DEBIT"]], "seeds": [1, 2, 3], "duration": "1s"}`)
	whole, sharded := t.TempDir(), t.TempDir()
	if _, stderr, code := schedlab(t, "sweep", grid, "--out", whole); code != 0 {
		t.Fatalf("sweep: %d %s", code, stderr)
	}
	var wg sync.WaitGroup
	errs := make([]string, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(bin, "sweep", grid, "--out", sharded)
			// The shard comes from the cluster's variables, as in a Slurm array.
			cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+string(rune('0'+i)), "SLURM_ARRAY_TASK_COUNT=3")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = string(out)
			}
		}(i)
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Fatalf("shard %d: %s", i, e)
		}
	}
	files, _ := filepath.Glob(filepath.Join(sharded, "*.json"))
	if len(files) != 24 {
		t.Fatalf("shards wrote %d results, want 24", len(files))
	}
	page := filepath.Join(t.TempDir(), "sweep.html")
	a, _, _ := schedlab(t, "sweep", "merge", whole, "--csv", "--html", page)
	if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), "<svg") || !strings.Contains(string(html), "sigev-thread") {
		t.Fatalf("sweep merge --html: %v", err)
	}
	b, _, _ := schedlab(t, "sweep", "merge", sharded, "--csv")
	if a != b || strings.Count(a, "\n") != 9 {
		t.Fatalf("merged tables differ or are short:\n%s\n---\n%s", a, b)
	}
}

// A sweep whose runs fail says which and exits non-zero: here a yield loop
// at zero cost, which the grid's checks cannot see and the engine ends.
func TestSweepFailuresExitNonZero(t *testing.T) {
	wl := writeFile(t, "yield.json", `{"tasks": {"a": {"yield": 0}}}`)
	grid := writeFile(t, "grid.json", `{"scenarios": ["`+wl+`"], "tunables": {"cost_yield_ns": [0]}, "duration": "100ms", "seeds": [1, 2]}`)
	out := t.TempDir()
	stdout, stderr, code := schedlab(t, "sweep", grid, "--out", out)
	if code != 1 || !strings.Contains(stderr, "2 of 2 runs failed") || !strings.Contains(stderr, "cost_yield_ns") || !strings.Contains(stdout, "2 ran (2 failed)") {
		t.Errorf("sweep with failing runs: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A grid that could only fail is refused before anything runs.
func TestSweepRefusesBadGrid(t *testing.T) {
	out := t.TempDir()
	_, stderr, code := schedlab(t, "sweep", writeFile(t, "g2.json", `{"scenarios": ["two-hogs"], "policies": ["bfs"]}`), "--out", out)
	if code != 2 || !strings.Contains(stderr, `unknown policy "bfs"`) {
		t.Errorf("grid with an unknown policy: exit %d, %q", code, stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*.json")); len(files) != 0 {
		t.Errorf("results written for a refused grid: %v", files)
	}
}

func TestSweepBadInput(t *testing.T) {
	bad := writeFile(t, "bad.json", `{"scenarios": ["x"], "seeds": [1], "duraton": "1s"}`)
	good := writeFile(t, "good.json", `{"scenarios": ["two-hogs"], "duration": "1s"}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", bad}, `"duraton"`},
		{[]string{"sweep", "/nonexistent.json"}, "cannot read grid"},
		{[]string{"sweep", good, "--index", "3", "--count", "2"}, "shard index 3"},
		{[]string{"sweep", "merge", t.TempDir()}, "no sweep results"},
	} {
		_, stderr, code := schedlab(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
