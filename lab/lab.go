// Package lab runs experiments: it resolves what a user asked for (a
// workload, a policy, features, tunables, a duration, a seed) into a
// simulation, runs it with the analysis attached, and returns the report.
// The command line, reproduce and sweeps all come through here, so a
// configuration means the same thing everywhere.
package lab

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"schedlab/analyze"
	"schedlab/report"
	"schedlab/sched"
	_ "schedlab/sched/cfs"   // registers cfs-2.6.24, cfs-2.6.35 and cfs-2.6.36
	_ "schedlab/sched/eevdf" // registers eevdf-6.6, eevdf-6.12 and eevdf-6.18
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// DefaultPolicy is the policy of a run that names none.
const DefaultPolicy = "cfs-2.6.35"

// DefaultDuration caps a workload whose file sets no duration.
const DefaultDuration = 10 * time.Second

// Options say what to simulate. Zero values mean the defaults.
type Options struct {
	Workload string         // a built-in scenario or a file
	Spec     *workload.Spec // already parsed (then Workload only names it)
	// Params are a parametric built-in scenario's parameters (name →
	// value, e.g. "N": "16"); an error for a file or a fixed scenario.
	Params   map[string]string
	Policy   string
	Features string   // kernel syntax: "NO_START_DEBIT,NEXT_BUDDY"
	Set      []string // "NAME=VALUE" for tunables and engine parameters
	CPUs     int
	Duration string // "10s", "250ms", or seconds; "" for the file's
	Seed     uint64
	Check    bool
	Sink     trace.Sink // receives every event too (e.g. a trace writer)
}

// InputError is an error in what the user gave: a bad file, name or value.
// Commands exit with status 2 for it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(err error) error { return &InputError{Err: err} }

// ParseDuration accepts a Go duration ("10s", "1m30s", "250ms") or a plain
// number of seconds ("10", "2.5"), which must be positive.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f > 1e7 {
			return 0, fmt.Errorf("duration %q is out of range", s)
		}
		d = time.Duration(f * 1e9)
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("duration %q is not a number of seconds or a duration such as 10s or 250ms", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("duration %q must be positive", s)
	}
	return d, nil
}

// Config is a resolved run configuration.
type Config struct {
	Spec     *workload.Spec
	Name     string
	Sched    *sched.Config
	Defaults *sched.Config // the profile's defaults at this CPU count
	Params   sim.Params
	Duration int64
}

// Resolve checks and resolves the options without running anything.
func Resolve(o Options) (*Config, error) {
	cfg := &Config{Spec: o.Spec, Name: o.Workload}
	if cfg.Spec != nil && len(o.Params) > 0 {
		return nil, inputErr(errors.New("scenario parameters apply when the workload is loaded by name, not to an already parsed Spec"))
	}
	if cfg.Spec == nil {
		spec, name, err := workload.Load(o.Workload, o.Params)
		if err != nil {
			return nil, inputErr(err)
		}
		cfg.Spec, cfg.Name = spec, name
	}
	policy := o.Policy
	if policy == "" {
		policy = DefaultPolicy
	}
	prof, err := sched.Lookup(policy)
	if err != nil {
		return nil, inputErr(err)
	}
	ncpu := o.CPUs
	if ncpu == 0 {
		ncpu = 1
	}
	if ncpu < 1 || ncpu > 4096 {
		return nil, inputErr(fmt.Errorf("--cpus %d: need 1 to 4096 CPUs", ncpu))
	}
	feats, err := prof.ParseFeatures(o.Features)
	if err != nil {
		return nil, inputErr(err)
	}
	cfg.Params = sim.DefaultParams()
	engineParams := sim.ParamTunables()
	set := map[string]int64{}
	for _, kv := range o.Set {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, inputErr(fmt.Errorf("--set %q: want NAME=VALUE", kv))
		}
		name = strings.TrimSpace(name)
		t := prof.Tunable(name)
		isParam := false
		for i := range engineParams {
			if engineParams[i].Name == name {
				t, isParam = &engineParams[i], true
			}
		}
		if t == nil {
			names := prof.TunableNames()
			for _, p := range engineParams {
				names = append(names, p.Name)
			}
			return nil, inputErr(fmt.Errorf("unknown tunable %q for policy %s (valid: %s)", name, prof.Name, strings.Join(names, ", ")))
		}
		v, err := t.ParseValue(val)
		if err != nil {
			return nil, inputErr(err)
		}
		if isParam {
			cfg.Params.Set(name, v)
		} else {
			set[name] = v
		}
	}
	// A class that models the tick length (EEVDF's lag clamp) follows the
	// engine's HZ unless told otherwise.
	if prof.Tunable("tick_nsec") != nil {
		if _, ok := set["tick_nsec"]; !ok {
			set["tick_nsec"] = 1e9 / cfg.Params.HZ
		}
	}
	if cfg.Sched, err = prof.NewConfig(ncpu, feats, set); err != nil {
		return nil, inputErr(err)
	}
	if cfg.Defaults, err = prof.NewConfig(ncpu, nil, nil); err != nil {
		return nil, err
	}
	switch {
	case o.Duration != "":
		d, err := ParseDuration(o.Duration)
		if err != nil {
			return nil, inputErr(fmt.Errorf("--duration: %w", err))
		}
		cfg.Duration = int64(d)
	case cfg.Spec.Duration > 0:
		cfg.Duration = cfg.Spec.Duration
	default:
		cfg.Duration = int64(DefaultDuration)
	}
	return cfg, nil
}

// Simulate resolves the options, runs the simulation and reports it.
func Simulate(o Options) (*report.Run, error) {
	cfg, err := Resolve(o)
	if err != nil {
		return nil, err
	}
	return cfg.Simulate(o.Seed, o.Check, o.Sink)
}

// Simulate runs a resolved configuration.
func (cfg *Config) Simulate(seed uint64, check bool, extra trace.Sink) (*report.Run, error) {
	an := analyze.New()
	var sink trace.Sink = an
	if extra != nil {
		sink = trace.Tee{an, extra}
	}
	eng, err := sim.New(sim.Config{Spec: cfg.Spec, Sched: cfg.Sched, Params: cfg.Params, Duration: cfg.Duration,
		Seed: seed, Sink: sink, Check: check})
	if err != nil {
		return nil, inputErr(err)
	}
	start := time.Now()
	end, err := eng.Run()
	wall := time.Since(start)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, err
		}
		return nil, fmt.Errorf("simulation of %s failed: %w", cfg.Name, err)
	}
	r := &report.Run{
		Scenario:        cfg.Name,
		Policy:          cfg.Sched.Profile.Name,
		CPUs:            cfg.Sched.NCPU,
		Features:        cfg.Sched.Features,
		Tunables:        map[string]int64{},
		Seed:            seed,
		SimNS:           end,
		Warnings:        cfg.Spec.Warnings,
		Reconstructions: cfg.Sched.Reconstructions(),
		DefaultFeatures: cfg.Defaults.Features,
		DefaultTunables: map[string]int64{},
	}
	for k, v := range cfg.Sched.Tunables {
		r.Tunables[k] = v
	}
	for k, v := range cfg.Defaults.Tunables {
		r.DefaultTunables[k] = v
	}
	for k, v := range cfg.Params.Values() {
		r.Tunables[k] = v
	}
	for k, v := range sim.DefaultParams().Values() {
		r.DefaultTunables[k] = v
	}
	rep := an.Finish(end)
	r.FromAnalysis(rep)
	r.WastedCapacityMS = float64(rep.Wasted) / 1e6
	r.Engine = report.Engine{Events: eng.Events(), TraceEvents: eng.TraceEvents(), WallMS: float64(wall.Microseconds()) / 1000}
	if wall > 0 {
		r.Engine.EventsPerS = math.Round(float64(eng.Events()) / wall.Seconds())
	}
	return r, nil
}
