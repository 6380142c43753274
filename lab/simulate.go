package lab

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"schedlab/report"
	"schedlab/sched"
	"schedlab/sim"
	"schedlab/uapi"
)

// Simulate resolves the request, runs the simulation and reports it.
func Simulate(req Request) (*Outcome, error) {
	cfg, err := Resolve(req)
	if err != nil {
		return nil, err
	}
	return cfg.Simulate(req.Seed, req.Check, req.Keep)
}

// Simulate runs a resolved configuration.
func (cfg *Config) Simulate(seed uint64, check bool, keep Keep) (*Outcome, error) {
	at := newAttach(keep)
	sink := at.sink()
	if cfg.Kernel != nil || cfg.Started {
		other := sim.IsKernelPID
		if cfg.Kernel == nil {
			other = func(int32) bool { return false }
		}
		sink = at.sinkWithout(other, cfg.Started)
	}
	eng, err := sim.New(sim.Config{Spec: cfg.Spec, Sched: cfg.Sched, Params: cfg.Params, Duration: cfg.Duration,
		Seed: seed, Sink: sink, Check: check, Kernel: cfg.Kernel})
	if err != nil {
		return nil, inputErr(err)
	}
	if keep.RtappLog {
		eng.RecordRtappLog()
	}
	start := time.Now()
	end, err := eng.Run()
	wall := time.Since(start)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, err
		}
		// A workload that loops without time passing, or forks without
		// end, is a mistake in the input, like a bad file.
		var we *sim.WorkloadError
		if errors.As(err, &we) {
			return nil, inputErr(fmt.Errorf("simulation of %s: %w", cfg.Name, err))
		}
		return nil, fmt.Errorf("simulation of %s failed: %w", cfg.Name, err)
	}
	r := &report.Run{
		Scenario:        cfg.Name,
		Policy:          cfg.Sched.Profile.Name,
		CPUs:            cfg.Sched.NCPU,
		Features:        cfg.Sched.Features,
		Tunables:        maps.Clone(cfg.Sched.Tunables),
		Seed:            seed,
		SimNS:           end,
		Warnings:        cfg.Spec.Warnings,
		Reconstructions: cfg.Sched.Reconstructions(),
		DefaultFeatures: cfg.Defaults.Features,
		DefaultTunables: maps.Clone(cfg.Defaults.Tunables),
		Engine:          engineCost(eng.Events(), eng.TraceEvents(), wall),
	}
	if !cfg.Spec.HasTimer() {
		r.NoTimer = "no timer in this workload"
	}
	// A what-if that is off is no part of the kernel the run models: the
	// report stays what it was before the what-if existed.
	if off := cfg.Sched.WhatIfOff(); len(off) > 0 {
		r.Features, r.DefaultFeatures = maps.Clone(r.Features), maps.Clone(r.DefaultFeatures)
		for _, name := range off {
			delete(r.Features, name)
			delete(r.DefaultFeatures, name)
			delete(r.Tunables, name)
			delete(r.DefaultTunables, name)
		}
	}
	// A higher class's sysctls are every profile's, but a report names
	// them only for a workload with tasks in that class: a fair-only
	// run's report stays what it was before classes stacked.
	used := cfg.Spec.Policies()
	for _, t := range sched.ClassTunables() {
		_, d := sched.ClassTunable(t.Name)
		if !slices.ContainsFunc(used, func(p uapi.Policy) bool { return sched.ClassOf(p) == d }) {
			delete(r.Tunables, t.Name)
			delete(r.DefaultTunables, t.Name)
		}
	}
	maps.Copy(r.Tunables, cfg.Params.Values())
	maps.Copy(r.DefaultTunables, sim.DefaultParams().Values())
	var timer, wakeup []int64
	if keep.Samples {
		timer, wakeup = at.an.Samples()
	}
	rep := at.an.Finish(end)
	if cfg.Kernel != nil {
		rep = withoutKernelRows(r, rep, sim.IsKernelPID)
	}
	o := outcome(r, rep, timer, wakeup, at.tl, end)
	o.Source = Source{Origin: Simulation, Sim: &Simulated{Config: cfg}}
	o.RtappLogs = eng.RtappLogs()
	return o, nil
}
