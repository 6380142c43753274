package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	// Failures are the first failed runs, "scenario policy …: error".
	Failures []string
}

// maxFailures bounds Summary.Failures.
const maxFailures = 10

// shardLen is how many of n runs shard index of count holds: runs index,
// index+count, …, so shards are disjoint and together cover the grid.
func shardLen(n, index, count int) int {
	if count <= 1 {
		return n
	}
	if index >= n {
		return 0
	}
	return (n - index + count - 1) / count
}

// Run simulates this shard's points that have no successful result yet in
// o.Out, and writes one Record per run. A failed run is recorded with its
// error and does not stop the others; a later Run retries it, as it
// retries a result file that cannot be read.
func Run(g *Grid, o Options) (Summary, error) {
	if o.Count > 1 && (o.Index < 0 || o.Index >= o.Count) {
		return Summary{}, fmt.Errorf("shard index %d is not in 0..%d", o.Index, o.Count-1)
	}
	n, err := g.Len()
	if err != nil {
		return Summary{}, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return Summary{}, err
	}
	index, step := 0, 1
	if o.Count > 1 {
		index, step = o.Index, o.Count
	}
	sum := Summary{Shard: shardLen(n, index, step)}
	start := time.Now()
	var mu sync.Mutex
	var firstErr error
	// The pool's jobs are the shard's runs; each finds its point from its
	// number, so the grid is never expanded.
	pool.Run(sum.Shard, o.Workers, func(j int) {
		p := g.Point(index + j*step)
		if done(o.Out, p) {
			mu.Lock()
			sum.Skipped++
			mu.Unlock()
			return
		}
		rec := simulate(p)
		err := writeRecord(o.Out, rec)
		mu.Lock()
		defer mu.Unlock()
		sum.Ran++
		if rec.Error != "" {
			sum.Failed++
			if len(sum.Failures) < maxFailures {
				sum.Failures = append(sum.Failures, p.String()+": "+rec.Error)
			}
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}, func(finished, total int) {
		if o.Progress == nil {
			return
		}
		mu.Lock()
		ran, failed, skipped := sum.Ran, sum.Failed, sum.Skipped
		mu.Unlock()
		var left time.Duration
		if ran > 0 {
			per := time.Since(start) / time.Duration(ran)
			left = per * time.Duration(total-finished) / time.Duration(pool.Size(o.Workers, total))
		}
		o.Progress(Progress{Done: finished, Failed: failed, Skipped: skipped, Total: total, Left: left})
	})
	return sum, firstErr
}

// done says whether dir holds a successful result of p; a failed or
// unreadable one is run again.
func done(dir string, p Point) bool {
	data, err := os.ReadFile(resultPath(dir, p))
	if err != nil {
		return false
	}
	var rec Record
	return json.Unmarshal(data, &rec) == nil && rec.Error == "" && rec.Result != nil && rec.Point.Key() == p.Key()
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
//
// Records are compact JSON (one line): a sweep writes thousands, and
// indenting them cost a quarter of a sweep's time when runs were small.
// jq pretty-prints one.
func writeRecord(dir string, rec Record) error {
	b, err := json.Marshal(rec)
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
