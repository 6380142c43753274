package eevdf

import (
	"schedlab/sched"
	"schedlab/uapi"
)

// Internal enqueue/dequeue flags, as the kernel spells them.
const (
	enqWakeup  = 1 << iota // ENQUEUE_WAKEUP
	enqInitial             // ENQUEUE_INITIAL: a new task's first enqueue
)

const (
	deqSleep   = 1 << iota // DEQUEUE_SLEEP
	deqDelayed             // DEQUEUE_DELAYED: finishing a delayed dequeue
)

// TaskNew implements sched.Class (__sched_fork): vruntime and lag zero, the
// custom slice from sched_attr.
func (c *EEVDF) TaskNew(t, parent *sched.Task) {
	lw := sched.NiceWeight(t.Nice, t.Policy)
	se, _ := c.free.Get()
	se.w, se.inv, se.task, se.initial, se.slice = lw.Weight, lw.Inv, t, true, c.baseSlice
	c.applyCustomSlice(se)
	se.q, se.parent = c.queueOf(t.Group, t.CPU)
	if se.parent != nil {
		se.depth = se.parent.depth + 1
	}
	t.Sched = se
}

// applyCustomSlice reads the task's sched_runtime (6.12+): a non-zero value
// is a custom slice, clamped to 0.1–100 ms; zero restores the base slice.
func (c *EEVDF) applyCustomSlice(se *entity) {
	if !c.ver.customSlices || se.task == nil {
		return
	}
	if s := se.task.Slice; s != 0 {
		se.customSlice, se.slice = true, min(max(s, minCustomSlice), maxCustomSlice)
	} else if se.customSlice {
		se.customSlice, se.slice = false, c.baseSlice
	}
}

// updateCurr charges q's running entity for the time since it was last
// charged, renews its request when its vruntime has reached the deadline,
// and asks env (q's CPU, which every caller down from a hook passes along)
// for a reschedule when the request was renewed or curr's protection is
// over. This is the only place where EEVDF notices that a request has
// ended: at a tick, an enqueue, a dequeue, a wakeup test or a pick.
func (c *EEVDF) updateCurr(env sched.RQ, q *cfsRQ) {
	cur := q.curr
	if cur == nil {
		return
	}
	now := q.cpu.now
	d := now - cur.execStart
	if d <= 0 {
		return
	}
	cur.execStart = now
	cur.sumExec += d
	cur.vruntime += calcDeltaFair(d, cur)
	renewed := c.updateDeadline(cur)
	if !c.ver.zeroVruntime {
		q.updateMinVruntime()
	} else if renewed {
		// update_deadline's avg_vruntime() (Debian's 6.12.95 and 7.2):
		// the origin follows V at each new request.
		c.avgVruntime(q)
	}
	if q.nr == 1 {
		return
	}
	resched := renewed
	switch {
	case c.ver.vprot:
		resched = resched || !c.protected(cur)
	case c.ver.marker612:
		resched = resched || c.preemptShort && cur.onRQ && cur.vlag != int64(cur.deadline) && !q.eligible(cur)
	}
	if resched {
		q.cpu.resched(env)
		clearBuddies(q, cur)
	}
}

// updateDeadline starts a new request once the old one is served: the new
// deadline counts from the current vruntime, so an overrun is not
// forgiven.
func (c *EEVDF) updateDeadline(se *entity) bool {
	if int64(se.vruntime-se.deadline) < 0 {
		return false
	}
	c.applyCustomSlice(se)
	if !se.customSlice {
		se.slice = c.baseSlice
	}
	c.noteSlice(se.slice)
	se.deadline = se.vruntime + calcDeltaFair(se.slice, se)
	return true
}

// noteSlice remembers the largest request of the run, the r_max of the
// Checker's lag bound.
func (c *EEVDF) noteSlice(s int64) { c.maxSliceSeen = max(c.maxSliceSeen, s) }

// placeEntity puts a joining entity at V − lag with a fresh request
// (place_entity).
func (c *EEVDF) placeEntity(q *cfsRQ, se *entity, initial bool) {
	v := c.avgVruntime(q)
	c.applyCustomSlice(se)
	if !se.customSlice {
		se.slice = c.baseSlice
	}
	c.noteSlice(se.slice)
	vslice := calcDeltaFair(se.slice, se)
	// TIMER_FORK_EXPEDITED (what-if R1): the chain's fork joins as a
	// wakeup, with the lag it took from its parent.
	if initial && se.marks.ForkExpedited {
		initial = false
	}
	var lag int64
	if c.placeLag && q.nr > 0 && se.vlag != 0 {
		// Joining at V − vl with weight w moves V by w·vl/(W+w) towards
		// the newcomer; inflating by (W+w)/W makes its lag after joining
		// the vl it saved.
		lag = se.vlag
		w := q.sumW
		if cur := q.curr; cur != nil && cur.onRQ {
			w += int64(cur.w)
		}
		if w > 0 {
			lag = mulDiv(lag, w+int64(se.w), w)
		}
	}
	se.vruntime = v - uint64(lag)
	if se.relDeadline {
		se.deadline += se.vruntime
		se.relDeadline = false
		return
	}
	// A new task is on average half way through a request compared with
	// the tasks already queued.
	if c.placeDeadlineInitial && initial {
		vslice /= 2
	}
	se.deadline = se.vruntime + vslice
}

// enqueueEntity is enqueue_entity.
func (c *EEVDF) enqueueEntity(env sched.RQ, q *cfsRQ, se *entity, flags int) {
	isCurr := q.curr == se
	initial := flags&enqInitial != 0
	// V before the join, for the lag account: curr is placed before
	// update_curr, any other entity after it.
	var before uint64
	if isCurr {
		before = c.vBefore(q)
		c.placeEntity(q, se, initial)
	}
	c.updateCurr(env, q)
	c.updateCfsGroup(env, se)
	if !isCurr {
		before = c.vBefore(q)
		c.placeEntity(q, se, initial)
	}
	q.addLoad(se.w)
	q.nr++
	if !isCurr {
		q.enqueueTree(se)
	}
	se.onRQ = true
	c.jumped(q, before, se)
}

// dequeueEntity is dequeue_entity. It returns false when the entity stays
// queued as delayed: it goes to sleep owing service and keeps competing (and
// being passed over) until it is eligible again.
func (c *EEVDF) dequeueEntity(env sched.RQ, q *cfsRQ, se *entity, flags int) bool {
	c.updateCurr(env, q)
	clearBuddies(q, se)
	sleep := flags&deqSleep != 0
	if flags&deqDelayed == 0 && c.delayDequeue && sleep && !q.eligible(se) {
		se.delayed = true
		return false
	}
	before := c.vBefore(q)
	c.updateEntityLag(q, se)
	if se != q.curr {
		q.dequeueTree(se) // before the key (deadline) changes
	}
	if c.placeRelDeadline && !sleep {
		se.deadline -= se.vruntime
		se.relDeadline = true
	}
	se.onRQ = false
	q.subLoad(se.w)
	q.nr--
	c.jumped(q, before, nil)
	if !c.ver.zeroVruntime {
		q.updateMinVruntime()
	}
	if flags&deqDelayed != 0 {
		se.delayed = false
		if c.delayZero && se.vlag > 0 {
			se.vlag = 0
		}
	}
	return true
}

// enqueueTask is enqueue_task_fair: the task and every ancestor that
// is not queued join their queues (ancestors as wakeups); a delayed
// entity met on the way is requeued; the rest of the path takes the new
// weights and shortest slices.
func (c *EEVDF) enqueueTask(env sched.RQ, se *entity, flags int) {
	r := se.q.cpu
	if se.onRQ {
		if se.delayed {
			c.requeueDelayed(se)
		}
		return
	}
	var slice int64
	x := se
	for ; x != nil; x = x.parent {
		if x.onRQ {
			if x.delayed {
				c.requeueDelayed(x)
			}
			break
		}
		if slice != 0 && c.ver.customSlices {
			x.slice, x.customSlice = slice, true
		}
		c.enqueueEntity(env, x.q, x, flags)
		if x.task != nil {
			r.nrTasks++
		}
		slice = x.q.minSlice()
		flags = enqWakeup
	}
	for ; x != nil; x = x.parent {
		c.updateCfsGroup(env, x)
		c.setGroupSlice(x, slice)
		slice = x.q.minSlice()
	}
}

// setGroupSlice gives a queued group entity its queue's shortest slice, so
// that the group is served in the time frame its most urgent member asks
// for (6.12+).
func (c *EEVDF) setGroupSlice(x *entity, slice int64) {
	if !c.ver.customSlices || slice == 0 || slice == x.slice || x.my.nr == 0 {
		return
	}
	x.slice = slice
	c.noteSlice(slice)
	if x.inTree {
		x.q.tl.fix(x)
	}
}

// dequeueEntities is dequeue_entities: dequeue the task and every ancestor
// whose queue empties. It returns false when the task stays queued as
// delayed.
func (c *EEVDF) dequeueEntities(env sched.RQ, se *entity, flags int) bool {
	r := se.q.cpu
	taskSleep := flags&deqSleep != 0
	x := se
	for x != nil {
		q := x.q
		if !c.dequeueEntity(env, q, x, flags) {
			if x == se {
				return false
			}
			// A group entity stays queued, delayed, with an empty
			// queue; it keeps its slice.
			x = x.parent
			break
		}
		if x.task != nil {
			r.nrTasks--
		}
		if q.load != 0 {
			// The group still has entities: it stays, and since a task
			// of it goes to sleep, the next pick is biased to it.
			x = x.parent
			if taskSleep && x != nil {
				c.setNextBuddy(x)
			}
			break
		}
		flags = (flags | deqSleep) &^ deqDelayed
		x = x.parent
	}
	for ; x != nil; x = x.parent {
		c.updateCfsGroup(env, x)
		c.setGroupSlice(x, x.my.minSlice())
	}
	return true
}

// requeueDelayed is requeue_delayed_entity: a delayed entity wakes where it
// is. With DELAY_ZERO a positive lag is dropped: it is re-placed at V.
func (c *EEVDF) requeueDelayed(se *entity) {
	q := se.q
	if c.delayZero {
		c.updateEntityLag(q, se)
		if se.vlag > 0 {
			before := c.vBefore(q)
			q.nr--
			if se != q.curr {
				q.dequeueTree(se)
			}
			se.vlag = 0
			c.placeEntity(q, se, false)
			if se != q.curr {
				q.enqueueTree(se)
			}
			q.nr++
			c.jumped(q, before, se)
		}
	}
	se.delayed = false
}

// updateCfsGroup refreshes a group entity's weight (update_cfs_group;
// the split across CPUs is reconstruction R1) and applies a
// change with the reweight rule, which keeps its lag.
func (c *EEVDF) updateCfsGroup(env sched.RQ, se *entity) {
	gq := se.my
	if gq == nil || gq.load == 0 {
		return // a task, or an emptied group: it keeps its weight
	}
	gs := gq.gs
	shares := gs.g.Shares
	w := shares
	if c.splitShares && gs.totalLoad > gq.load {
		w = min(max(shares*gq.load/gs.totalLoad, 2), shares)
	}
	if w != se.w {
		c.reweightEntity(env, se.q, se, w, 0)
	}
}

// reweightEntity changes se's weight to w (inverse inv, 0 to compute it)
// keeping its lag, its remaining request and its protection, all scaled
// to the new weight's virtual time (reweight_entity).
func (c *EEVDF) reweightEntity(env sched.RQ, q *cfsRQ, se *entity, w, inv uint64) {
	old := int64(se.w)
	onRQ, isCurr := se.onRQ, q.curr == se
	var relProt int64
	hadProt := false
	var before uint64
	if onRQ {
		c.updateCurr(env, q)
		before = c.vBefore(q)
		if isCurr && c.protected(se) {
			hadProt = true
			relProt = int64(se.vprot - se.vruntime)
		}
		c.updateEntityLag(q, se)
		if !isCurr {
			q.dequeueTree(se)
		}
		se.deadline -= se.vruntime
		se.relDeadline = true
		q.nr--
		q.subLoad(se.w)
		se.onRQ = false // V and W without se while it is re-placed
	}
	se.vlag = mulDiv(se.vlag, old, int64(w))
	if se.relDeadline {
		se.deadline = uint64(mulDiv(int64(se.deadline), old, int64(w)))
	}
	relProt = mulDiv(relProt, old, int64(w))
	se.w, se.inv = w, inv
	if onRQ {
		c.placeEntity(q, se, false)
		se.onRQ = true
		q.addLoad(w)
		if !isCurr {
			q.enqueueTree(se)
		}
		q.nr++
		c.jumped(q, before, se)
		if hadProt {
			if c.ver.vprot {
				se.vprot = se.vruntime + uint64(relProt)
			} else {
				se.vlag = int64(se.deadline)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Protection (RUN_TO_PARITY, PREEMPT_SHORT)

// protected reports whether curr's slice is still protected.
func (c *EEVDF) protected(se *entity) bool {
	if c.ver.vprot {
		return int64(se.vprot-se.vruntime) > 0
	}
	return c.runToParity && se.vlag == int64(se.deadline)
}

// setProtect runs when se becomes curr: with RUN_TO_PARITY it may run until
// its deadline, or for the shortest slice queued if that is shorter.
func (c *EEVDF) setProtect(q *cfsRQ, se *entity, first bool) {
	if !c.ver.vprot {
		se.vlag = int64(se.deadline) // 6.6–6.16: the marker
		return
	}
	if c.ver.vprotFirstOnly && !first {
		return
	}
	s := c.normSlice
	if c.runToParity {
		s = q.minSlice()
	}
	s = min(s, se.slice)
	vprot := se.deadline
	if s != se.slice {
		vprot = sched.MinVruntime(vprot, se.vruntime+calcDeltaFair(s, se))
	}
	se.vprot = vprot
}

// updateProtect shortens curr's protection to the shortest queued slice
// (6.18.35, after a wakeup that did not preempt).
func (c *EEVDF) updateProtect(q *cfsRQ, se *entity) {
	se.vprot = sched.MinVruntime(se.vprot, se.vruntime+calcDeltaFair(q.minSlice(), se))
}

func (c *EEVDF) cancelProtect(se *entity) {
	if c.ver.vprot {
		if c.protected(se) {
			se.vprot = se.vruntime
		}
	} else if se.vlag == int64(se.deadline) {
		se.vlag++
	}
}

// ---------------------------------------------------------------------------
// Buddies

func isIdle(se *entity) bool { return se.task != nil && se.task.Policy == uapi.SchedIdle }

func (c *EEVDF) setNextBuddy(se *entity) {
	for x := se; x != nil; x = x.parent {
		if !x.onRQ || isIdle(x) {
			return
		}
		x.q.next = x
	}
}

func clearBuddies(q *cfsRQ, se *entity) {
	if q.next != se {
		return
	}
	for x := se; x != nil && x.q.next == x; x = x.parent {
		x.q.next = nil
	}
}

// ---------------------------------------------------------------------------
// Picking (pick_eevdf)

// pickEEVDF returns the earliest-deadline eligible entity of q, curr
// included, or curr while it is protected.
func (c *EEVDF) pickEEVDF(q *cfsRQ, protect, buddy bool) *entity {
	cur := q.curr
	if q.nr == 1 {
		if cur != nil && cur.onRQ {
			return cur
		}
		return q.tl.first
	}
	if buddy && q.next != nil && q.eligible(q.next) {
		return q.next
	}
	if cur != nil && (!cur.onRQ || !q.eligible(cur)) {
		cur = nil
	}
	if protect && cur != nil && c.protected(cur) {
		return cur
	}
	best := q.tl.first
	if best != nil && !q.eligible(best) {
		best = q.tl.firstEligible(q)
	}
	if best == nil {
		return cur
	}
	if cur != nil {
		d := int64(cur.deadline - best.deadline)
		if d < 0 || d == 0 && c.ver.tiesKeepCurr {
			return cur
		}
	}
	return best
}

// pickNextEntity is pick_next_entity: a delayed entity that wins is
// eligible now, so its sleep can finally take effect; nil then means
// "pick again".
func (c *EEVDF) pickNextEntity(env sched.RQ, q *cfsRQ, protect bool) *entity {
	var se *entity
	if !c.ver.buddyInPick && q.next != nil && c.honourBuddy() && q.eligible(q.next) {
		se = q.next
	}
	if se == nil {
		se = c.pickEEVDF(q, protect, c.ver.buddyInPick && c.pickBuddy)
	}
	if se != nil && se.delayed {
		c.dequeueEntities(env, se, deqSleep|deqDelayed)
		return nil
	}
	return se
}

// honourBuddy: PICK_BUDDY from 6.12; in 6.6 only NEXT_BUDDY made the pick
// look at the buddy.
func (c *EEVDF) honourBuddy() bool {
	if c.ver.buddyNeedsNextBuddy {
		return c.nextBuddy
	}
	return c.pickBuddy
}

// pickTask walks down from the root; nil means a delayed entity was
// dequeued and the walk must restart.
func (c *EEVDF) pickTask(env sched.RQ, r *cpuRQ) *entity {
	q := &r.root
	for {
		if q.curr != nil && q.curr.onRQ {
			c.updateCurr(env, q)
		}
		se := c.pickNextEntity(env, q, true)
		if se == nil || se.my == nil {
			return se
		}
		q = se.my
	}
}

// PutPrev implements sched.Class. The put is left to PickNext: the kernel
// picks with prev still curr (its protection and tie rules apply to it)
// and then puts back and sets only the levels that changed.
func (c *EEVDF) PutPrev(env sched.RQ, prev *sched.Task) {
	r := c.schedClock(env)
	r.prev = taskSE(prev)
	if c.whatIf.startNice {
		r.picking = true
		c.endStartNiceAtPut(env, r.prev)
		r.picking = false
	}
}

// schedClock is __schedule()'s update_rq_clock: skipped when a wakeup
// requested it (wakeup_preempt's rq_clock_skip_update), so the preempted
// task is charged up to that wakeup's update_curr and not for the time
// it then took to reach schedule(); the next task's exec_start is that
// older clock, so it pays for that time instead.
func (c *EEVDF) schedClock(env sched.RQ) *cpuRQ {
	r := c.cpus[env.CPU()]
	if !r.skipClock {
		r.now = c.now(env)
	}
	return r
}

// PickNext implements sched.Class (pick_next_task_fair).
func (c *EEVDF) PickNext(env sched.RQ) *sched.Task {
	r := c.schedClock(env)
	// __schedule clears the request once it has picked.
	r.skipClock = false
	r.lazyMark = false
	prev := r.prev
	r.prev = nil
	r.picking = true
	var se *entity
	for se == nil && r.root.nr > 0 {
		se = c.pickTask(env, r)
	}
	r.picking = false
	switch {
	case se == prev:
		// Re-picked (or idle twice): nothing is put back or reset, so
		// its protection stays as it was.
	case prev == nil:
		c.setNextAll(se, true)
	case se == nil:
		c.putPrevAll(env, prev)
	default:
		// Put back and set only the levels below the first queue prev
		// and next share.
		x, pse := se, prev
		for x.q != pse.q {
			sd, pd := x.depth, pse.depth
			if sd <= pd {
				c.putPrevEntity(env, pse.q, pse)
				pse = pse.parent
			}
			if sd >= pd {
				c.setNextEntity(x.q, x, true)
				x = x.parent
			}
		}
		c.putPrevEntity(env, pse.q, pse)
		c.setNextEntity(x.q, x, true)
	}
	if c.ver.hrtick72 {
		// set_next_task_fair starts the hrtick on a real switch only
		// (pick_next_task_fair no longer does at every pick).
		if se != nil && se != prev {
			c.hrtickStart(env, r, se)
		}
		c.hrtickKeep(env, r, se == nil)
	} else if se != nil {
		c.hrtickStart(env, r, se)
	}
	if se == nil {
		return nil
	}
	return se.task
}

func (c *EEVDF) putPrevEntity(env sched.RQ, q *cfsRQ, se *entity) {
	if se.onRQ {
		c.updateCurr(env, q)
		q.enqueueTree(se)
	}
	q.curr = nil
}

// setNextEntity makes se q's curr; on a real switch (first) it gets its
// protection.
func (c *EEVDF) setNextEntity(q *cfsRQ, se *entity, first bool) {
	clearBuddies(q, se)
	if se.onRQ {
		q.dequeueTree(se)
		c.setProtect(q, se, first)
	}
	se.execStart = q.cpu.now
	q.curr = se
}

func (c *EEVDF) putPrevAll(env sched.RQ, se *entity) {
	for x := se; x != nil; x = x.parent {
		c.putPrevEntity(env, x.q, x)
	}
}

func (c *EEVDF) setNextAll(se *entity, first bool) {
	for x := se; x != nil; x = x.parent {
		c.setNextEntity(x.q, x, first)
	}
}

// ---------------------------------------------------------------------------
// The other hooks

// Enqueue implements sched.Class. A wakeup of a delayed task requeues it
// where it is.
func (c *EEVDF) Enqueue(env sched.RQ, t *sched.Task, flags int) {
	r := c.rqOf(env, t)
	se := taskSE(t)
	f := 0
	if flags&sched.EnqueueWakeup != 0 {
		f = enqWakeup
	}
	if se.initial {
		se.initial = false
		f |= enqInitial
	}
	if f&enqWakeup != 0 && c.whatIf.tfe {
		c.markWakeup(se, t.Wake)
	}
	c.enqueueTask(env, se, f)
	c.hrtickUpdate(env, r, true)
}

// Dequeue implements sched.Class. A sleeping task that is not eligible
// stays queued as delayed (6.12+); the engine considers it asleep.
func (c *EEVDF) Dequeue(env sched.RQ, t *sched.Task, flags int) {
	r := c.rqOf(env, t)
	se := taskSE(t)
	if !se.onRQ || se.delayed {
		return
	}
	f := 0
	if flags&sched.DequeueSleep != 0 {
		f = deqSleep
		se.marks.Clear()
	}
	// The running task blocking is dequeued inside schedule(), whose
	// pick follows: a reschedule asked for now would be cleared with it.
	r.picking = f != 0 && env.Curr() == t
	c.dequeueEntities(env, se, f)
	r.picking = false
	c.hrtickUpdate(env, r, false)
}

// findMatching lifts se and pse until they share a queue.
func findMatching(se, pse *entity) (*entity, *entity) {
	for se.depth > pse.depth {
		se = se.parent
	}
	for pse.depth > se.depth {
		pse = pse.parent
	}
	for se.q != pse.q {
		se, pse = se.parent, pse.parent
	}
	return se, pse
}

// CheckPreempt implements sched.Class (check_preempt_wakeup_fair): a
// wakee preempts when curr is no longer protected (or is ineligible, or
// the wakee asks for a shorter slice) and the wakee is then the entity
// the pick would choose.
func (c *EEVDF) CheckPreempt(env sched.RQ, p *sched.Task, wakeFlags int) {
	r := c.rqOf(env, p)
	curr := env.Curr()
	if curr == nil {
		env.Resched()
		return
	}
	c.checkPreempt(env, r, curr, p, wakeFlags)
	// wakeup_preempt (6.6-6.18, check_preempt_curr in 6.1; since 2.6.37's
	// f26f9aff6aa): a queue event that leaves the running task marked
	// saves schedule()'s clock update.
	// Under lazy preemption (7.2) the fair class's mark is the lazy bit,
	// which test_tsk_need_resched does not see: no skip.
	if taskSE(curr).onRQ && r.fullMark(env) {
		r.skipClock = true
	}
}

func (c *EEVDF) checkPreempt(env sched.RQ, r *cpuRQ, curr, p *sched.Task, wakeFlags int) {
	se, pse := taskSE(curr), taskSE(p)
	if se == pse {
		return
	}
	if !c.ver.preempt1835 && c.nextBuddy && wakeFlags&sched.WFFork == 0 {
		c.setNextBuddy(pse)
	}
	// "We can come here with TIF_NEED_RESCHED already set": only that
	// bit stops the checks (a lazily marked curr is judged again, 7.2).
	if r.fullMark(env) {
		return
	}
	if c.ver.idleCurrPreempted && curr.Policy == uapi.SchedIdle && p.Policy != uapi.SchedIdle {
		r.resched(env)
		return
	}
	if !c.wakeupPreemption {
		return
	}
	se, pse = findMatching(se, pse)
	if ci, pi := isIdle(se), isIdle(pse); ci && !pi {
		if c.ver.preempt1835 || c.ver.preempt612 {
			c.cancelProtect(se)
		}
		r.resched(env)
		return
	} else if ci != pi {
		return
	}
	if p.Policy != uapi.SchedNormal {
		return // SCHED_BATCH and SCHED_IDLE wakees never preempt
	}
	q := se.q
	c.updateCurr(env, q)
	short := c.preemptShort && pse.slice < se.slice
	if c.ver.preempt1835 {
		c.wakeup1835(env, r, q, se, pse, short, wakeFlags)
		return
	}
	if c.ver.preempt612 {
		if short && c.doPreemptShort(q, pse, se) {
			c.cancelProtect(se)
		}
		if c.pickEEVDF(q, true, false) == pse {
			r.resched(env)
		}
		return
	}
	if c.pickEEVDF(q, !short, false) == pse {
		if short {
			c.cancelProtect(se)
		}
		r.resched(env)
	}
}

// doPreemptShort is 6.12's do_preempt_short for a wakee with a shorter
// slice: it must be eligible, and before curr or curr ineligible.
func (c *EEVDF) doPreemptShort(q *cfsRQ, pse, se *entity) bool {
	if !q.eligible(pse) {
		return false
	}
	return int64(pse.deadline-se.deadline) < 0 || !q.eligible(se)
}

// wakeup1835 is the end of 6.18.35's check_preempt_wakeup_fair: the
// PREEMPT_SHORT test, no preemption by a fork, NEXT_BUDDY, and the pick.
func (c *EEVDF) wakeup1835(env sched.RQ, r *cpuRQ, q *cfsRQ, se, pse *entity, short bool, wf int) {
	protect := !short
	if !short {
		if wf&sched.WFFork != 0 || pse.delayed {
			return
		}
		if c.nextBuddy && (q.next == nil || int64(q.next.deadline-pse.deadline) >= 0) {
			c.setNextBuddy(pse)
			if wf&sched.WFSync != 0 {
				// exec_start was refreshed by update_curr just now, so
				// this rarely passes (as in the kernel).
				if int64(pse.deadline-se.deadline) < 0 && r.now-se.execStart >= c.migrationCost {
					r.resched(env)
				}
				return
			}
		}
	}
	var nse *entity
	for nse == nil && q.nr > 0 {
		nse = c.pickNextEntity(env, q, protect)
	}
	if nse == pse {
		if short {
			c.cancelProtect(se)
		}
		r.resched(env)
		return
	}
	if c.runToParity {
		c.updateProtect(q, se)
	}
}

// Tick implements sched.Class (task_tick_fair): charge every level;
// a request that ended makes update_curr reschedule. The hrtick ends the
// request it was armed for.
func (c *EEVDF) Tick(env sched.RQ, curr *sched.Task, queued bool) {
	r := c.rqOf(env, curr)
	if queued {
		r.hrtickAt = 0 // it has fired
	} else if r.lazyMark && env.NeedResched() {
		// sched_tick: a lazy mark is made a full one.
		r.lazyMark = false
	}
	for x := taskSE(curr); x != nil; x = x.parent {
		c.updateCurr(env, x.q)
		c.updateCfsGroup(env, x)
		if queued {
			r.reschedFull(env)
		}
	}
	if c.whatIf.startNice {
		c.endStartNiceAtTick(env, taskSE(curr))
	}
}

// hrtickStart arms the hrtick for the rest of se's request (R2).
func (c *EEVDF) hrtickStart(env sched.RQ, r *cpuRQ, se *entity) {
	if !c.hrtick || r.nrTasks <= 1 {
		return
	}
	rem := int64(se.deadline - se.vruntime)
	if c.ver.hrtick72 && rem < 0 {
		// 7.2's hrtick_start_fair: an overrun request reschedules curr
		// instead (a task being switched in is not yet the donor).
		if env.Curr() == se.task {
			r.reschedFull(env)
		}
		return
	}
	wall := rem
	if se.w != sched.NiceZeroLoad {
		wall = mulDiv(rem, int64(se.w), sched.NiceZeroLoad) + 1
	}
	d := max(wall, 10000)
	if c.ver.hrtick72 {
		// hrtick_needs_rearm: an armed expiry within 5 µs of the new
		// one is kept.
		at := env.Now() + d
		if r.hrtickAt > env.Now() && abs64(at-r.hrtickAt) <= 5000 {
			return
		}
		r.hrtickAt = at
	}
	env.StartHRTick(d)
}

// hrtickKeep is 7.2's hrtick_schedule_exit for a schedule() that asked
// no new start: the armed hrtick goes on (the engine cancelled it), unless
// the CPU goes idle.
func (c *EEVDF) hrtickKeep(env sched.RQ, r *cpuRQ, idle bool) {
	switch {
	case idle:
		r.hrtickAt = 0
	case r.hrtickAt > env.Now() && !env.HRTickActive():
		env.StartHRTick(r.hrtickAt - env.Now())
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// hrtickUpdate re-arms the hrtick after the queue changed. 7.2 calls it
// from enqueue_task_fair only, and not while the hrtick is armed.
func (c *EEVDF) hrtickUpdate(env sched.RQ, r *cpuRQ, enqueue bool) {
	if !c.hrtick || env.Curr() == nil {
		return
	}
	if c.ver.hrtick72 && (!enqueue || env.HRTickActive()) {
		return
	}
	if se := taskSE(env.Curr()); se.onRQ && !se.delayed && se.q.curr == se {
		c.hrtickStart(env, r, se)
	}
}

// Yield implements sched.Class (yield_task_fair): an eligible curr forfeits
// the rest of its request.
func (c *EEVDF) Yield(env sched.RQ, curr *sched.Task) {
	r := c.rq(env)
	if r.nrTasks <= 1 {
		return
	}
	se := taskSE(curr)
	q := se.q
	clearBuddies(q, se)
	c.updateCurr(env, q)
	if q.eligible(se) {
		before := c.vBefore(q)
		se.vruntime = se.deadline
		se.deadline += calcDeltaFair(se.slice, se)
		c.jumped(q, before, se)
	}
}

// Fork implements sched.Class (task_fork_fair): the child starts with
// zero vruntime and lag. From 6.12 it is placed at its first enqueue, on
// dst (ENQUEUE_INITIAL). 6.6 placed it here, in the parent's queue on env,
// and then again at the enqueue without the flag.
func (c *EEVDF) Fork(env, dst sched.RQ, parent, child *sched.Task) {
	r := c.rq(env)
	se := taskSE(child)
	se.vruntime, se.vlag, se.relDeadline = 0, 0, false
	if parent != nil && (c.whatIf.tfe || c.whatIf.startNice) {
		c.forkWhatIfs(env, r, parent, child)
	}
	if !c.ver.forkPlacedTwice {
		return
	}
	q := se.q
	if parent != nil {
		q = taskSE(parent).q
	}
	if q.cpu != r {
		q = &r.root
	}
	if q.curr != nil {
		c.updateCurr(env, q)
	}
	c.placeEntity(q, se, true)
	se.initial = false
}

// SetNice implements sched.Class (set_user_nice): dequeue, change the
// weight keeping the lag (scaled to the new weight), enqueue; then a
// running task that got less important reschedules and a waiting one is
// tested like a wakeup.
func (c *EEVDF) SetNice(env sched.RQ, t *sched.Task, nice int) {
	r := c.rq(env)
	se := taskSE(t)
	se.startNice = false // a permanent change ends START_NICE's penalty
	if se.delayed {
		c.dequeueEntities(env, se, deqSleep|deqDelayed)
	}
	queued := se.onRQ
	running := queued && se.q.curr == se
	old := t.Nice
	if queued {
		c.dequeueEntities(env, se, 0)
	}
	if running {
		c.putPrevAll(env, se)
	}
	t.Nice = nice
	lw := sched.NiceWeight(nice, t.Policy)
	c.reweightEntity(env, se.q, se, lw.Weight, lw.Inv)
	if !queued {
		return
	}
	c.enqueueTask(env, se, 0)
	if running {
		c.setNextAll(se, false)
	}
	if r.root.nr == 1 {
		return
	}
	if running {
		if nice > old {
			r.reschedFull(env)
		}
		return
	}
	c.CheckPreempt(env, t, 0)
}

// TaskDead implements sched.Class: a task that exits while delayed leaves
// its queue on env, its last CPU, now (task_dead_fair); afterwards no
// queue holds its entity.
//
// The entity is then reused, unless (which the final dequeue rules out) a
// queue still names it: then it is left to the collector, and whatever
// names it keeps seeing the dead task, as before.
func (c *EEVDF) TaskDead(env sched.RQ, t *sched.Task) {
	se := taskSE(t)
	c.finishDelayed(env, se)
	if se.onRQ || se.delayed {
		return
	}
	if q := se.q; q.curr == se || q.next == se || q.cpu.prev == se {
		return
	}
	t.Sched = nil
	c.free.Put(se)
}

// finishDelayed completes the dequeue of a delayed entity on env, the CPU
// whose queue still holds it, at env's time.
func (c *EEVDF) finishDelayed(env sched.RQ, se *entity) {
	if !se.delayed {
		return
	}
	c.rq(env)
	c.dequeueEntities(env, se, deqSleep|deqDelayed)
}

// MigrateTask implements sched.Class. A delayed sleeper's dequeue is
// finished on src first. The lag saved at dequeue, and with
// PLACE_REL_DEADLINE the remaining request, travel with the task; the
// placement on dst's queue uses them against that queue's V.
func (c *EEVDF) MigrateTask(src, dst sched.RQ, t *sched.Task, wakeup bool) {
	se := taskSE(t)
	c.finishDelayed(src, se)
	se.q, se.parent = c.queueOf(t.Group, dst.CPU())
	// A move between task groups changes the depth too.
	se.depth = 0
	if se.parent != nil {
		se.depth = se.parent.depth + 1
	}
}

// CompletePut implements sched.PutCompleter: a higher class (real-time)
// took the pick that follows PutPrev, so prev goes back into the tree now,
// charged up to now and for nothing the higher class runs after.
func (c *EEVDF) CompletePut(env sched.RQ) { c.rq(env) }
