package cfs

import (
	"schedlab/sched"
	"schedlab/uapi"
)

// linux61 holds what Linux 6.1's CFS (kernel/sched/fair.c of v6.1, the
// last before EEVDF in a Debian stable kernel) changed on one CPU from
// the 2.6.36 rules this package implements. Debian's 5.10 (cfs-5.10) has
// them all but idleRules: read against linux-source-5.10 5.10.262, its
// fair.c and core.c differ from 6.1's on one CPU only there (and in
// clearing the buddies in pick_next_entity rather than set_next_entity,
// which the pick path runs back to back). The comments in fair.go and
// here name the 6.1 function each rule comes from.
type linux61 struct {
	on bool
	// ALT_PERIOD: sched_slice's period counts every task on the CPU
	// (rq->cfs.h_nr_running), not the entities of the task's own queue.
	altPeriod bool
	// BASE_SLICE: no slice is shorter than sched_min_granularity_ns
	// (sched_idle_min_granularity_ns for a SCHED_IDLE task among others).
	baseSlice   bool
	idleMinGran uint64
	// idleRules: 6.1's SCHED_IDLE rules (5.15's sched_idle_min_granularity
	// and place_entity's smaller credit for a SCHED_IDLE sleeper), which
	// Debian's 5.10 lacks; every other rule here is in both.
	idleRules bool
	// renicing: the dequeue and enqueue in progress are set_user_nice's
	// (DEQUEUE_SAVE without DEQUEUE_MOVE).
	renicing bool
}

func newLinux61(cfg *sched.Config) linux61 {
	switch cfg.Profile.Name {
	case profile61:
		return linux61{on: true, altPeriod: cfg.Feature(AltPeriod), baseSlice: cfg.Feature(BaseSlice),
			idleRules: true, idleMinGran: uint64(cfg.Tunable(IdleMinGranularity))}
	case profile510:
		return linux61{on: true, altPeriod: cfg.Feature(AltPeriod), baseSlice: cfg.Feature(BaseSlice)}
	}
	return linux61{}
}

func isIdleTask(se *entity) bool { return se.isTask() && se.task.Policy == uapi.SchedIdle }

// minSlice is sched_slice's BASE_SLICE floor for se on q: the idle
// granularity for a SCHED_IDLE task unless every entity of q is one
// (sched_idle_cfs_rq).
func (l *linux61) minSlice(c *CFS, q *cfsRQ, se *entity) uint64 {
	if l.idleRules && isIdleTask(se) && !(q.nr > 0 && q.nr == q.idleNr) {
		return l.idleMinGran
	}
	return c.minGran
}

// longSleeperNS is entity_is_long_sleeper's bound: a sleep longer than
// 2^63 / NICE_0_LOAD ns (about 104 days) may have let min_vruntime run
// so far ahead that the signed comparison with the old vruntime wraps.
const longSleeperNS = (1 << 63) / 1024

// longSleeper is entity_is_long_sleeper (in Debian's 6.1.192; a fix of
// 2023 taken into 6.1.y): a task that has run (exec_start set) and has
// not run for longer than the bound.
func (l *linux61) longSleeper(q *cfsRQ, se *entity) bool {
	if se.execStart == 0 {
		return false
	}
	now := q.cpu.clock
	return now > se.execStart && now-se.execStart > longSleeperNS
}

// checkPreempt61 is 6.1's check_preempt_wakeup. Against 2.6.35: a
// SCHED_IDLE curr is preempted by any non-idle wakee, BATCH and IDLE
// included; curr is charged at the level where the two entities
// compete; and a wakee that preempts becomes the next buddy (after
// 2.6.39), which the pick prefers to the last buddy since 2.6.39
// (ac53db596cc).
func (c *CFS) checkPreempt61(env sched.RQ, curr, p *sched.Task, wakeFlags int) {
	se, pse := taskSE(curr), taskSE(p)
	if se == pse {
		return
	}
	scale := se.q.nr >= c.nrLatency
	marked := false
	if c.nextBuddy && scale && wakeFlags&sched.WFFork == 0 {
		setNextBuddy(pse)
		marked = true
	}
	if env.NeedResched() {
		return
	}
	if curr.Policy == uapi.SchedIdle && p.Policy != uapi.SchedIdle {
		c.preempt(env, se, scale)
		return
	}
	if p.Policy != uapi.SchedNormal || !c.wakeupPreempt {
		return
	}
	se, pse = findMatchingSE(se, pse)
	c.updateCurr(se.q)
	if c.wakeupPreemptEntity(se, pse) == 1 {
		if !marked {
			setNextBuddy(pse)
		}
		c.preempt(env, se, scale)
	}
}

// pickNextEntity61 is 6.1's pick_next_entity: the leftmost, or the
// second if the leftmost just yielded (the skip buddy) and the second is
// within the wakeup granularity of it; then the next buddy, else the last
// buddy, if within the granularity of the leftmost.
func (c *CFS) pickNextEntity61(q *cfsRQ) *entity {
	left := q.tree.leftmost()
	se := left
	if q.skip != nil && q.skip == se {
		if second := q.tree.second(); second != nil && c.wakeupPreemptEntity(second, left) < 1 {
			se = second
		}
	}
	if q.next != nil && c.wakeupPreemptEntity(q.next, left) < 1 {
		se = q.next
	} else if q.last != nil && c.wakeupPreemptEntity(q.last, left) < 1 {
		se = q.last
	}
	clearBuddies(se)
	return se
}

// checkPreemptTick61 is the rest of 6.1's check_preempt_tick once the
// slice is not used up: after min_granularity, end it when curr is more
// than a slice right of the leftmost, comparing signed (2.6.38's
// d7d8294415f0 returns when curr is left of it, so the 64-bit sign bug is
// gone), and whatever WAKEUP_PREEMPTION says.
func (c *CFS) checkPreemptTick61(env sched.RQ, q *cfsRQ, curr *entity, ran, ideal uint64) {
	if ran < c.minGran {
		return
	}
	left := q.tree.leftmost()
	if left == nil {
		return
	}
	delta := int64(curr.vruntime - left.vruntime)
	if delta < 0 {
		return
	}
	if uint64(delta) > ideal {
		env.Resched()
	}
}

// yield61 is 6.1's yield_task_fair: charge the task (not SCHED_BATCH) and
// make it the skip buddy, which the next pick passes over if it can do so
// fairly (ac53db596cc, 2.6.39, which also removed sched_compat_yield).
func (c *CFS) yield61(r *cpuRQ, curr *sched.Task) {
	if r.hNr == 1 {
		return
	}
	se := taskSE(curr)
	clearBuddies(se)
	if curr.Policy != uapi.SchedBatch {
		c.updateCurr(se.q)
	}
	for x := se; x != nil; x = x.parent {
		x.q.skip = x
	}
}
