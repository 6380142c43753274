package eevdf

import "schedlab/sched"

// Warm implements sched.Warmer: it reads t's entity and the queue it was
// last on, the class's lines that a wakeup's enqueue touches first.
func (c *EEVDF) Warm(t *sched.Task) uint64 {
	se, _ := t.Sched.(*entity)
	if se == nil {
		return 0
	}
	s := se.vruntime + se.deadline
	if q := se.q; q != nil {
		s += uint64(q.nr)
	}
	return s
}
