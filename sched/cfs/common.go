package cfs

import (
	"schedlab/sched"
	"schedlab/uapi"
)

// generation is what the operations 2.6.24 and 2.6.35 share ask of a class.
type generation interface {
	sched.Class
	updateCurr(q *cfsRQ)
}

// yieldTask is sched_yield() (yield_task_fair of 2.6.35; 2.6.24 is the same
// without buddies, which it never sets): by default only charge the task,
// so the following schedule() picks by the normal rule; with compat yield
// (and always for SCHED_BATCH) move it to the right end of the tree.
func yieldTask(g generation, curr *sched.Task, compat bool) {
	se := taskSE(curr)
	q := se.q
	if q.nr == 1 {
		return
	}
	clearBuddies(se)
	if !compat && curr.Policy != uapi.SchedBatch {
		g.updateCurr(q)
		return
	}
	right := q.tree.rightmost()
	if right == nil || sched.Before(right.vruntime, se.vruntime) {
		return
	}
	se.vruntime = right.vruntime + 1
}

// setNice is set_user_nice: a queued task is dequeued and enqueued with
// flags 0 around the weight change, so its vruntime is not rescaled; then
// a rise in priority, or a fall of the running task's, reschedules.
func setNice(g generation, env sched.RQ, t *sched.Task, nice int) {
	se := taskSE(t)
	onRQ := se.onRQ
	if onRQ {
		g.Dequeue(env, t, 0)
	}
	old := t.Nice
	t.Nice = nice
	se.load = sched.NiceWeight(nice, t.Policy)
	se.startNice = false // a permanent change ends START_NICE's penalty
	if onRQ {
		g.Enqueue(env, t, 0)
		if nice < old || (nice > old && env.Curr() == t) {
			env.Resched()
		}
	}
}
