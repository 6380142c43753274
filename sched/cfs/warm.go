package cfs

import "schedlab/sched"

// Warm implements sched.Warmer: it reads t's entity and the queue it was
// last on, the class's lines that a wakeup's enqueue touches first.
func (c *CFS) Warm(t *sched.Task) uint64 { return warmEntity(t) }

// Warm implements sched.Warmer, as CFS's does.
func (c *CFS24) Warm(t *sched.Task) uint64 { return warmEntity(t) }

func warmEntity(t *sched.Task) uint64 {
	se, _ := t.Sched.(*entity)
	if se == nil {
		return 0
	}
	s := se.vruntime
	if q := se.q; q != nil {
		s += uint64(q.nr)
	}
	return s
}
