package eevdf

import (
	"fmt"

	"schedlab/sched"
)

// Feature names (kernel/sched/features.h).
const (
	PlaceLag             = "PLACE_LAG"
	PlaceDeadlineInitial = "PLACE_DEADLINE_INITIAL"
	PlaceRelDeadline     = "PLACE_REL_DEADLINE"
	RunToParity          = "RUN_TO_PARITY"
	PreemptShort         = "PREEMPT_SHORT"
	NextBuddy            = "NEXT_BUDDY"
	PickBuddy            = "PICK_BUDDY"
	CacheHotBuddy        = "CACHE_HOT_BUDDY"
	DelayDequeue         = "DELAY_DEQUEUE"
	DelayZero            = "DELAY_ZERO"
	WakeupPreemption     = "WAKEUP_PREEMPTION"
	HRTick               = "HRTICK"
	HRTickDL             = "HRTICK_DL"
	DoubleTick           = "DOUBLE_TICK"
	NontaskCapacity      = "NONTASK_CAPACITY"
	TTWUQueue            = "TTWU_QUEUE"
	SISProp              = "SIS_PROP"
	SISUtil              = "SIS_UTIL"
	WarnDoubleClock      = "WARN_DOUBLE_CLOCK"
	RTPushIPI            = "RT_PUSH_IPI"
	RTRuntimeShare       = "RT_RUNTIME_SHARE"
	LBMin                = "LB_MIN"
	AttachAgeLoad        = "ATTACH_AGE_LOAD"
	WAIdle               = "WA_IDLE"
	WAWeight             = "WA_WEIGHT"
	WABias               = "WA_BIAS"
	UtilEst              = "UTIL_EST"
	UtilEstFastup        = "UTIL_EST_FASTUP"
	LatencyWarn          = "LATENCY_WARN"
	HZBW                 = "HZ_BW"
	NIRandom             = "NI_RANDOM"
	NIRate               = "NI_RATE"
	ParanoidAvg          = "PARANOID_AVG"
)

// Tunable names.
const (
	BaseSlice      = "sched_base_slice_ns"
	TunableScaling = "sched_tunable_scaling"
	MigrationCost  = "sched_migration_cost_ns"
	TickNsec       = "tick_nsec"
	Sublevel       = "kernel_sublevel"
	GroupShares    = "group_shares_split"
)

// fdesc is one row of the feature table: which generations have the
// feature (and its default there).
type fdesc struct {
	f  sched.Feature
	in [4]bool // 6.6, 6.12, 6.18, 7.2
}

const (
	g66 = iota
	g612
	g618
	g72
)

// featureTable is kernel/sched/features.h in the kernel's order, as 6.6.0,
// 6.18.2 and 6.18.35 have it; 6.12's column is Debian's 6.12.95
// (linux-source-6.12 6.12.95-1~bpo12+1, the debian-6.12 kernel), which has
// DOUBLE_TICK, NI_RANDOM (a stable backport) and neither UTIL_EST_FASTUP
// nor HZ_BW.
var featureTable = []fdesc{
	{sched.Feature{Name: PlaceLag, Default: true, Doc: "keep a task's lag across sleep and migration; off: join at V with zero lag"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: PlaceDeadlineInitial, Default: true, Doc: "a new task's first deadline is V + vslice/2 (no net effect before 6.12: placed again at enqueue)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: PlaceRelDeadline, Default: true, Doc: "a non-sleep dequeue (migration, nice change) keeps the rest of the request"}, [4]bool{false, true, true, true}},
	{sched.Feature{Name: RunToParity, Default: true, Doc: "slice protection: curr keeps the CPU until its request (or the shortest queued slice) is served"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: PreemptShort, Default: true, Doc: "a wakee with a shorter slice than curr's is judged with curr's protection ignored"}, [4]bool{false, true, true, true}},
	{sched.Feature{Name: NextBuddy, Default: false, Doc: "a wakee becomes the next buddy (6.6: the only way a buddy is honoured)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: PickBuddy, Default: true, Doc: "the pick honours the next buddy when it is eligible"}, [4]bool{false, true, true, true}},
	{sched.Feature{Name: CacheHotBuddy, Default: true, SMPOnly: true, Doc: "the load balancer treats the buddy as cache-hot (not modelled: the engine balances)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: DelayDequeue, Default: true, Doc: "a task sleeping with negative lag stays queued (delayed) until it is eligible"}, [4]bool{false, true, true, true}},
	{sched.Feature{Name: DelayZero, Default: true, Doc: "a delayed task leaves (or is requeued) with its positive lag dropped to zero"}, [4]bool{false, true, true, true}},
	{sched.Feature{Name: ParanoidAvg, Default: false, Doc: "7.2: a debug check of the avg_vruntime sums (no effect)"}, [4]bool{false, false, false, true}},
	{sched.Feature{Name: WakeupPreemption, Default: true, Doc: "wakeups may preempt the running task"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: HRTick, Default: false, Reconstruction: "R2", Doc: "a high-resolution timer ends the running request (armed for the rest of the virtual request)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: HRTickDL, Default: false, Doc: "hrtick for the deadline class (no effect here)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: DoubleTick, Default: false, Doc: "with HRTICK, let the periodic tick act too (no effect since EEVDF: update_curr runs first)"}, [4]bool{true, true, false, false}},
	{sched.Feature{Name: NontaskCapacity, Default: true, SMPOnly: true, Doc: "capacity accounting of irq/steal time (not modelled)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: TTWUQueue, Default: true, SMPOnly: true, Doc: "remote wakeups through the IPI wake list (not modelled)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: SISProp, Default: false, SMPOnly: true, Doc: "proportional idle-CPU scan (not modelled; removed in 6.7)"}, [4]bool{true, false, false, false}},
	{sched.Feature{Name: SISUtil, Default: true, SMPOnly: true, Doc: "utilization-limited idle-CPU scan (not modelled: the engine selects CPUs)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: WarnDoubleClock, Default: false, Doc: "debug warning (no effect)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: RTPushIPI, Default: true, SMPOnly: true, Doc: "RT class push via IPI (no effect on the fair class)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: RTRuntimeShare, Default: false, Doc: "RT class runtime sharing (no effect on the fair class)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: LBMin, Default: false, SMPOnly: true, Doc: "balancer ignores tiny loads (not modelled)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: AttachAgeLoad, Default: true, SMPOnly: true, Doc: "PELT ageing on attach (PELT is not modelled)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: WAIdle, Default: true, SMPOnly: true, Doc: "wake_affine prefers an idle CPU (the engine selects CPUs)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: WAWeight, Default: true, SMPOnly: true, Doc: "wake_affine compares loads (the engine selects CPUs)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: WABias, Default: true, SMPOnly: true, Doc: "wake_affine load bias (the engine selects CPUs)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: UtilEst, Default: true, SMPOnly: true, Doc: "estimated utilization (PELT is not modelled)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: UtilEstFastup, Default: true, SMPOnly: true, Doc: "util_est fast ramp-up (PELT is not modelled)"}, [4]bool{true, false, false, false}},
	{sched.Feature{Name: LatencyWarn, Default: false, Doc: "debug warning on long need_resched (no effect)"}, [4]bool{true, true, true, true}},
	{sched.Feature{Name: HZBW, Default: true, Doc: "tick for CFS bandwidth on nohz_full (bandwidth is not modelled)"}, [4]bool{true, false, false, false}},
	{sched.Feature{Name: NIRandom, Default: true, SMPOnly: true, Doc: "6.12.y and 6.18.y: probabilistic newidle balance (the engine balances)"}, [4]bool{false, true, true, true}},
	{sched.Feature{Name: NIRate, Default: true, SMPOnly: true, Doc: "7.2: rate-limited newidle balance (the engine balances)"}, [4]bool{false, false, false, true}},
}

func features(gen int) []sched.Feature {
	var out []sched.Feature
	for _, d := range featureTable {
		if !d.in[gen] {
			continue
		}
		f := d.f
		if gen == g72 && (f.Name == HRTick || f.Name == HRTickDL) {
			// 7.2's features.h: on where CONFIG_HRTIMER_REARM_DEFERRED
			// is, as in Debian's build (the guest reports HRTICK set).
			f.Default = true
		}
		if gen == g72 && f.Name == RTPushIPI {
			f.Default = false // 7.2: on only with PREEMPT_RT
		}
		out = append(out, f)
	}
	return append(out, whatIfFeatures()...)
}

func tunables(gen int, baseSlice int64) []sched.Tunable {
	t := []sched.Tunable{
		{Name: BaseSlice, Default: baseSlice, Unit: "ns", Min: 10000, Max: 1000000000, Scaled: true,
			Doc: "request size of every task without a custom slice (normalized value; scaled by the CPU-count factor)"},
		{Name: TunableScaling, Default: sched.ScalingLog, Choices: []int64{sched.ScalingNone, sched.ScalingLog, sched.ScalingLinear},
			Doc: "how the base slice scales with CPUs: 0 none, 1 1+log2(ncpu), 2 ncpu (ncpu capped at 8)"},
		{Name: MigrationCost, Default: 500000, Unit: "ns", Min: 0, Max: 1 << 40,
			Doc: "NEXT_BUDDY sync-wakeup test (6.18.35) and cache-hotness (SMP)"},
		{Name: TickNsec, Default: 4000000, Unit: "ns", Min: 1000000, Max: 10000000, Derived: true,
			Doc: "TICK_NSEC of the modelled kernel, used by the lag clamp: the engine's tick, 10^9/HZ (4 ms at HZ=250), unless set"},
		{Name: GroupShares, Default: 1, Choices: []int64{0, 1}, Reconstruction: "R1",
			Doc: "SMP group entity weight: 1 shares x this CPU's group load / the group's load on all CPUs (instant, no PELT); 0 full shares on every CPU"},
	}
	t = append(t, whatIfTunables()...)
	if gen == g618 {
		t = append(t, sched.Tunable{Name: Sublevel, Default: 35, Choices: []int64{2, 35},
			Doc: "6.18 stable release: 35 (zero_vruntime, max_slice lag clamp, buddy in pick_eevdf, no fork preemption) or 2 (6.18.0-.2)"})
	}
	return t
}

func init() {
	sched.Register(&sched.Profile{
		Name:     "eevdf-6.6",
		Doc:      "EEVDF of Linux 6.6: base slice 0.75 ms, protection until the first deadline renewal, no custom slices, no delayed dequeue",
		Features: features(g66),
		Tunables: tunables(g66, 750000),
		New:      newOf(g66),
		Resolve:  resolve,
	})
	sched.Register(&sched.Profile{
		Name:     "eevdf-6.12",
		Doc:      "EEVDF of Linux 6.12 as Debian's 6.12.95 has it: 6.6 plus custom slices, PREEMPT_SHORT, DELAY_DEQUEUE/DELAY_ZERO, PLACE_REL_DEADLINE, PICK_BUDDY, deadline-ordered tree, and the stable backports of a 0.70 ms base slice and zero_vruntime",
		Features: features(g612),
		Tunables: tunables(g612, 700000),
		New:      newOf(g612),
		Resolve:  resolve,
	})
	// Debian unstable's 7.2.13 (linux-source-7.2) has 6.18.35's one-CPU
	// fair paths (zero_vruntime, the max_slice+tick lag clamp, vprot,
	// PICK_BUDDY in pick_eevdf, no fork preemption, delayed dequeue) but
	// runs them under another core: eevdf-7.2 below.
	sched.Register(&sched.Profile{
		Name:     "eevdf-6.18",
		Doc:      "EEVDF of Linux 6.18.35 (the host's generation): base slice 0.70 ms, vprot from the shortest queued slice, lag clamp max_slice+tick, no fork preemption",
		Features: features(g618),
		Tunables: tunables(g618, 700000),
		New:      newOf(g618),
		Resolve:  resolve,
	})
	sched.Register(&sched.Profile{
		Name:     "eevdf-7.2",
		Doc:      "EEVDF of Debian's Linux 7.2.13: 6.18.35's fair class under lazy preemption (PREEMPT_LAZY), with HRTICK on and 7.2's hrtick (armed at a switch, kept across schedule(), not re-armed while armed)",
		Features: features(g72),
		Tunables: tunables(g72, 700000),
		New:      newOf(g72),
		Resolve:  resolve,
	})
}

// resolve scales the base slice and takes the machine's tick as tick_nsec,
// unless the user set them.
func resolve(cfg *sched.Config, userSet map[string]bool) error {
	cfg.ScaleTunables(userSet, sched.ScaleFactor(cfg.Tunables[TunableScaling], cfg.NCPU))
	if !userSet[TickNsec] && cfg.TickNS > 0 {
		cfg.Tunables[TickNsec] = cfg.TickNS
	}
	if cfg.Tunables[BaseSlice] <= 0 {
		return fmt.Errorf("%s must be positive", BaseSlice)
	}
	return nil
}

// version holds what differs between the generations beyond the feature
// bits.
type version struct {
	name string // for messages and tests; behaviour follows the fields

	// zeroVruntime: the origin of the avg_vruntime sums follows V
	// (6.18.35); otherwise it is a monotonic min_vruntime.
	zeroVruntime bool
	// maxSliceClamp: the lag clamp is max_slice(q)+tick (6.18.35), not
	// max(2*slice, tick).
	maxSliceClamp bool
	// vprot: protection is the vruntime limit vprot (6.17+); otherwise the
	// 6.6-6.16 marker vlag == deadline set at pick.
	vprot bool
	// vprotFirstOnly: vprot is computed only on a real switch (6.18.35).
	vprotFirstOnly bool
	// buddyInPick: PICK_BUDDY sits in pick_eevdf (6.18.35), so wakeup
	// preemption sees it; otherwise in pick_next_entity.
	buddyInPick bool
	// preempt1835: check_preempt_wakeup_fair of 6.18.35 (no fork
	// preemption, NEXT_BUDDY deadline test, update_protect_slice).
	preempt1835 bool
	// customSlices: sched_attr.sched_runtime is honoured, group entities
	// take their queue's shortest slice (6.12+).
	customSlices bool
	// forkPlacedTwice: 6.6 places a child at fork (ENQUEUE_INITIAL) and
	// again at its first enqueue (without), so the half deadline is lost.
	forkPlacedTwice bool
	// tiesKeepCurr: an equal deadline keeps curr (6.6) rather than the
	// tree entity.
	tiesKeepCurr bool
	// marker612: 6.12's update_curr also reschedules a curr whose marker
	// PREEMPT_SHORT cancelled once it is ineligible.
	marker612 bool
	// buddyNeedsNextBuddy: the pick looks at the next buddy only under
	// NEXT_BUDDY (6.6); later, PICK_BUDDY decides.
	buddyNeedsNextBuddy bool
	// idleCurrPreempted: a waking non-idle task preempts a SCHED_IDLE curr
	// at once, before the fair comparison (6.6's check_preempt_wakeup).
	idleCurrPreempted bool
	// preempt612: 6.12.95's check_preempt_wakeup_fair: do_preempt_short
	// (a shorter, eligible wakee, before curr or with curr ineligible)
	// cancels curr's protection whether or not the wakee is then picked,
	// the pick honours what protection is left, and an idle curr's
	// protection is cancelled when a non-idle wakee preempts it.
	preempt612 bool
	// lazy: the core runs PREEMPT_LAZY (7.x on x86, whose Kconfig.preempt
	// offers only full and lazy and defaults to lazy; Debian's 7.2 trace
	// marks fair wakeups 'l'). The fair class's resched_curr_lazy then
	// sets TIF_NEED_RESCHED_LAZY, which a return to user space honours
	// at once (exit_to_user_mode_loop), so a task in user space is
	// switched as soon as under full preemption; but test_tsk_need_resched
	// sees only TIF_NEED_RESCHED, so wakeup_preempt does not skip the
	// coming clock update and wakeup_preempt_fair does not stop at a
	// lazily marked curr. See cpuRQ.fullMark.
	lazy bool
	// hrtick72: 7.2's hrtick (hrtick_start_fair from set_next_task_fair
	// on a real switch only; hrtick_update from enqueue only and not
	// while armed; __schedule no longer cancels it: hrtick_schedule_exit
	// keeps it unless a start was asked during schedule() or the CPU
	// goes idle; a request already overrun is rescheduled at once).
	hrtick72 bool
}

// newOf builds the class of generation g: the generation is bound to the
// profile when it is registered, so a copy of a profile under another name
// (a test's, a user's variant) keeps its kernel's behaviour.
func newOf(g int) func(*sched.Config) (sched.Class, error) {
	return func(cfg *sched.Config) (sched.Class, error) { return build(cfg, versionOf(g, cfg)) }
}

func versionOf(g int, cfg *sched.Config) version {
	switch g {
	case g66:
		return version{name: "6.6", forkPlacedTwice: true, tiesKeepCurr: true, buddyNeedsNextBuddy: true, idleCurrPreempted: true}
	case g612:
		// Debian's 6.12.95: zero_vruntime came back from 6.18.y with the
		// stable updates (there is no update_min_vruntime left).
		return version{name: "6.12", customSlices: true, marker612: true, zeroVruntime: true, preempt612: true}
	case g72:
		// Debian's 7.2.13: 6.18.35's fair paths (wakeup_preempt_fair,
		// pick_eevdf, the protection, the lag clamp read the same), under
		// lazy preemption and 7.2's hrtick.
		return version{name: "7.2", zeroVruntime: true, maxSliceClamp: true, vprot: true, vprotFirstOnly: true,
			buddyInPick: true, preempt1835: true, customSlices: true, lazy: true, hrtick72: true}
	}
	if cfg.Tunables[Sublevel] == 2 {
		return version{name: "6.18.2", vprot: true, customSlices: true}
	}
	return version{name: "6.18.35", zeroVruntime: true, maxSliceClamp: true, vprot: true, vprotFirstOnly: true,
		buddyInPick: true, preempt1835: true, customSlices: true}
}
