package sim

import (
	"fmt"
	"slices"

	"schedlab/uapi"
	"schedlab/workload"
)

// A phase's scheduling properties take effect when the phase begins, as
// rt-app sets them (set_thread_affinity, set_thread_taskgroup, ...) before
// the phase's first event. The nice level is task.go's enterPhase; this
// file does the CPU affinity and the task group, and refuses the changes
// the engine cannot make yet.

// checkPhases rejects, before the run starts, phase properties the engine
// does not simulate: a change of policy or custom slice in the middle of a
// task's life.
func (e *Engine) checkPhases(d *workload.Task) error {
	pol := e.spec.DefaultPolicy
	if d.Props.Policy != nil {
		pol = *d.Props.Policy
	}
	for _, ph := range d.Phases {
		p := ph.Props
		where := fmt.Sprintf("task %q phase %q", d.Name, ph.Name)
		if p.Policy != nil && *p.Policy != pol {
			return fmt.Errorf("%s: changing the policy from %v to %v in a phase is not simulated (a running task's sched_setattr midway)", where, pol, *p.Policy)
		}
		// A fair task's dl-runtime is its slice; a deadline task's is in DL.
		runtime := d.Props.Slice
		if pol == uapi.SchedDeadline {
			runtime = d.Props.DL.Runtime
		}
		if (p.Slice != 0 && p.Slice != runtime) || (p.DL.Period != 0 && p.DL.Period != d.Props.DL.Period) ||
			(p.DL.Deadline != 0 && p.DL.Deadline != d.Props.DL.Deadline) {
			return fmt.Errorf("%s: changing dl-runtime, dl-period or dl-deadline (the custom slice or the reservation) in a phase is not simulated", where)
		}
		for _, c := range p.CPUs {
			if c < 0 || c >= len(e.cpus) {
				return fmt.Errorf("%s: cpus lists CPU %d, but the run has %d CPU(s) (0-%d): run it with --cpus %d or more", where, c, len(e.cpus), len(e.cpus)-1, slices.Max(p.CPUs)+1)
			}
		}
	}
	return nil
}

// phaseGroup notes the task group phase ph moves t to: rt-app attaches the
// thread to a phase's taskgroup when the phase begins, and a phase without
// one leaves it where it is. The move (sched_move_task: dequeue, change
// group, enqueue) is made by schedule(), which step has the task pass
// through first: moveGroup.
func (t *Task) phaseGroup(ph *workload.Phase) {
	if ph.Props.TaskGroup == nil {
		return
	}
	if g := t.e.groups[*ph.Props.TaskGroup]; g != t.st.Group {
		t.regroup, t.regroupTo = true, g
	}
}

// moveGroup moves prev, just put back on c's queue by schedule(), to the
// task group its phase asked for: as sched_move_task, out of its queue,
// its entity bound to the new group's queue (MigrateTask within c), and
// back.
func (e *Engine) moveGroup(c *CPU, prev *Task) {
	if !prev.regroup || prev.state != stRunnable {
		return
	}
	prev.regroup = false
	e.rqDel(c, prev, 0)
	prev.st.Group = prev.regroupTo
	e.class.MigrateTask(c, c, &prev.st, false)
	e.rqAdd(c, prev, 0)
}

// phaseAffinity sets the running task t's CPU mask for phase ph: the
// phase's "cpus", else the task's (rt-app: a phase without cpus inherits
// the task's, not the previous phase's). If t's CPU is no longer allowed,
// t must leave it: schedule() moves it (moveDisallowed), as the kernel's
// migration stopper preempts a task whose affinity excludes its CPU.
func (t *Task) phaseAffinity(ph *workload.Phase) {
	// Most tasks have no affinity before or after: this test inlines.
	if len(ph.Props.CPUs)+len(t.def.Props.CPUs) != 0 || t.pinned {
		t.setAffinity(ph)
	}
}

func (t *Task) setAffinity(ph *workload.Phase) {
	allowed := ph.Props.CPUs
	if allowed == nil {
		allowed = t.def.Props.CPUs
	}
	if slices.Equal(allowed, t.allowed) {
		return
	}
	t.setAllowed(allowed)
	if !t.allowedOn(t.st.CPU) {
		t.e.cpus[t.st.CPU].schedNow()
	}
}

// moveDisallowed moves prev, just put back on c's queue by schedule(), to
// the least loaded CPU it is allowed on if c is not one of them.
func (e *Engine) moveDisallowed(c *CPU, prev *Task) {
	e.moveGroup(c, prev)
	if prev.state != stRunnable || prev.allowedOn(c.id) {
		return
	}
	var dst *CPU
	for _, o := range e.cpus {
		if prev.allowedOn(o.id) && (dst == nil || e.load(o) < e.load(dst)) {
			dst = o
		}
	}
	e.migrate(prev, dst, true)
}
