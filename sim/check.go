package sim

import (
	"fmt"

	"schedlab/sched"
)

// checkInvariants verifies, after an event, what must hold whatever the
// policy: CPU time adds up to elapsed time, every runnable task is accounted
// on exactly one CPU, and then the class's own invariants.
func (e *Engine) checkInvariants() error {
	var busy int64
	for _, c := range e.cpus {
		c.sync()
		if c.busy+c.idle != e.now {
			return fmt.Errorf("cpu %d: busy %d + idle %d ns != elapsed %d ns", c.id, c.busy, c.idle, e.now)
		}
		busy += c.busy
	}
	var ran int64
	runnable := make([][]*sched.Task, len(e.cpus))
	for _, t := range e.tasks {
		ran += t.runtime
		if t.work < 0 {
			return fmt.Errorf("task %s (pid %d) has negative work %d", t.st.Comm, t.st.PID, t.work)
		}
		if t.suspended && t.state != stSleeping {
			return fmt.Errorf("task %s (pid %d) is suspended but not asleep", t.st.Comm, t.st.PID)
		}
		if t.onRQ {
			if t.state != stRunnable {
				return fmt.Errorf("task %s (pid %d) is queued but not runnable", t.st.Comm, t.st.PID)
			}
			runnable[t.st.CPU] = append(runnable[t.st.CPU], &t.st)
		}
	}
	if ran != busy {
		return fmt.Errorf("tasks ran %d ns but CPUs were busy %d ns", ran, busy)
	}
	for _, c := range e.cpus {
		if c.nr != len(runnable[c.id]) {
			return fmt.Errorf("cpu %d counts %d runnable tasks, %d are queued on it", c.id, c.nr, len(runnable[c.id]))
		}
		if c.curr != nil && !c.curr.onRQ {
			return fmt.Errorf("cpu %d runs %s (pid %d), which is not queued", c.id, c.curr.st.Comm, c.curr.st.PID)
		}
	}
	if e.checker != nil {
		return e.checker.CheckInvariants(runnable)
	}
	return nil
}
