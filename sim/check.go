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
	ran := e.deadRuntime
	runnable := make([][]*sched.Task, len(e.cpus))
	for _, c := range e.cpus {
		// An exiting task has left the live list but not yet its CPU.
		if t := c.curr; t != nil && t.state == stDead {
			ran += t.runtime
		}
	}
	for t := range e.alive.all() {
		ran += t.runtime
		if t.work < 0 {
			return fmt.Errorf("task %s (pid %d) has negative work %d", t.st.Comm, t.st.PID, t.work)
		}
		if t.suspended && t.state != stSleeping {
			return fmt.Errorf("task %s (pid %d) is suspended but not asleep", t.st.Comm, t.st.PID)
		}
		if t.pinned != (len(t.allowed) != 0) {
			return fmt.Errorf("task %s (pid %d) is pinned %v with affinity %v", t.st.Comm, t.st.PID, t.pinned, t.allowed)
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
	busyCPUs, queued := 0, 0
	for _, c := range e.cpus {
		if c.curr != nil {
			busyCPUs++
		}
		queued += c.nr
		if c.hrtickT.armed() && !e.hrticks {
			return fmt.Errorf("cpu %d has its hrtick armed, and schedule() would not cancel it", c.id)
		}
		// One CPU keeps no list (smp).
		if n := len(c.queued); n != c.nr && (e.smp() || n != 0) {
			return fmt.Errorf("cpu %d lists %d queued tasks but counts %d", c.id, len(c.queued), c.nr)
		}
		for i, t := range c.queued {
			if t.rqIdx != i || t.st.CPU != c.id {
				return fmt.Errorf("cpu %d: queued task %s (pid %d) has index %d on cpu %d", c.id, t.st.Comm, t.st.PID, t.rqIdx, t.st.CPU)
			}
		}
		var root int64
		for _, st := range runnable[c.id] {
			if st.Group == nil {
				root += e.task(st).loadW
			}
		}
		if root != c.rootLoad {
			return fmt.Errorf("cpu %d: root load %d, queued tasks weigh %d", c.id, c.rootLoad, root)
		}
	}
	if err := e.checkCPUMasks(); err != nil {
		return err
	}
	if busyCPUs != e.busy || queued != e.runnable {
		return fmt.Errorf("engine counts %d busy CPUs and %d queued tasks; there are %d and %d", e.busy, e.runnable, busyCPUs, queued)
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
		return e.checker.CheckInvariants(e.now, runnable)
	}
	return nil
}

// checkCPUMasks verifies that the CPU masks (cpuChanged) say what a scan
// of the CPUs says.
func (e *Engine) checkCPUMasks() error {
	if !e.smp() {
		return nil
	}
	for _, c := range e.cpus {
		idle := c.curr == nil && c.nr == 0
		waiting := 0
		if c.nr-e.running(c) >= 1 {
			waiting = c.nr
		}
		if e.idleCPUs.Has(c.id) != idle || e.nrCPUs.Level(c.id) != c.nr+1 || e.waitingCPUs.Level(c.id) != waiting ||
			int(c.waitLevel) != waiting {
			return fmt.Errorf("cpu %d (running %v, %d queued) is filed idle %v, at count %d, waiting at %d",
				c.id, c.curr != nil, c.nr, e.idleCPUs.Has(c.id), e.nrCPUs.Level(c.id)-1, e.waitingCPUs.Level(c.id))
		}
	}
	return nil
}
