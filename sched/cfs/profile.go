// Package cfs is the Completely Fair Scheduler as Linux 2.6.24, 2.6.35 and
// 2.6.36 had it (kernel/sched_fair.c), on one or many CPUs, with task groups,
// and the 2010 RFC features as reconstructions (rfc.go). 2.6.24 is its own
// class (cfs24.go) on the same entity and queue types.
//
// Every entity (a task, or a task group's representative on one CPU) has a
// vruntime: the CPU time it received, scaled by NICE_0_LOAD/weight. Each queue
// runs the waiting entity with the smallest vruntime, lets it run for its
// weighted share of a latency period, places waking sleepers slightly left of
// the queue's min_vruntime and new tasks one virtual slice to the right of it.
// The comments in fair.go name the kernel function each rule comes from
// (kernel/sched_fair.c and kernel/sched.c of v2.6.35), the source to compare
// it with.
package cfs

import (
	"fmt"

	"schedlab/sched"
)

// Feature names of 2.6.35, in the kernel's bit order
// (kernel/sched_features.h).
const (
	GentleFairSleepers = "GENTLE_FAIR_SLEEPERS"
	StartDebit         = "START_DEBIT"
	WakeupPreempt      = "WAKEUP_PREEMPT"
	AffineWakeups      = "AFFINE_WAKEUPS"
	NextBuddy          = "NEXT_BUDDY"
	LastBuddy          = "LAST_BUDDY"
	CacheHotBuddy      = "CACHE_HOT_BUDDY"
	ArchPower          = "ARCH_POWER"
	HRTick             = "HRTICK"
	DoubleTick         = "DOUBLE_TICK"
	LBBias             = "LB_BIAS"
	LBSharesUpdate     = "LB_SHARES_UPDATE"
	AsymEffLoad        = "ASYM_EFF_LOAD"
	OwnerSpin          = "OWNER_SPIN"
)

func features2635() []sched.Feature {
	return []sched.Feature{
		{Name: GentleFairSleepers, Default: true, Doc: "a waking sleeper is placed sched_latency/2 (not a full sched_latency) left of min_vruntime"},
		{Name: StartDebit, Default: true, Doc: "a new task starts one virtual slice right of min_vruntime, so forks cannot jump the queue"},
		{Name: WakeupPreempt, Default: true, Doc: "wakeups may preempt; the tick also compares vruntimes (after min_granularity)"},
		{Name: AffineWakeups, Default: true, Doc: "no effect: defined but referenced nowhere in 2.6.35"},
		{Name: NextBuddy, Default: false, Doc: "a wakee becomes the next buddy when the queue has >= sched_nr_latency entities"},
		{Name: LastBuddy, Default: true, Doc: "a task preempted by a wakeup becomes the last buddy, to get the CPU back soon"},
		{Name: CacheHotBuddy, Default: true, SMPOnly: true, Doc: "the load balancer treats buddies as cache-hot (SMP only)"},
		{Name: ArchPower, Default: false, SMPOnly: true, Doc: "cpu_power from the architecture (SMP only)"},
		{Name: HRTick, Default: false, Doc: "a high-resolution timer ends each slice exactly instead of at the next tick"},
		{Name: DoubleTick, Default: false, Doc: "with HRTICK: let the periodic tick preempt too"},
		{Name: LBBias, Default: true, SMPOnly: true, Doc: "load balancing biases source/target load estimates (SMP only)"},
		{Name: LBSharesUpdate, Default: true, SMPOnly: true, Doc: "refresh group shares during wakeup CPU selection (SMP only)"},
		{Name: AsymEffLoad, Default: true, SMPOnly: true, Doc: "asymmetric effective_load in wake-affine decisions (SMP only)"},
		{Name: OwnerSpin, Default: true, SMPOnly: true, Doc: "adaptive mutex spinning; not scheduler policy (no effect here)"},
	}
}

// Tunable names.
const (
	Latency         = "sched_latency_ns"
	MinGranularity  = "sched_min_granularity_ns"
	WakeupGran      = "sched_wakeup_granularity_ns"
	NrLatency       = "sched_nr_latency"
	ChildRunsFirst  = "sched_child_runs_first"
	CompatYield     = "sched_compat_yield"
	TunableScaling  = "sched_tunable_scaling"
	MigrationCost   = "sched_migration_cost_ns"
	SharesRatelimit = "sched_shares_ratelimit_ns"
	SharesThresh    = "sched_shares_thresh"
	ArchBits        = "arch"
	ForkStaleClock  = "fork_stale_clock"
)

func tunables2635(minGran int64, staleFork int64) []sched.Tunable {
	return []sched.Tunable{
		{Name: Latency, Default: 6000000, Unit: "ns", Min: 100000, Max: 1000000000, Scaled: true,
			Doc: "targeted period in which every runnable task runs once (normalized value; scaled by CPU count)"},
		{Name: MinGranularity, Default: minGran, Unit: "ns", Min: 100000, Max: 1000000000, Scaled: true,
			Doc: "minimal slice; the period grows as nr_running x this beyond sched_nr_latency tasks"},
		{Name: WakeupGran, Default: 1000000, Unit: "ns", Min: 0, Max: 1000000000, Scaled: true,
			Doc: "a wakee preempts only if it is this much virtual time left of the running task"},
		{Name: NrLatency, Unit: "", Min: 1, Max: 1 << 31, Derived: true,
			Doc: "derived: ceil(sched_latency_ns / sched_min_granularity_ns); also gates buddies"},
		{Name: ChildRunsFirst, Default: 0, Min: 0, Max: 1, Doc: "after fork, swap vruntimes so the child runs before the parent"},
		{Name: CompatYield, Default: 0, Min: 0, Max: 1, Doc: "sched_yield moves the task to the right end of the tree"},
		{Name: TunableScaling, Default: sched.ScalingLog, Choices: []int64{sched.ScalingNone, sched.ScalingLog, sched.ScalingLinear},
			Doc: "how latency/granularity scale with CPUs: 0 none, 1 1+log2(ncpu), 2 ncpu (ncpu capped at 8)"},
		{Name: MigrationCost, Default: 500000, Unit: "ns", Min: 0, Max: 1 << 40, Doc: "SMP only: a task that ran this recently is cache-hot"},
		{Name: SharesRatelimit, Default: 250000, Unit: "ns", Min: 0, Max: 1 << 40, Scaled: true, Doc: "SMP only: minimum interval between group share updates"},
		{Name: SharesThresh, Default: 4, Min: 0, Max: 1 << 20, Doc: "SMP only: group share changes below this are ignored"},
		{Name: ArchBits, Default: 64, Choices: []int64{32, 64},
			Doc: "word size of the modelled kernel: 32 uses WMULT_CONST 2^32-1 and compares the tick check signed (Pentium M); 64 has the tick sign bug"},
		{Name: ForkStaleClock, Default: staleFork, Min: 0, Max: 1,
			Doc: "1: fork placement charges the parent only up to the last clock update (2.6.35); 0: fresh clock (2.6.36, 861d034ee81)"},
	}
}

// Names 6.1 added or renamed (kernel/sched/features.h and fair.c of v6.1).
const (
	WakeupPreemption   = "WAKEUP_PREEMPTION"
	AltPeriod          = "ALT_PERIOD"
	BaseSlice          = "BASE_SLICE"
	IdleMinGranularity = "sched_idle_min_granularity_ns"
	profile61          = "cfs-6.1"
	profile510         = "cfs-5.10"
)

// features61 is 6.1's list, in its order (what its debugfs
// sched/features prints); only the first block acts on the simulated
// fair class.
func features61() []sched.Feature {
	smp := func(name string, def bool, doc string) sched.Feature {
		return sched.Feature{Name: name, Default: def, SMPOnly: true, Doc: doc}
	}
	return []sched.Feature{
		{Name: GentleFairSleepers, Default: true, Doc: "a waking sleeper is placed sched_latency/2 (not a full sched_latency; min_granularity for SCHED_IDLE) left of min_vruntime"},
		{Name: StartDebit, Default: true, Doc: "a new task starts one virtual slice right of min_vruntime, so forks cannot jump the queue"},
		{Name: NextBuddy, Default: false, Doc: "a wakee becomes the next buddy when the queue has >= sched_nr_latency entities (a preempting wakee always does)"},
		{Name: LastBuddy, Default: true, Doc: "a task preempted by a wakeup becomes the last buddy, to get the CPU back soon (the next buddy is preferred)"},
		smp(CacheHotBuddy, true, "the load balancer treats buddies as cache-hot (not modelled: the engine balances)"),
		{Name: WakeupPreemption, Default: true, Doc: "wakeups may preempt the running task"},
		{Name: HRTick, Default: false, Doc: "a high-resolution timer ends each slice exactly instead of at the next tick"},
		{Name: "HRTICK_DL", Default: false, Doc: "hrtick for the deadline class (no effect here)"},
		{Name: DoubleTick, Default: false, Doc: "with HRTICK: let the periodic tick preempt too"},
		smp("NONTASK_CAPACITY", true, "capacity accounting of irq/steal time (not modelled)"),
		smp("TTWU_QUEUE", true, "remote wakeups through the IPI wake list (not modelled)"),
		smp("SIS_PROP", false, "proportional idle-CPU scan (not modelled: the engine selects CPUs)"),
		smp("SIS_UTIL", true, "utilization-limited idle-CPU scan (not modelled: the engine selects CPUs)"),
		{Name: "WARN_DOUBLE_CLOCK", Default: false, Doc: "debug warning (no effect)"},
		smp("RT_PUSH_IPI", false, "RT class push via IPI (no effect on the fair class)"),
		{Name: "RT_RUNTIME_SHARE", Default: false, Doc: "RT class runtime sharing (no effect on the fair class)"},
		smp("LB_MIN", false, "balancer ignores tiny loads (not modelled)"),
		smp("ATTACH_AGE_LOAD", true, "PELT ageing on attach (PELT is not modelled)"),
		smp("WA_IDLE", true, "wake_affine prefers an idle CPU (the engine selects CPUs)"),
		smp("WA_WEIGHT", true, "wake_affine compares loads (the engine selects CPUs)"),
		smp("WA_BIAS", true, "wake_affine load bias (the engine selects CPUs)"),
		smp("UTIL_EST", true, "estimated utilization (PELT is not modelled)"),
		smp("UTIL_EST_FASTUP", true, "util_est fast ramp-up (PELT is not modelled)"),
		{Name: "LATENCY_WARN", Default: false, Doc: "debug warning on long need_resched (no effect)"},
		smp("NI_RANDOM", true, "probabilistic newidle balance, in Debian's 6.1.192 (the engine balances)"),
		{Name: AltPeriod, Default: true, Doc: "the slice's period counts every task on the CPU (h_nr_running), not the entities of the task's own queue"},
		{Name: BaseSlice, Default: true, Doc: "no slice is shorter than sched_min_granularity_ns (sched_idle_min_granularity_ns for SCHED_IDLE among others)"},
	}
}

// features510 is Debian 5.10's list (kernel/sched/features.h of
// linux-source-5.10 5.10.262, which has ALT_PERIOD and BASE_SLICE from
// 5.13 through the stable updates), in its order.
func features510() []sched.Feature {
	var out []sched.Feature
	for _, f := range features61() {
		switch f.Name {
		case "HRTICK_DL", "SIS_UTIL", "LATENCY_WARN", "NI_RANDOM":
			continue // later than 5.10
		case "SIS_PROP":
			f.Default = true
			out = append(out, sched.Feature{Name: "SIS_AVG_CPU", Default: false, SMPOnly: true, Doc: "idle-CPU scan bounded by the average idle time (not modelled: the engine selects CPUs)"})
		case "RT_PUSH_IPI":
			f.Default = true
		case GentleFairSleepers:
			f.Doc = "a waking sleeper is placed sched_latency/2 (not a full sched_latency) left of min_vruntime"
		case BaseSlice:
			f.Doc = "no slice is shorter than sched_min_granularity_ns"
		}
		out = append(out, f)
	}
	return out
}

// tunables510 is 6.1's set without sched_idle_min_granularity_ns (5.15).
func tunables510() []sched.Tunable {
	var out []sched.Tunable
	for _, t := range tunables61() {
		if t.Name != IdleMinGranularity {
			out = append(out, t)
		}
	}
	return out
}

func tunables61() []sched.Tunable {
	var out []sched.Tunable
	for _, t := range tunables2635(750000, 0) {
		switch t.Name {
		case CompatYield, SharesRatelimit, SharesThresh, ArchBits, ForkStaleClock:
			continue // gone by 6.1 (or, for arch and the fork clock, fixed: 64-bit, fresh)
		}
		out = append(out, t)
		if t.Name == MinGranularity {
			out = append(out, sched.Tunable{Name: IdleMinGranularity, Default: 750000, Unit: "ns", Min: 100000, Max: 1000000000,
				Doc: "BASE_SLICE floor of a SCHED_IDLE task's slice among non-idle ones (not scaled by CPU count)"})
		}
	}
	return out
}

func init() {
	sched.Register(&sched.Profile{
		Name:     "cfs-2.6.35",
		Doc:      "CFS of Linux 2.6.35 (min_granularity 2 ms, nr_latency 3), with the 2010 RFC features as reconstructions (docs/reconstructions.md)",
		Features: append(features2635(), rfcFeatures()...),
		Tunables: append(tunables2635(2000000, 1), rfcTunables()...),
		New:      New,
		Resolve:  resolve,
		// 2.6.35/2.6.36 fork.c: dup_task_struct copies thread_info whole.
		ReschedBefore2637: true,
	})
	sched.Register(&sched.Profile{
		Name:     "cfs-2.6.36",
		Doc:      "CFS of Linux 2.6.36: 2.6.35 with min_granularity 0.75 ms, nr_latency 8 (0bf377bbb0be) and a fresh clock at fork",
		Features: features2635(),
		Tunables: tunables2635(750000, 0),
		New:      New,
		Resolve:  resolve,
		// 2.6.35/2.6.36 fork.c: dup_task_struct copies thread_info whole.
		ReschedBefore2637: true,
	})
	sched.Register(&sched.Profile{
		Name:     profile61,
		Doc:      "CFS of Linux 6.1 (Debian 12's kernel): 2.6.36 plus ALT_PERIOD, BASE_SLICE, the signed tick check, next-buddy preference, skip-buddy yield, the long-sleeper rule and schedule()'s clock skip (sched/cfs/linux61.go)",
		Features: features61(),
		Tunables: tunables61(),
		New:      New,
		Resolve:  resolve,
	})
	sched.Register(&sched.Profile{
		Name:     profile510,
		Doc:      "CFS of Debian's Linux 5.10 (Debian 11's kernel), read from its source: cfs-6.1 without 6.1's SCHED_IDLE rules (a SCHED_IDLE sleeper's smaller credit, sched_idle_min_granularity_ns); its ALT_PERIOD and BASE_SLICE are 5.13's, taken into 5.10.y",
		Features: features510(),
		Tunables: tunables510(),
		New:      New,
		Resolve:  resolve,
	})
}

// resolve applies the CPU-count scaling to tunables the user left at their
// normalized defaults and derives sched_nr_latency as the sysctl handler
// does, so that --set sched_min_granularity_ns=750000 gives 8 as 0bf377bbb0be
// wrote by hand.
func resolve(cfg *sched.Config, userSet map[string]bool) error {
	if userSet[NrLatency] {
		return fmt.Errorf("tunable %s is derived from %s and %s; set those instead", NrLatency, Latency, MinGranularity)
	}
	cfg.ScaleTunables(userSet, sched.ScaleFactor(cfg.Tunables[TunableScaling], cfg.NCPU))
	lat, gran := cfg.Tunables[Latency], cfg.Tunables[MinGranularity]
	cfg.Tunables[NrLatency] = (lat + gran - 1) / gran
	return nil
}
