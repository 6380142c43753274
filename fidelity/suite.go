// Package fidelity is the simulator's examination by real kernels: a suite
// of workloads, each run on Debian's packaged kernels in a virtual machine
// (validate --kernel) and in the simulation of each kernel's closest
// policy, with every feature and tunable that decides a wakeup toggled on
// its own. Its report (FIDELITY.md) says, per kernel, workload and figure,
// whether the model agrees with the kernel, and whether each toggle moves
// the model the way it moves the kernel.
//
// The kernel's runs are kept (one JSON file per case) and the simulation
// is redone from them (validate.Resimulate), so a model change is judged
// again in seconds, without booting a kernel.
package fidelity

import (
	"embed"
	"fmt"
	"path"
	"strings"

	"schedlab/validate"
	"schedlab/vm"
	"schedlab/workload"
)

// workloads are the micro-workloads that isolate one mechanism each; the
// suite also runs built-in scenarios.
//
//go:embed workloads/*.json
var workloads embed.FS

// Case is one comparison: a workload on a kernel, with a toggle or none.
type Case struct {
	Kernel   string // a name of schedlab kernels list
	Workload string // a built-in scenario or a micro-workload (workloads/NAME.json)
	// Toggle is what the case changes against its baseline (the same
	// kernel and workload with nothing changed): a feature in
	// sched_features syntax, or NAME=VALUE of a tunable. "" for a
	// baseline.
	Toggle string
	// Shares compares the workload's CPU shares by comm, where they are
	// the point (busy loops of different weight).
	Shares bool
}

// Name is the case's file name in a results directory.
func (c Case) Name() string {
	n := c.Kernel + "/" + c.Workload
	if c.Toggle != "" {
		n += "--" + strings.ReplaceAll(c.Toggle, "=", "-")
	}
	return n
}

// Base is the case's baseline.
func (c Case) Base() Case { return Case{Kernel: c.Kernel, Workload: c.Workload, Shares: c.Shares} }

// Features and Set are the case's toggle as validate's options.
func (c Case) Features() []string {
	if c.Toggle == "" || strings.Contains(c.Toggle, "=") {
		return nil
	}
	return []string{c.Toggle}
}

func (c Case) Set() [][2]string {
	k, v, ok := strings.Cut(c.Toggle, "=")
	if !ok {
		return nil
	}
	return [][2]string{{k, v}}
}

// Load gives the case's workload: its rt-app text and spec.
func (c Case) Load() ([]byte, *workload.Spec, error) {
	data, err := workloads.ReadFile(path.Join("workloads", c.Workload+".json"))
	if err != nil {
		if data, err = workload.Scenario(c.Workload, nil); err != nil {
			return nil, nil, fmt.Errorf("workload %s: neither a micro-workload (%s) nor a built-in scenario", c.Workload, strings.Join(Micro(), ", "))
		}
	}
	spec, err := workload.Parse(c.Workload, data)
	if err != nil {
		return nil, nil, err
	}
	spec.Name = c.Workload
	return data, spec, nil
}

// Micro lists the micro-workloads.
func Micro() []string {
	ents, _ := workloads.ReadDir("workloads")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".json"))
	}
	return out
}

// baselines are the workloads every kernel runs, most telling first: the
// seeds' load, then one mechanism each.
var baselines = []Case{
	{Workload: "wakeup-latency-calibrated-make-j10"},
	{Workload: "sleeper-under-hogs"},
	{Workload: "fork-under-hogs"},
	{Workload: "nice-pair", Shares: true},
	{Workload: "wakeup-chain"},
	{Workload: "sigev-thread"},
	{Workload: "sleeper-vs-hog"},
	{Workload: "fair-user-sched"},
	{Workload: "wakeup-latency"},
	{Workload: "two-hogs", Shares: true},
	{Workload: "calibrated-make-j5"},
}

// cfsToggles and eevdfToggles are the features and tunables each
// scheduler exposes that decide a wakeup or a slice, with the workload
// that shows each best. Tunables are set to a value that moves them
// clearly (on one vCPU the kernel's defaults are unscaled: latency 6 ms,
// min_granularity 0.75 ms, wakeup_granularity 1 ms; base_slice 0.75 ms).
var cfsToggles = []Case{
	{Workload: "wakeup-latency-calibrated-make-j10", Toggle: "NO_START_DEBIT"},
	{Workload: "wakeup-latency-calibrated-make-j10", Toggle: "sched_min_granularity_ns=2000000"},
	{Workload: "fork-under-hogs", Toggle: "NO_START_DEBIT"},
	{Workload: "sleeper-under-hogs", Toggle: "NO_GENTLE_FAIR_SLEEPERS"},
	{Workload: "sleeper-under-hogs", Toggle: "sched_wakeup_granularity_ns=4000000"},
	{Workload: "sleeper-under-hogs", Toggle: "sched_latency_ns=24000000"},
	{Workload: "sleeper-under-hogs", Toggle: "NEXT_BUDDY"},
	{Workload: "sleeper-under-hogs", Toggle: "NO_LAST_BUDDY"},
}

var eevdfToggles = []Case{
	{Workload: "sleeper-under-hogs", Toggle: "NO_RUN_TO_PARITY"},
	{Workload: "sleeper-under-hogs", Toggle: "NO_PLACE_LAG"},
	{Workload: "sleeper-under-hogs", Toggle: "sched_base_slice_ns=3000000"},
	{Workload: "fork-under-hogs", Toggle: "NO_PLACE_LAG"},
	{Workload: "wakeup-latency-calibrated-make-j10", Toggle: "NO_RUN_TO_PARITY"},
}

// delayToggles are EEVDF's of 6.12 and later.
var delayToggles = []Case{
	{Workload: "sleeper-under-hogs", Toggle: "NO_DELAY_DEQUEUE"},
	{Workload: "sleeper-under-hogs", Toggle: "NO_PREEMPT_SHORT"},
}

// Suite is the cases for kernels, by the scheduler each has ("CFS" or
// "EEVDF", as schedlab kernels list says; sched6_12 for EEVDF kernels of
// 6.12 and later, which have DELAY_DEQUEUE and PREEMPT_SHORT): for each
// kernel its baselines, then its toggles.
func Suite(kernels []KernelInfo) []Case {
	var out []Case
	for _, k := range kernels {
		for _, c := range baselines {
			c.Kernel = k.Name
			out = append(out, c)
		}
		var toggles []Case
		switch {
		case k.Sched == "CFS":
			toggles = cfsToggles
		case k.Sched == "EEVDF":
			toggles = eevdfToggles
			if k.DelayDequeue {
				toggles = append(append([]Case(nil), toggles...), delayToggles...)
			}
		}
		for _, c := range toggles {
			c.Kernel = k.Name
			out = append(out, c)
		}
	}
	return out
}

// KernelInfo is what the suite needs of a kernel.
type KernelInfo struct {
	Name  string
	Sched string // "CFS" or "EEVDF"
	// DelayDequeue: EEVDF of 6.12 or later.
	DelayDequeue bool
}

// Info says what the suite needs of a kernel (k nil: not fetched; its
// cases are then only read from results).
func Info(name string, k *vm.Kernel) KernelInfo {
	info := KernelInfo{Name: name}
	if k == nil {
		return info
	}
	info.Sched = k.Sched()
	if p, _, err := validate.PolicyFor(k.Release); err == nil {
		info.DelayDequeue = p == "eevdf-6.12" || p == "eevdf-6.18" || p == "eevdf-7.2"
	}
	return info
}
