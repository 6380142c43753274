package cfs

import (
	"fmt"

	"schedlab/sched"
)

// CheckInvariants implements sched.Checker.
func (c *CFS) CheckInvariants(now int64, runnable [][]*sched.Task) error {
	return checkQueues(c.cpus, c.groupList, runnable)
}

// checkQueues verifies what every CFS generation keeps true: on every
// queue, min_vruntime never moves back, nr_running and the load equal what
// is queued, the timeline holds exactly the queued entities other than
// curr, a group entity is queued exactly while its queue is not empty, and
// the task entities reachable from each CPU's root are exactly the engine's
// runnable tasks there.
func checkQueues(cpus []cpuRQ, groups []*groupState, runnable [][]*sched.Task) error {
	for cpu := range cpus {
		r := &cpus[cpu]
		seen := map[*sched.Task]bool{}
		if err := checkQueue(&r.root, fmt.Sprintf("cpu%d:/", cpu), seen); err != nil {
			return err
		}
		if len(seen) != len(runnable[cpu]) {
			return fmt.Errorf("cpu %d: %d tasks reachable in the fair queues, engine has %d runnable", cpu, len(seen), len(runnable[cpu]))
		}
		for _, t := range runnable[cpu] {
			if !seen[t] {
				return fmt.Errorf("cpu %d: runnable task %s (pid %d) is not in the fair queues", cpu, t.Comm, t.PID)
			}
		}
	}
	for _, gs := range groups {
		for cpu, q := range gs.q {
			name := fmt.Sprintf("cpu%d:%s", cpu, gs.path)
			if err := checkMonotonic(q, name); err != nil {
				return err
			}
			if (q.nr > 0) != gs.se[cpu].onRQ {
				return fmt.Errorf("queue %s: %d entities queued, but its group entity on_rq = %v", name, q.nr, gs.se[cpu].onRQ)
			}
		}
	}
	return nil
}

func checkMonotonic(q *cfsRQ, name string) error {
	if sched.Before(q.minV, q.lastMinV) {
		return fmt.Errorf("queue %s: min_vruntime went back from %d to %d", name, q.lastMinV, q.minV)
	}
	q.lastMinV = q.minV
	return nil
}

func checkQueue(q *cfsRQ, name string, seen map[*sched.Task]bool) error {
	if err := checkMonotonic(q, name); err != nil {
		return err
	}
	var ents []*entity
	for i := 0; i < q.tree.len(); i++ {
		se := q.tree.at(i)
		if se == q.curr {
			return fmt.Errorf("queue %s: curr is in the timeline", name)
		}
		if !se.onRQ || se.q != q || !q.tree.contains(se) {
			return fmt.Errorf("queue %s: timeline holds an entity that is not queued here", name)
		}
		ents = append(ents, se)
	}
	if q.curr != nil && q.curr.onRQ {
		ents = append(ents, q.curr)
	}
	var w uint64
	for _, se := range ents {
		w += se.load.Weight
	}
	if q.nr != len(ents) {
		return fmt.Errorf("queue %s: nr_running %d, but %d entities are queued", name, q.nr, len(ents))
	}
	if q.load.Weight != w {
		return fmt.Errorf("queue %s: load %d, but queued weights sum to %d", name, q.load.Weight, w)
	}
	for _, se := range ents {
		if se.isTask() {
			if seen[se.task] {
				return fmt.Errorf("task %s (pid %d) is queued twice", se.task.Comm, se.task.PID)
			}
			seen[se.task] = true
			continue
		}
		if se.my.nr == 0 {
			return fmt.Errorf("queue %s: a group entity is queued with an empty queue", name)
		}
		if err := checkQueue(se.my, name+"/", seen); err != nil {
			return err
		}
	}
	return nil
}
