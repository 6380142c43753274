package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"schedlab/internal/pool"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/workload"
)

// Record is one run's result file.
type Record struct {
	Point  Point       `json:"point"`
	Error  string      `json:"error,omitempty"`
	Result *report.Run `json:"result,omitempty"`
}

// Progress is what a sweep reports after each run.
type Progress struct {
	Done, Failed, Skipped, Total int
	Left                         time.Duration // estimated, from the runs so far
}

// Options control a sweep.
type Options struct {
	Out          string // result directory
	Index, Count int    // this shard of Count (Count 0 or 1: everything)
	Workers      int    // simulations at once; 0: one per CPU
	Progress     func(Progress)
}

// Summary counts what a sweep did.
type Summary struct {
	Shard, Ran, Failed, Skipped int
}

// Shard returns the points of shard index of count: every count-th point,
// starting at index, so shards are disjoint and together cover the grid.
func Shard(pts []Point, index, count int) []Point {
	if count <= 1 {
		return pts
	}
	var out []Point
	for i := index; i < len(pts); i += count {
		out = append(out, pts[i])
	}
	return out
}

// Run simulates this shard's points that have no result yet in o.Out, one
// simulation per goroutine, and writes one Record per run. A failed run is
// recorded with its error and does not stop the others.
func Run(g *Grid, o Options) (Summary, error) {
	if o.Count > 1 && (o.Index < 0 || o.Index >= o.Count) {
		return Summary{}, fmt.Errorf("shard index %d is not in 0..%d", o.Index, o.Count-1)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return Summary{}, err
	}
	pts := Shard(g.Points(), o.Index, o.Count)
	sum := Summary{Shard: len(pts)}
	var todo []Point
	for _, p := range pts {
		if _, err := os.Stat(resultPath(o.Out, p)); err == nil {
			sum.Skipped++
			continue
		}
		todo = append(todo, p)
	}
	start := time.Now()
	var mu sync.Mutex
	var firstErr error
	failed := make([]bool, len(todo))
	pool.Run(len(todo), o.Workers, func(i int) {
		rec := simulate(todo[i])
		failed[i] = rec.Error != ""
		if err := writeRecord(o.Out, rec); err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}
	}, func(done, total int) {
		// Serialised by the pool; a job's failed slot is written before
		// its progress call.
		sum.Ran = done
		sum.Failed = 0
		for i := range failed {
			if failed[i] {
				sum.Failed++
			}
		}
		if o.Progress != nil {
			per := time.Since(start) / time.Duration(done)
			o.Progress(Progress{Done: done + sum.Skipped, Failed: sum.Failed, Skipped: sum.Skipped, Total: sum.Shard,
				Left: per * time.Duration(total-done) / time.Duration(workers(o.Workers, total))})
		}
	})
	return sum, firstErr
}

// workers is how many simulations run at once.
func workers(asked, jobs int) int {
	if asked <= 0 {
		asked = runtime.NumCPU()
	}
	return max(1, min(asked, jobs))
}

// simulate runs one point; an error becomes part of the record.
func simulate(p Point) Record {
	fail := func(err error) Record { return Record{Point: p, Error: err.Error()} }
	spec, name, err := workload.Load(p.Scenario, p.Params)
	if err != nil {
		return fail(err)
	}
	var d time.Duration
	if p.Duration != "" {
		if d, err = lab.ParseDuration(p.Duration); err != nil {
			return fail(fmt.Errorf("duration: %w", err))
		}
	}
	oc, err := lab.Simulate(lab.Request{Spec: spec, Name: name, Policy: p.Policy, Features: p.Features,
		Tunables: p.Tunables, CPUs: p.CPUs, Duration: d, Seed: p.Seed})
	if err != nil {
		return fail(err)
	}
	return Record{Point: p, Result: oc.Report}
}

func resultPath(dir string, p Point) string { return filepath.Join(dir, p.Key()+".json") }

// writeRecord writes atomically (a temporary file renamed into place), so
// an interrupted sweep never leaves a half-written result that a resumed
// one would skip.
func writeRecord(dir string, rec Record) error {
	b, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	final := resultPath(dir, rec.Point)
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), final)
}
