package cfs

import (
	"schedlab/sched"
	"schedlab/uapi"
)

// The 2010 RFC features of seeds 000, 002 and 004 (Mathieu Desnoyers). None
// was merged and the patch series is lost except for what the seeds quote,
// so every behaviour here is a labelled reconstruction (R1, described in
// docs/reconstructions.md), with its unknowns as parameters.
// They exist only in the cfs-2.6.35 profile, the base of the author's tree.
const (
	Interactive             = "INTERACTIVE"
	Timer                   = "TIMER"
	InteractiveForkExpedite = "INTERACTIVE_FORK_EXPEDITED"
	TimerForkExpedited      = sched.TimerForkExpedited
	DynMinVruntime          = "DYN_MIN_VRUNTIME"
	StartNice               = sched.StartNice
	CPTFix                  = "CPT_FIX"

	StartNiceDelta      = sched.StartNiceDelta
	StartNiceEnd        = sched.StartNiceEnd
	StartNiceKeepsDebit = "start_nice_keeps_debit"
	StartNiceReading    = "start_nice_reading"
	CPTFixVariant       = "cpt_fix_variant"
)

// Values of start_nice_end.
const (
	startNiceEndDeschedule = sched.StartNiceEndDeschedule
	startNiceEndSlice      = sched.StartNiceEndSlice
)

// Values of start_nice_reading: where START_NICE places the child. The
// mail says only that START_NICE is "an alternative to START_DEBIT which
// does not have the downside of moving newly forked threads to the end of
// the runqueue"; two placements fit that text.
const (
	// startNiceR1 places the child at max(parent, min_vruntime): where
	// NO_START_DEBIT places it, the nice penalty being the only difference.
	startNiceR1 = 1
	// startNiceR2 lets the child keep its parent's vruntime, with no
	// min_vruntime floor: a parent woken with sleeper credit (glibc's
	// SIGEV_THREAD helper) passes that credit on to its child.
	startNiceR2 = 2
)

func rfcFeatures() []sched.Feature {
	return []sched.Feature{
		{Name: DynMinVruntime, Reconstruction: "none",
			Doc:     "listed in seed 000's feature list (default off), nothing else is known",
			Unknown: "only its name survives (seed 000 lists DYN_MIN_VRUNTIME, default 0); no source says what it did, and the one guess (dropping min_vruntime's monotonic clamp) is not defensible (docs/reconstructions.md §DYN_MIN_VRUNTIME)"},
		{Name: Interactive, Reconstruction: "R1",
			Doc: "input-woken tasks, and tasks they wake, become the next buddy (wakeup-chain marks)"},
		{Name: InteractiveForkExpedite, Reconstruction: "R1",
			Doc: "a fork from an input wakeup chain is placed as a waking sleeper, not START_DEBIT's delayed slot"},
		{Name: Timer, Reconstruction: "R1",
			Doc: "timer-woken tasks, and tasks they wake, become the next buddy (\"timer subsystem next buddy affinity\")"},
		{Name: TimerForkExpedited, Reconstruction: "R1",
			Doc: "a fork from a timer wakeup chain (e.g. SIGEV_THREAD) is placed as a waking sleeper, not START_DEBIT's delayed slot"},
		{Name: StartNice, Reconstruction: "R1",
			Doc: "after a fork, parent and child run at nice+start_nice_delta until their next deschedule, instead of START_DEBIT"},
		{Name: CPTFix, Reconstruction: "R1",
			Doc: "the tick compares vruntime distance with the slice in virtual time, not wall time (seed 004; variant: cpt_fix_variant)"},
	}
}

func rfcTunables() []sched.Tunable {
	return []sched.Tunable{
		{Name: StartNiceDelta, Default: 3, Min: 1, Max: 39, Reconstruction: "R1",
			Doc: "START_NICE: nice levels added to parent and child after a fork (+3 charges about one extra slice per slice run)"},
		{Name: StartNiceEnd, Default: startNiceEndDeschedule, Choices: []int64{startNiceEndDeschedule, startNiceEndSlice}, Reconstruction: "R1",
			Doc: "START_NICE: the penalty ends at the task's first deschedule after running (0) or once it ran a full sched_slice (1)"},
		{Name: StartNiceKeepsDebit, Default: 0, Min: 0, Max: 1, Reconstruction: "R1",
			Doc: "START_NICE: 1 keeps START_DEBIT's placement as well (under either reading); 0 places the child as start_nice_reading says"},
		{Name: StartNiceReading, Default: startNiceR1, Choices: []int64{startNiceR1, startNiceR2}, Reconstruction: "R1",
			Doc: "START_NICE: which reconstruction places the child: 1 (R1) at max(parent, min_vruntime), 2 (R2) at the parent's vruntime with no min_vruntime floor"},
		// Seed 004: with the fix, min_granularity "won't affect the
		// preemption granularity directly, but rather indirectly through
		// the period length" — so the fix dropped the min_granularity
		// guard too: CPT-B is the default reading.
		{Name: CPTFixVariant, Default: 2, Choices: []int64{1, 2}, Reconstruction: "R1",
			Doc: "CPT_FIX: 2 (CPT-B, default) compares with calc_delta_fair(slice), signed, and drops the min_granularity guard (seed 004); 1 (CPT-A) keeps the guard"},
	}
}

// rfc holds the switches of the RFC features for one run.
type rfc struct {
	interactive, timer bool
	ife, tfe           bool
	// marks: one of the four features above reads the wakeup marks; with
	// none on, nothing does, and the hooks leave them unset.
	marks                  bool
	startNice              bool
	startNiceDelta         int
	startNiceEndSlice      bool
	startNiceKeepsDebit    bool
	startNiceR2            bool
	cptFix, cptNoGranGuard bool
}

func newRFC(cfg *sched.Config) rfc {
	r := rfc{
		interactive: cfg.Features[Interactive],
		timer:       cfg.Features[Timer],
		ife:         cfg.Features[InteractiveForkExpedite],
		tfe:         cfg.Features[TimerForkExpedited],
		startNice:   cfg.Features[StartNice],
		cptFix:      cfg.Features[CPTFix],
	}
	r.marks = r.interactive || r.timer || r.ife || r.tfe
	if r.startNice {
		r.startNiceDelta = int(cfg.Tunables[StartNiceDelta])
		r.startNiceEndSlice = cfg.Tunables[StartNiceEnd] == startNiceEndSlice
		r.startNiceKeepsDebit = cfg.Tunables[StartNiceKeepsDebit] != 0
		r.startNiceR2 = cfg.Tunables[StartNiceReading] == startNiceR2
	}
	if r.cptFix {
		r.cptNoGranGuard = cfg.Tunables[CPTFixVariant] == 2
	}
	return r
}

// markWakeup sets t's marks for a wakeup (sched.WakeMarks, R1): the
// chains propagate only with INTERACTIVE or TIMER on.
func (c *CFS) markWakeup(se *entity, w sched.WakeInfo) {
	var waker *sched.WakeMarks
	if w.Waker != nil {
		waker = &taskSE(w.Waker).marks
	}
	se.marks.Wakeup(w, waker, c.rfc.timer, c.rfc.interactive)
}

// clearMarks forgets a task's marks when it blocks (R1, clearing).
func clearMarks(se *entity) { se.marks.Clear() }

// chainBuddy is the effect of INTERACTIVE and TIMER: a marked wakee becomes
// the next buddy whatever NEXT_BUDDY and the queue length say.
func (c *CFS) chainBuddy(se *entity) bool {
	return (c.rfc.timer && se.marks.Timer()) || (c.rfc.interactive && se.marks.Interactive())
}

// forkExpedited decides, in the parent's context, whether the child's first
// placement is a wakeup's: the boost is not transferable, so the child
// starts with no marks of its own.
func (c *CFS) forkExpedited(parent *entity) bool {
	return (c.rfc.ife && parent.marks.Interactive()) || (c.rfc.tfe && parent.marks.Timer())
}

// startNicePenalty gives se the temporary START_NICE weight, requeueing it
// as set_user_nice does (the vruntime is not rescaled).
func (c *CFS) startNicePenalty(env sched.RQ, se *entity) {
	t := se.task
	nice := min(t.Nice+c.rfc.startNiceDelta, uapi.MaxNice)
	se.startNice = true
	se.sumAtFork = se.sumExec
	c.reweight(env, se, sched.NiceWeight(nice, t.Policy))
	// The running parent's priority fell: set_user_nice reschedules it.
	if env.Curr() == t {
		env.Resched()
	}
}

// endStartNice restores the permanent weight once the penalty is over.
func (c *CFS) endStartNice(env sched.RQ, se *entity) {
	se.startNice = false
	c.reweight(env, se, sched.NiceWeight(se.task.Nice, se.task.Policy))
}

// reweight changes a task entity's weight in place. For a queued task this
// is what dequeue and enqueue with flags 0 do when its queue keeps other
// entities: charge the running entity, swap the weight in the queue's load.
func (c *CFS) reweight(env sched.RQ, se *entity, lw sched.LoadWeight) {
	if se.onRQ {
		c.rq(env)
		c.updateCurr(se.q)
		se.q.subLoad(se.load.Weight)
		se.q.addLoad(lw.Weight)
	}
	se.load = lw
}
