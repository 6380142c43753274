package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"schedlab/lab"
	"schedlab/sched"
	"schedlab/vm"
	"schedlab/workload"
)

// The real-kernel column (reproduce --kernel): each row that a real kernel
// can express, run in a VM on the same workload and seeds. A real kernel
// has few of the mails' switches: the features it still has, a tunable,
// and task groups, which the runner makes cgroups. The RFC features were
// never merged, and the 2010 patches (CPT_FIX, the sleeper credit of 2008)
// are no switch of a later kernel, so their rows are not expressible; nor
// are eevdf-today's what-ifs (TIMER_FORK_EXPEDITED and START_NICE ported
// to EEVDF), which are schedlab's own.

// kernelSwitches are, per fair class of a real kernel (vm.Kernel.Sched),
// the sched features a row may write to it, with the value each has
// when the simulated kernel leaves it alone (the row's feature says
// otherwise), and the tunables a row may set. Features are written to every
// row, so the real kernel runs the simulated kernel's setting whatever its
// own default (Debian's 6.1 boots with START_DEBIT on, as 2.6.35 did, but
// another build need not); tunables are written at
// the simulated policy's value (its default, or the experiment's or row's
// setting) when the policy has them.
var kernelSwitches = map[string]struct {
	features map[string]bool
	tunables []string
}{
	"CFS":   {features: map[string]bool{"START_DEBIT": true}, tunables: []string{"sched_min_granularity_ns"}},
	"EEVDF": {features: map[string]bool{"PLACE_DEADLINE_INITIAL": true}},
}

// A KernelRun is one row on a real kernel: the workload (a built-in
// scenario and its parameters), the features and tunables written to the
// kernel, and Runs runs with seeds Seed, Seed+1, … of Duration each.
type KernelRun struct {
	Scenario string
	Params   map[string]string
	Features []string
	Set      [][2]string
	Runs     int
	Seed     uint64
	Duration time.Duration
}

// A Measurer runs rows on one real kernel (VMMeasurer in a VM; tests fake
// it) and gives each run's timer latency: max, avg and p50 in µs.
type Measurer interface {
	Name() string    // the kernel's name, e.g. "debian-6.1"
	Release() string // its uname -r
	Sched() string   // its fair class: "CFS" or "EEVDF"
	Measure(ctx context.Context, r KernelRun) ([]KernelFigures, error)
}

// KernelFigures are one run's timer latency on the real kernel, µs.
type KernelFigures struct {
	Max float64 `json:"max_us"`
	Avg float64 `json:"avg_us"`
	P50 float64 `json:"p50_us"`
}

// KernelOptions are the real-kernel column's: the kernel, runs per row and
// each run's duration.
type KernelOptions struct {
	Measurer Measurer
	Runs     int
	Duration time.Duration
	Context  context.Context
	// Progress, if set, is told of each row before its boot.
	Progress func(exp, row string)
}

// KernelColumn is the column's head in a result: which kernel, how long,
// and the experiment's settings the kernel could not take.
type KernelColumn struct {
	Name       string   `json:"name"`
	Release    string   `json:"release"`
	Sched      string   `json:"sched"`
	Runs       int      `json:"runs"`
	Duration   string   `json:"duration"`
	NotApplied []string `json:"not_applied,omitempty"`
	// Kept is the file the column was read from (KeptKernel), "" when it
	// was measured in this run.
	Kept string `json:"kept,omitempty"`
}

// KernelRow is a row's real-kernel figures (the means of the runs, with
// their extremes, and each run's figures, so that a kept column can be
// shown again: KeptKernel), or why the row is not expressible.
type KernelRow struct {
	Release     string   `json:"release"`
	Expressible bool     `json:"expressible"`
	Why         string   `json:"why,omitempty"`
	Features    []string `json:"features,omitempty"`
	Set         []string `json:"set,omitempty"`
	Runs        int      `json:"runs,omitempty"`
	Max         *float64 `json:"max_us,omitempty"`
	Avg         *float64 `json:"avg_us,omitempty"`
	P50         *float64 `json:"p50_us,omitempty"`
	Lo          Figures  `json:"run_min"`
	Hi          Figures  `json:"run_max"`
	// PerRun is each run's figures, seeds 1, 2, … in order.
	PerRun []KernelFigures `json:"per_run,omitempty"`
}

// fill sets the row's figures from its runs: the means (of the medians in
// an experiment that compares them) and the extremes.
func (kr *KernelRow) fill(figs []KernelFigures, median bool) {
	var rf runFigures
	for _, f := range figs {
		rf.max, rf.avg, rf.p50 = append(rf.max, f.Max), append(rf.avg, f.Avg), append(rf.p50, f.P50)
	}
	mean := rf.mean(allRuns(len(figs)), median)
	kr.Runs, kr.PerRun = len(figs), figs
	kr.Max, kr.Avg, kr.P50 = mean.Max, mean.Avg, mean.P50
	kr.Lo, kr.Hi = rf.extremes(median)
}

// kernelRun is how row r runs on a kernel of fair class schedClass, or
// why it cannot; notApplied are the experiment's own settings the kernel
// cannot take (its machine, its patches), which do not make a row
// inexpressible: the real kernel is another kernel in every respect but the
// row's switch.
func (e *Experiment) kernelRun(r Row, schedClass string) (run KernelRun, why string, notApplied []string) {
	sw, ok := kernelSwitches[schedClass]
	if !ok {
		return run, fmt.Sprintf("no switches known for a %s kernel", schedClass), nil
	}
	feats := maps.Clone(sw.features)
	prof, _ := sched.Lookup(e.policy(r))
	apply := func(list string, own bool) string {
		for _, f := range strings.Split(list, ",") {
			if f == "" {
				continue
			}
			name := strings.TrimPrefix(f, "NO_")
			if _, ok := feats[name]; ok {
				feats[name] = !strings.HasPrefix(f, "NO_")
				continue
			}
			if own && prof != nil && prof.Feature(name) != nil && prof.Feature(name).WhatIf {
				return fmt.Sprintf("%s is a what-if of schedlab's (a reconstruction): no kernel has such a feature", f)
			}
			if own {
				return fmt.Sprintf("%s is no sched feature of a %s kernel", f, schedClass)
			}
			notApplied = append(notApplied, f)
		}
		return ""
	}
	if why := apply(e.Features, false); why != "" {
		return run, why, nil
	}
	if why := apply(r.Features, true); why != "" {
		return run, why, nil
	}
	set := map[string]int64{}
	for _, name := range sw.tunables {
		if prof != nil {
			if t := prof.Tunable(name); t != nil {
				set[name] = t.Default
			}
		}
	}
	for _, s := range e.Set {
		if slices.Contains(sw.tunables, s.Name) {
			set[s.Name] = s.Value
		} else {
			notApplied = append(notApplied, s.String())
		}
	}
	for _, s := range r.Set {
		if !slices.Contains(sw.tunables, s.Name) {
			return run, fmt.Sprintf("%s is no tunable of a %s kernel", s, schedClass), nil
		}
		set[s.Name] = s.Value
	}
	for _, name := range slices.Sorted(maps.Keys(feats)) {
		if feats[name] {
			run.Features = append(run.Features, name)
		} else {
			run.Features = append(run.Features, "NO_"+name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		run.Set = append(run.Set, [2]string{name, fmt.Sprint(set[name])})
	}
	run.Scenario = e.Scenario
	run.Params = maps.Clone(e.Params)
	if run.Params == nil {
		run.Params = map[string]string{}
	}
	maps.Copy(run.Params, r.Params)
	return run, "", notApplied
}

// runKernel fills the real-kernel column of the results, one boot per
// expressible row, one boot at a time.
func runKernel(exps []*Experiment, res []*Result, ko KernelOptions) error {
	m := ko.Measurer
	ctx := ko.Context
	if ctx == nil {
		ctx = context.Background()
	}
	for i, e := range exps {
		col := &KernelColumn{Name: m.Name(), Release: m.Release(), Sched: m.Sched(), Runs: ko.Runs, Duration: ko.Duration.String()}
		seen := map[string]bool{}
		done, doneBy := map[string][]KernelFigures{}, map[string]string{}
		for ri, r := range e.Rows {
			kr := &KernelRow{Release: m.Release()}
			res[i].Rows[ri].Kernel = kr
			run, why, na := e.kernelRun(r, m.Sched())
			for _, s := range na {
				if !seen[s] {
					seen[s] = true
					col.NotApplied = append(col.NotApplied, s)
				}
			}
			if why != "" {
				kr.Why = "not expressible: " + why
				continue
			}
			run.Runs, run.Seed, run.Duration = ko.Runs, 1, ko.Duration
			// Rows that differ only in what a real kernel cannot take
			// (the simulated policy, say) are one real run.
			key := fmt.Sprint(run)
			figs, ok := done[key]
			if ok {
				kr.Why = "the same real run as " + doneBy[key]
			} else {
				if ko.Progress != nil {
					ko.Progress(e.ID, r.Config)
				}
				var err error
				if figs, err = m.Measure(ctx, run); err != nil {
					return fmt.Errorf("experiment %s, row %s on %s: %w", e.ID, r.Config, m.Name(), err)
				}
				done[key], doneBy[key] = figs, r.Config
			}
			kr.Expressible, kr.Features, kr.Set = true, run.Features, setStrings(run.Set)
			kr.fill(figs, e.Metric == TimerMedian)
		}
		res[i].Kernel = col
	}
	return nil
}

func setStrings(set [][2]string) []string {
	var out []string
	for _, s := range set {
		out = append(out, s[0]+"="+s[1])
	}
	return out
}

// VMMeasurer runs rows in a VM with kernel K (one boot per row, its runs
// in that boot): Init is the guest's init binary (schedlab), Log its
// progress; Warmup a discarded run before the measured ones.
type VMMeasurer struct {
	K      *vm.Kernel
	Init   string
	Warmup time.Duration
	Log    io.Writer
}

func (v *VMMeasurer) Name() string    { return v.K.Name }
func (v *VMMeasurer) Release() string { return v.K.Release }
func (v *VMMeasurer) Sched() string   { return v.K.Sched() }

// Measure boots the kernel once for the row's runs.
func (v *VMMeasurer) Measure(ctx context.Context, r KernelRun) ([]KernelFigures, error) {
	data, err := workload.Scenario(r.Scenario, r.Params)
	if err != nil {
		return nil, err
	}
	spec, name, err := workload.Load(r.Scenario, r.Params)
	if err != nil {
		return nil, err
	}
	o := vm.Options{Kernel: v.K, Name: name, Workload: data, Duration: r.Duration, Seed: r.Seed, Runs: r.Runs,
		Features: r.Features, Set: r.Set, Warmup: v.Warmup, Init: v.Init, Log: v.Log}
	vr, err := vm.Measure(ctx, o)
	if err != nil {
		return nil, err
	}
	var out []KernelFigures
	for i, rec := range vr.Recordings {
		rec.Spec = spec
		oc, err := lab.AnalyzeVM(vr, i, name, lab.Keep{})
		if err != nil {
			return nil, err
		}
		tl := oc.Report.TimerLatency
		out = append(out, KernelFigures{Max: float64(tl.Max), Avg: float64(tl.Avg), P50: float64(tl.P50)})
	}
	return out, nil
}

// KeptKernel shows a kept real-kernel column again without booting: data is
// the JSON that reproduce --json --kernel printed (file names it), and each
// experiment of results that the file has takes the file's column head and,
// row by row (by label), its runs, whose means and extremes are computed
// anew. A row whose switches the experiment would now write otherwise than
// the kept run was told says so; a row the file lacks says that.
// Experiments the file does not have are left as they are, so columns from
// several files (one kernel each) can be put side by side in one run.
func KeptKernel(exps []*Experiment, results []*Result, data []byte, file string) error {
	var kept struct {
		Experiments []struct {
			ID     string        `json:"id"`
			Kernel *KernelColumn `json:"kernel"`
			Rows   []struct {
				Config string     `json:"config"`
				Kernel *KernelRow `json:"kernel"`
			} `json:"rows"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(data, &kept); err != nil {
		return fmt.Errorf("%s: not the JSON of reproduce --json: %w", file, err)
	}
	found := 0
	for i, e := range exps {
		for _, ke := range kept.Experiments {
			if ke.ID != e.ID || ke.Kernel == nil {
				continue
			}
			if results[i].Kernel != nil {
				return fmt.Errorf("%s: experiment %s has a real-kernel column already (from %s): one kernel per experiment", file, e.ID, results[i].Kernel.Kept)
			}
			found++
			col := *ke.Kernel
			col.Kept = file
			results[i].Kernel = &col
			for ri, r := range e.Rows {
				kr := &KernelRow{Release: col.Release, Why: "not in the kept column"}
				// A row no kernel can run needs no kept run to say so.
				if _, why, _ := e.kernelRun(r, col.Sched); why != "" {
					kr.Why = "not expressible: " + why
				}
				for _, krow := range ke.Rows {
					if krow.Config == r.Config && krow.Kernel != nil {
						kr = krow.Kernel
					}
				}
				if kr.Expressible && len(kr.PerRun) > 0 {
					kr.fill(kr.PerRun, e.Metric == TimerMedian)
				}
				if kr.Expressible {
					if run, why, _ := e.kernelRun(r, col.Sched); why != "" {
						kr.Why = "kept, but the row is no longer expressible: " + why
					} else if now, was := fmt.Sprint(run.Features, setStrings(run.Set)), fmt.Sprint(kr.Features, kr.Set); now != was {
						kr.Why = "kept run was told " + was + "; the row now asks " + now
					}
				}
				results[i].Rows[ri].Kernel = kr
			}
		}
	}
	if found == 0 {
		var has []string
		for _, ke := range kept.Experiments {
			if ke.Kernel != nil {
				has = append(has, ke.ID)
			}
		}
		return fmt.Errorf("%s: no real-kernel column of the experiments asked for (the file has one for: %s)", file, strings.Join(has, ", "))
	}
	return nil
}
