package eevdf

import (
	"schedlab/sched"
	"schedlab/uapi"
)

// Two of the 2010 RFC features (seeds 000 and 002), ported to EEVDF as
// what-ifs: no kernel has them, CFS's versions (sched/cfs/rfc.go) are
// reconstructions already, and what they would mean for EEVDF's lag is
// ours (docs/reconstructions.md, "eevdf-today"). Both default off and are
// left out of a run's report while off.
const (
	TimerForkExpedited = sched.TimerForkExpedited
	StartNice          = sched.StartNice

	StartNiceDelta = sched.StartNiceDelta
	StartNiceEnd   = sched.StartNiceEnd
)

// Values of start_nice_end, as the CFS model's.
const (
	startNiceEndDeschedule = sched.StartNiceEndDeschedule
	startNiceEndSlice      = sched.StartNiceEndSlice
)

func whatIfFeatures() []sched.Feature {
	return []sched.Feature{
		{Name: TimerForkExpedited, Reconstruction: "R1", WhatIf: true,
			Doc: "what-if (seed 000 on EEVDF): a fork from a timer wakeup chain joins with its parent's lag and a wakeup's deadline, not at V with a new task's"},
		{Name: StartNice, Reconstruction: "R1", WhatIf: true,
			Doc: "what-if (seed 002 on EEVDF): after a fork, parent and child run at nice+start_nice_delta (a lighter weight, a longer virtual slice) until their next deschedule"},
	}
}

func whatIfTunables() []sched.Tunable {
	return []sched.Tunable{
		{Name: StartNiceDelta, Default: 3, Min: 1, Max: 39, Reconstruction: "R1",
			Doc: "START_NICE: nice levels added to parent and child after a fork (+3: weight 526, a virtual slice 1.95 times nice 0's)"},
		{Name: StartNiceEnd, Default: startNiceEndDeschedule, Choices: []int64{startNiceEndDeschedule, startNiceEndSlice}, Reconstruction: "R1",
			Doc: "START_NICE: the penalty ends at the task's first deschedule after running (0) or once it ran a full base slice (1)"},
	}
}

// whatIf holds the what-ifs' switches for one run.
type whatIf struct {
	tfe               bool
	startNice         bool
	startNiceDelta    int
	startNiceEndSlice bool
}

func newWhatIf(cfg *sched.Config) whatIf {
	w := whatIf{tfe: cfg.Features[TimerForkExpedited], startNice: cfg.Features[StartNice]}
	if w.startNice {
		w.startNiceDelta = int(cfg.Tunables[StartNiceDelta])
		w.startNiceEndSlice = cfg.Tunables[StartNiceEnd] == startNiceEndSlice
	}
	return w
}

// markWakeup follows the timer chains for TIMER_FORK_EXPEDITED. EEVDF has
// no TIMER feature (CFS's was a next-buddy affinity), so the chain is
// followed whenever the what-if is on: the CFS row it mirrors runs
// TIMER,TIMER_FORK_EXPEDITED.
func (c *EEVDF) markWakeup(se *entity, w sched.WakeInfo) {
	if !c.whatIf.tfe {
		return
	}
	var waker *sched.WakeMarks
	if w.Waker != nil {
		waker = &taskSE(w.Waker).marks
	}
	se.marks.Wakeup(w, waker, true, false)
}

// expediteFork makes child's first placement a wakeup's, with the lag
// its parent has now (the lag update_entity_lag would save were the
// parent to sleep now, clamped to the child's limit): what CFS's
// expedited child got by keeping its parent's vruntime and being placed
// as a sleeper. q is the parent's queue, charged up to now.
func (c *EEVDF) expediteFork(q *cfsRQ, parent, child *entity) {
	if !c.whatIf.tfe || !parent.marks.Timer() {
		return
	}
	child.marks.ForkExpedited = true
	limit := c.lagLimit(q, child)
	vl := int64(q.avg() - parent.vruntime)
	child.vlag = min(max(vl, -limit), limit)
}

// startNicePenalty gives parent and child the temporary weight at a fork.
// The child is not queued yet: its weight is set before it is placed, so
// its first request is vslice at that weight.
func (c *EEVDF) startNicePenalty(env sched.RQ, parent, child *sched.Task) {
	if !c.whatIf.startNice {
		return
	}
	penalize := func(t *sched.Task) {
		se := taskSE(t)
		se.startNice, se.sumAtFork = true, se.sumExec
		lw := sched.NiceWeight(min(t.Nice+c.whatIf.startNiceDelta, uapi.MaxNice), t.Policy)
		c.setWeight(env, se, lw)
		// The running parent got less important: prio_changed_fair
		// reschedules it.
		if env.Curr() == t && se.onRQ {
			se.q.cpu.reschedFull(env)
		}
	}
	penalize(child)
	// The parent runs on env: a parent whose queue is another CPU's
	// (none in the engine's forks) is left alone rather than reweighted
	// from the wrong CPU.
	if parent != nil && taskSE(parent).q.cpu == c.cpus[env.CPU()] {
		penalize(parent)
	}
}

// endStartNiceAtPut restores prev's own weight at its first deschedule
// after it ran since the fork (start_nice_end=0); called by PutPrev with
// prev still curr, before the pick, where CFS's put_prev_task did it.
func (c *EEVDF) endStartNiceAtPut(env sched.RQ, prev *entity) {
	if prev == nil || !prev.startNice || c.whatIf.startNiceEndSlice {
		return
	}
	// put_prev_entity's update_curr, early: did it run since the fork?
	if prev.q.curr == prev {
		c.updateCurr(env, prev.q)
	}
	if prev.sumExec != prev.sumAtFork {
		c.endStartNice(env, prev)
	}
}

// endStartNiceAtTick ends the penalty of curr once it ran a full base
// slice since the fork (start_nice_end=1).
func (c *EEVDF) endStartNiceAtTick(env sched.RQ, curr *entity) {
	if !curr.startNice || !c.whatIf.startNiceEndSlice || curr.sumExec-curr.sumAtFork <= c.baseSlice {
		return
	}
	c.endStartNice(env, curr)
}

func (c *EEVDF) endStartNice(env sched.RQ, se *entity) {
	se.startNice = false
	t := se.task
	c.setWeight(env, se, sched.NiceWeight(t.Nice, t.Policy))
}

// setWeight gives a task entity a temporary weight with the reweight rule
// (reweight_entity: the lag and the rest of the request are kept, scaled
// to the new weight, so V does not move), then refreshes the groups above
// it. Unlike SetNice, the task's nice value stays.
func (c *EEVDF) setWeight(env sched.RQ, se *entity, lw sched.LoadWeight) {
	if se.w == lw.Weight {
		return
	}
	c.reweightEntity(env, se.q, se, lw.Weight, lw.Inv)
	if se.onRQ {
		for x := se.parent; x != nil; x = x.parent {
			c.updateCfsGroup(env, x)
		}
	}
}

// forkWhatIfs applies the what-ifs at a fork, in the parent's context on
// env: the temporary weights first, so that the lag the child takes is in
// its temporary virtual time.
func (c *EEVDF) forkWhatIfs(env sched.RQ, r *cpuRQ, parent, child *sched.Task) {
	pse := taskSE(parent)
	if pse.q.cpu == r && pse.q.curr != nil {
		c.updateCurr(env, pse.q)
	}
	c.startNicePenalty(env, parent, child)
	c.expediteFork(pse.q, pse, taskSE(child))
}
