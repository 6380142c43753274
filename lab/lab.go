// Package lab turns a request into an outcome. It is the one place where a
// run becomes a report, whatever produced its events:
//
//   - Simulate resolves a typed Request (a workload, a policy, features,
//     tunables, CPUs, a duration, a seed) and runs the simulator with the
//     analysis attached;
//   - AnalyzeTrace reads a trace file a user brings;
//   - AnalyzeRecording reads what the host runner recorded on a real
//     kernel.
//
// Each returns an Outcome: the report (the design's JSON keys and the text
// a developer reads), the samples and timeline asked for, and its Source,
// which says where the events came from and with what facts. The command
// line, reproduce, sweeps and validate all come through here, so a
// configuration means the same thing everywhere and a report is assembled
// once.
package lab

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"schedlab/sched"
	_ "schedlab/sched/cfs"   // registers cfs-2.6.24, cfs-2.6.35, cfs-2.6.36 and cfs-6.1
	_ "schedlab/sched/dl"    // registers the deadline class (SCHED_DEADLINE)
	_ "schedlab/sched/eevdf" // registers eevdf-6.6, eevdf-6.12 and eevdf-6.18
	_ "schedlab/sched/rt"    // registers the real-time class (SCHED_FIFO, SCHED_RR)
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// DefaultPolicy is the policy of a run that names none.
const DefaultPolicy = "cfs-2.6.35"

// DefaultDuration caps a workload whose file sets no duration.
const DefaultDuration = 10 * time.Second

// MaxCPUs is the most CPUs a simulation may have.
const MaxCPUs = 4096

// Request is one simulation, with typed values: what a command line, an
// experiment's row, a sweep's point or a validation asks for. Zero values
// mean the defaults.
type Request struct {
	Spec *workload.Spec // the workload, parsed (workload.Load)
	Name string         // the workload's name in the report
	// Policy is a registered profile (sched.Profiles); "" is
	// DefaultPolicy.
	Policy string
	// Features switch sched features in the kernel's sched_features
	// syntax, one item each ("NO_START_DEBIT", "NEXT_BUDDY"), applied in
	// order; the rest keep the policy's defaults.
	Features []string
	// Tunables set the policy's tunables and the engine's parameters by
	// name (`schedlab features` lists both).
	Tunables map[string]int64
	CPUs     int           // 0: 1
	Duration time.Duration // 0: the workload's, else DefaultDuration
	Seed     uint64
	// Check verifies the engine's and the policy's invariants after every
	// event.
	Check bool
	Keep  Keep
	// Kernel adds a machine's own kernel threads to the simulation (the
	// VM's guest kernel, validate.VMKernelThreads); nil: none. They are
	// left out of the samples and the task table as a recording's other
	// tasks are.
	Kernel *sim.KernelThreads
	// Started says the recording begins with the workload's initial
	// tasks already started, so their first runs are not samples: a VM
	// run's trace starts with the host runner's root on the CPU, forked
	// before tracing began (validate.WithRunner).
	Started bool
}

// Keep says what an outcome keeps beyond its report.
type Keep struct {
	// Samples keeps every latency sample (for CDFs). The report's
	// percentiles do not need them (analyze.Hist); a simulation's memory
	// grows with them.
	Samples bool
	// PerTask keeps a row per task (report.Run.PerTask, perf sched
	// latency -p) beside the table by comm; a simulation's memory grows
	// with the tasks it ever forked. A trace's or a recording's analysis
	// keeps both anyway.
	PerTask bool
	// Timeline, if positive, records what ran on each CPU in the run's
	// first Timeline of time.
	Timeline time.Duration
	// Sink, if set, sees every event too (a trace writer).
	Sink trace.Sink
	// RtappLog keeps rt-app's per-thread logs of a simulation.
	RtappLog bool
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

// ParseTunables reads NAME=VALUE settings (the command line's --set) into
// typed values for policy ("" is DefaultPolicy), each checked against its
// tunable's range; a later setting of a name wins.
func ParseTunables(policy string, settings []string) (map[string]int64, error) {
	prof, err := sched.Lookup(policyOr(policy))
	if err != nil {
		return nil, inputErr(err)
	}
	out := map[string]int64{}
	for _, kv := range settings {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, inputErr(fmt.Errorf("%q: want NAME=VALUE", kv))
		}
		name = strings.TrimSpace(name)
		t, _, err := tunable(prof, name)
		if err != nil {
			return nil, err
		}
		v, err := t.ParseValue(val)
		if err != nil {
			return nil, inputErr(err)
		}
		out[name] = v
	}
	return out, nil
}

func policyOr(p string) string {
	if p == "" {
		return DefaultPolicy
	}
	return p
}

// tunable finds a tunable of prof or an engine parameter by name.
func tunable(prof *sched.Profile, name string) (t *sched.Tunable, engine bool, err error) {
	params := sim.ParamTunables()
	for i := range params {
		if params[i].Name == name {
			return &params[i], true, nil
		}
	}
	if t := prof.Tunable(name); t != nil {
		return t, false, nil
	}
	names := prof.TunableNames()
	for _, p := range params {
		names = append(names, p.Name)
	}
	return nil, false, inputErr(fmt.Errorf("unknown tunable %q for policy %s (valid: %s)", name, prof.Name, strings.Join(names, ", ")))
}

// CheckTunable says whether policy ("" is DefaultPolicy) has a tunable or
// engine parameter name that takes v.
func CheckTunable(policy, name string, v int64) error {
	prof, err := sched.Lookup(policyOr(policy))
	if err != nil {
		return inputErr(err)
	}
	t, _, err := tunable(prof, name)
	if err != nil {
		return err
	}
	if err := t.Check(v); err != nil {
		return inputErr(err)
	}
	return nil
}

// CheckFeatures says whether policy ("" is DefaultPolicy) has the features
// and can simulate them.
func CheckFeatures(policy string, features []string) error {
	prof, err := sched.Lookup(policyOr(policy))
	if err != nil {
		return inputErr(err)
	}
	feats, err := prof.ParseFeatures(strings.Join(features, ","))
	if err == nil {
		_, err = prof.NewConfig(1, feats, nil)
	}
	if err != nil {
		return inputErr(err)
	}
	return nil
}

// Config is a resolved request: everything the simulator needs.
type Config struct {
	Spec     *workload.Spec
	Name     string
	Sched    *sched.Config
	Defaults *sched.Config // the profile's defaults at this CPU count
	Params   sim.Params
	Duration int64
	Kernel   *sim.KernelThreads // the machine's kernel threads (Request.Kernel)
	Started  bool               // the initial tasks' first runs are no samples (Request.Started)
}

// Resolve checks and resolves a request without running anything.
func Resolve(req Request) (*Config, error) {
	if req.Spec == nil {
		return nil, errors.New("lab: a request needs a workload (Spec)")
	}
	cfg := &Config{Spec: req.Spec, Name: req.Name, Kernel: req.Kernel, Started: req.Started}
	prof, err := sched.Lookup(policyOr(req.Policy))
	if err != nil {
		return nil, inputErr(err)
	}
	ncpu := req.CPUs
	if ncpu == 0 {
		ncpu = 1
	}
	if ncpu < 1 || ncpu > MaxCPUs {
		return nil, inputErr(fmt.Errorf("%d CPUs: a simulation has 1 to %d", ncpu, MaxCPUs))
	}
	feats, err := prof.ParseFeatures(strings.Join(req.Features, ","))
	if err != nil {
		return nil, inputErr(err)
	}
	cfg.Params = sim.DefaultParams()
	set := map[string]int64{}
	for _, name := range sortedKeys(req.Tunables) {
		v := req.Tunables[name]
		t, engine, err := tunable(prof, name)
		if err != nil {
			return nil, err
		}
		if err := t.Check(v); err != nil {
			return nil, inputErr(err)
		}
		if engine {
			cfg.Params.Set(name, v)
		} else {
			set[name] = v
		}
	}
	// A class that models the tick length (EEVDF's lag clamp) is told
	// the engine's.
	machine := sched.Machine{NCPU: ncpu, TickNS: cfg.Params.TickNS()}
	if cfg.Sched, err = prof.NewConfigFor(machine, feats, set); err != nil {
		return nil, inputErr(err)
	}
	if cfg.Defaults, err = prof.NewConfig(ncpu, nil, nil); err != nil {
		return nil, err
	}
	switch {
	case req.Duration < 0:
		return nil, inputErr(fmt.Errorf("duration %v: must be positive", req.Duration))
	case req.Duration > 0:
		cfg.Duration = int64(req.Duration)
	case cfg.Spec.Duration > 0:
		cfg.Duration = cfg.Spec.Duration
	default:
		cfg.Duration = int64(DefaultDuration)
	}
	return cfg, nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
