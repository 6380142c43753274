package fidelity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"schedlab/host"
	"schedlab/internal/outfile"
	"schedlab/validate"
	"schedlab/vm"
)

// Options are a suite run.
type Options struct {
	// Dir keeps one JSON file per case (Case.Name + ".json"): a case whose
	// file exists is not run again unless Again.
	Dir   string
	Again bool
	// Runs, Duration and Seed are each case's (validate's).
	Runs     int
	Duration time.Duration
	Seed     uint64
	// VCPUs of the VM (the workload runs on CPU 0 when 1).
	VCPUs int
	// Init is the guest's init binary (default: this executable).
	Init string
	// Progress receives a line per case; Log, QEMU's and the guest's
	// lines (nil: none).
	Progress, Log io.Writer
}

// Measure runs every case that has no result in o.Dir yet, one boot per
// case, and saves each result as it comes. A case that fails is reported
// on Progress and left out; the others go on. It stops when ctx ends.
func Measure(ctx context.Context, cases []Case, o Options) (failed int, err error) {
	prog := o.Progress
	if prog == nil {
		prog = io.Discard
	}
	for i, c := range cases {
		if ctx.Err() != nil {
			return failed, context.Cause(ctx)
		}
		path := filepath.Join(o.Dir, c.Name()+".json")
		if _, err := os.Stat(path); err == nil && !o.Again {
			continue
		}
		fmt.Fprintf(prog, "schedlab fidelity: case %d/%d: %s\n", i+1, len(cases), c.Name())
		t0 := time.Now()
		res, err := measureCase(ctx, c, o)
		if err != nil {
			var ie *vm.InputError
			if errors.As(err, &ie) || ctx.Err() != nil {
				// A feature or tunable the kernel lacks is the suite's
				// mistake, not a failed boot: say so and go on.
				fmt.Fprintf(prog, "schedlab fidelity: %s: %v\n", c.Name(), err)
			} else {
				fmt.Fprintf(prog, "schedlab fidelity: %s failed: %v\n", c.Name(), err)
			}
			failed++
			continue
		}
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return failed, err
		}
		if err := outfile.Write(path, append(b, '\n')); err != nil {
			return failed, err
		}
		fmt.Fprintf(prog, "schedlab fidelity: %s: done in %.0f s\n", c.Name(), time.Since(t0).Seconds())
	}
	return failed, nil
}

func measureCase(ctx context.Context, c Case, o Options) (*validate.Result, error) {
	k, err := vm.Resolve(c.Kernel)
	if err != nil {
		return nil, err
	}
	data, spec, err := c.Load()
	if err != nil {
		return nil, err
	}
	vcpus := max(o.VCPUs, 1)
	var cpus []int
	if vcpus == 1 {
		cpus = []int{0}
	}
	vo := &vm.Options{Kernel: k, VCPUs: vcpus, Name: c.Workload, Workload: data, Warmup: time.Second, Init: o.Init,
		Features: c.Features(), Set: c.Set(), Log: o.Log}
	return validate.Run(ctx, validate.Options{Host: host.Options{Spec: spec, Duration: o.Duration, Seed: o.Seed, CPUs: cpus},
		Scenario: c.Workload, Runs: o.Runs, VM: vo})
}

// Load reads the saved results of cases from dir and simulates each again
// with the model as it is now (validate.Resimulate). A case without a
// file is left out.
func Load(dir string, cases []Case) (map[Case]*validate.Result, error) {
	out := map[Case]*validate.Result{}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join(dir, c.Name()+".json"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var res validate.Result
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name(), err)
		}
		if err := validate.Resimulate(&res); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name(), err)
		}
		out[c] = &res
	}
	return out, nil
}
