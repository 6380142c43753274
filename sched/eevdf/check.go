package eevdf

import (
	"fmt"
	"math"

	"schedlab/sched"
)

// CheckInvariants implements sched.Checker. On every queue:
//   - the tree holds exactly the queued entities other than curr, in
//     (deadline, insertion) order, balanced, with correct subtree
//     aggregates, and the sums Σw and Σw·(v − v0) equal a recount;
//   - nr_queued and the load equal what is queued (curr and delayed
//     entities included), and a group's load on all CPUs adds up;
//   - the lags sum to zero: Σ w_i·(V − v_i) lies in (−W, 0], the floor of
//     V being the only rounding (less than one virtual ns per unit of
//     weight, i.e. below W/1024 ns of service in all);
//   - some queued entity is eligible;
//   - every entity's service lag w·(V − v)/1024, with curr charged up to
//     now, is within the paper's bound (LagBound) plus the lag joins and
//     leaves at non-zero lag have imposed on it;
//   - a group entity is queued iff its queue is not empty, except a
//     delayed one, whose queue is empty.
//
// Per CPU the tasks reachable from the root, delayed ones excluded, are
// the engine's runnable tasks; delayed tasks are asleep for the engine.
func (c *EEVDF) CheckInvariants(now int64, runnable [][]*sched.Task) error {
	for cpu, r := range c.cpus {
		if r.prev != nil {
			return fmt.Errorf("cpu %d: PutPrev was not followed by PickNext", cpu)
		}
		ck := checker{c: c, r: r, now: now, seen: map[*sched.Task]bool{}}
		if err := ck.queue(&r.root, fmt.Sprintf("cpu%d:/", cpu)); err != nil {
			return err
		}
		if ck.tasks != r.nrTasks {
			return fmt.Errorf("cpu %d: %d task entities queued, nr counts %d", cpu, ck.tasks, r.nrTasks)
		}
		if len(ck.seen) != len(runnable[cpu]) {
			return fmt.Errorf("cpu %d: %d runnable tasks in the fair queues (%d delayed besides), engine has %d runnable",
				cpu, len(ck.seen), ck.tasks-len(ck.seen), len(runnable[cpu]))
		}
		for _, t := range runnable[cpu] {
			if !ck.seen[t] {
				return fmt.Errorf("cpu %d: runnable task %s (pid %d) is not in the fair queues (delayed: %v)", cpu, t.Comm, t.PID, taskSE(t).delayed)
			}
		}
	}
	for _, gs := range c.groups {
		var total uint64
		for cpu, q := range gs.q {
			total += q.load
			se := gs.se[cpu]
			switch {
			case se.delayed && q.nr != 0:
				return fmt.Errorf("group %s on cpu %d: delayed group entity with %d entities queued", gs.g.Path, cpu, q.nr)
			case !se.delayed && (q.nr > 0) != se.onRQ:
				return fmt.Errorf("group %s on cpu %d: %d entities queued, but its group entity on_rq = %v", gs.g.Path, cpu, q.nr, se.onRQ)
			}
		}
		if total != gs.totalLoad {
			return fmt.Errorf("group %s: load %d on all CPUs, counted %d", gs.g.Path, total, gs.totalLoad)
		}
	}
	return nil
}

// LagBound returns the EEVDF paper's lag bound, widened for tick-only
// preemption, r_max + q in ns of service (Stoica & Abdel-Wahab 1995: q the
// quantum, here the tick; r_max the largest request any entity has had in
// this run).
//
// The paper proves it for a steady system, where entities join and leave
// at zero lag. Here they join with the lag they left with (PLACE_LAG), and
// leave with whatever lag they have when they migrate, exit, or sleep
// (6.6; or eligible, 6.12+); each such join or leave — and a reweight or
// a yield — moves V, shifting every other queued entity's lag by the same
// virtual amount. That is not bounded by any constant (N tasks waking at
// once, each owed L, push a lone running task to about −L·ln N). So the
// Checker holds each entity to r_max + q plus the |lag| it joined with plus
// w·(the shifts of V since it joined): the lag EEVDF's own service order
// gives must stay within the paper's bound, on top of the lag that joins
// and leaves impose, which is accounted exactly.
func (c *EEVDF) LagBound() float64 { return float64(c.maxSliceSeen + c.tick) }

// MaxLag returns the largest |service lag| (ns) the Checker has seen and
// its ratio to the paper's bound (LagBound).
func (c *EEVDF) MaxLag() (ns, ratio float64) { return c.maxLagNS, c.maxLagRatio }

type checker struct {
	c     *EEVDF
	r     *cpuRQ
	now   int64 // the engine's time: curr is charged up to it
	seen  map[*sched.Task]bool
	tasks int
}

// aggregates recomputes what pull stores, without writing.
func aggregates(e *entity) (h int32, minV uint64, minS, maxS int64) {
	h = max(height(e.left), height(e.right)) + 1
	minV, minS, maxS = e.vruntime, e.slice, e.slice
	for _, ch := range [2]*entity{e.left, e.right} {
		if ch == nil {
			continue
		}
		if int64(ch.minV-minV) < 0 {
			minV = ch.minV
		}
		minS, maxS = min(minS, ch.minSlice), max(maxS, ch.maxSlice)
	}
	return
}

func (ck *checker) queue(q *cfsRQ, name string) error {
	var ents []*entity
	var sumW, sumWV int64
	var last *entity
	err := q.tl.walk(func(e *entity) error {
		switch {
		case e == q.curr:
			return fmt.Errorf("queue %s: curr is in the tree", name)
		case !e.onRQ || e.q != q || !e.inTree:
			return fmt.Errorf("queue %s: the tree holds an entity that is not queued here", name)
		case last != nil && !less(last, e):
			return fmt.Errorf("queue %s: tree out of (deadline, insertion) order", name)
		}
		if q.tl.big {
			h, mv, mins, maxs := aggregates(e)
			if h != e.height || mv != e.minV || mins != e.minSlice || maxs != e.maxSlice {
				return fmt.Errorf("queue %s: stale subtree aggregates at an entity", name)
			}
			if bf := height(e.left) - height(e.right); bf < -1 || bf > 1 {
				return fmt.Errorf("queue %s: tree out of balance (%d)", name, bf)
			}
		}
		last = e
		ents = append(ents, e)
		sumW += int64(e.w)
		sumWV += q.key(e) * int64(e.w)
		return nil
	})
	if err != nil {
		return err
	}
	if len(ents) != q.tl.n || (len(ents) > 0 && q.tl.first != ents[0]) || (len(ents) == 0 && q.tl.first != nil) {
		return fmt.Errorf("queue %s: tree count %d / leftmost inconsistent with its %d nodes", name, q.tl.n, len(ents))
	}
	if err := q.tl.checkForm(); err != nil {
		return fmt.Errorf("queue %s: %v", name, err)
	}
	if sumW != q.sumW || sumWV != q.sumWV {
		return fmt.Errorf("queue %s: sums (%d, %d) but the tree holds (%d, %d)", name, q.sumW, q.sumWV, sumW, sumWV)
	}
	if cur := q.curr; cur != nil && cur.onRQ {
		if cur.q != q {
			return fmt.Errorf("queue %s: curr belongs to another queue", name)
		}
		ents = append(ents, cur)
	}
	var load uint64
	for _, e := range ents {
		load += e.w
	}
	if q.nr != len(ents) || q.load != load {
		return fmt.Errorf("queue %s: nr_queued %d and load %d, but %d entities weighing %d are queued", name, q.nr, q.load, len(ents), load)
	}
	if n := q.next; n != nil && (!n.onRQ || n.q != q || n.delayed) {
		return fmt.Errorf("queue %s: the next buddy is not a runnable entity of this queue", name)
	}
	if len(ents) == 0 {
		return nil
	}
	// Zero-sum lag, exact but for the floor of V.
	s, w := q.sums()
	if lagSum := w*int64(q.avg()-q.v0) - s; lagSum > 0 || lagSum <= -w {
		return fmt.Errorf("queue %s: weighted lags sum to %d (W = %d), want (-W, 0]", name, lagSum, w)
	}
	minV := ents[0].vruntime
	for _, e := range ents {
		if int64(e.vruntime-minV) < 0 {
			minV = e.vruntime
		}
	}
	if !q.vruntimeEligible(minV) {
		return fmt.Errorf("queue %s: no queued entity is eligible", name)
	}
	if err := ck.lags(q, name, ents); err != nil {
		return err
	}
	for _, e := range ents {
		if e.task != nil {
			ck.tasks++
			if ck.seen[e.task] {
				return fmt.Errorf("task %s (pid %d) is queued twice", e.task.Comm, e.task.PID)
			}
			if !e.delayed {
				ck.seen[e.task] = true
			}
			continue
		}
		if e.delayed != (e.my.nr == 0) {
			return fmt.Errorf("queue %s: group entity with %d queued, delayed = %v", name, e.my.nr, e.delayed)
		}
		if err := ck.queue(e.my, name+"/"); err != nil {
			return err
		}
	}
	return nil
}

// lags checks every entity's lag with curr charged up to now (without
// touching the class's state), so the bound is held against the true lag,
// not one a late update_curr would hide.
func (ck *checker) lags(q *cfsRQ, name string, ents []*entity) error {
	s, w := q.sumWV, q.sumW
	cv := uint64(0)
	cur := q.curr
	if cur != nil && cur.onRQ {
		cv = cur.vruntime
		if d := ck.now - cur.execStart; d > 0 {
			cv += calcDeltaFair(d, cur)
		}
		s += int64(cv-q.v0) * int64(cur.w)
		w += int64(cur.w)
	}
	v := float64(s) / float64(w) // V − v0, exact enough for a bound
	paper := ck.c.LagBound()
	for _, e := range ents {
		ev := e.vruntime
		if e == cur {
			ev = cv
		}
		lag := (v - float64(int64(ev-q.v0))) * float64(e.w) / sched.NiceZeroLoad
		a := math.Abs(lag)
		if a > ck.c.maxLagNS {
			ck.c.maxLagNS = a
		}
		if r := a / paper; r > ck.c.maxLagRatio {
			ck.c.maxLagRatio = r
		}
		bound := paper + e.joinLag + float64(q.shift-e.shift0)*float64(e.w)/sched.NiceZeroLoad
		if a > bound*(1+1e-9)+1 {
			who := "a group entity"
			if e.task != nil {
				who = fmt.Sprintf("task %s (pid %d)", e.task.Comm, e.task.PID)
			}
			return fmt.Errorf("queue %s: %s has lag %.0f ns, beyond the bound %.0f ns (largest request + tick %.0f, lag at join %.0f, shifts of V since %.0f)",
				name, who, lag, bound, paper, e.joinLag, bound-paper-e.joinLag)
		}
	}
	return nil
}
