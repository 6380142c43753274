package sim

import (
	"fmt"

	"schedlab/sched"
	"schedlab/uapi"
	"schedlab/workload"
)

// This file is the engine's side of a class that balances its own tasks
// (sched.Balancer, the real-time class's push and pull): a run whose
// workload has tasks above the fair class runs a sched.Stack, and the
// engine offers it the other CPUs, moves and a timer through core. A
// fair-only run has no stack and none of this runs.

// core implements sched.Core.
type core struct{ e *Engine }

func (k core) NCPU() int { return len(k.e.cpus) }

func (k core) RQ(cpu int) sched.RQ { return k.e.cpus[cpu] }

func (k core) Allowed(t *sched.Task, cpu int) bool { return k.e.task(t).allowedOn(cpu) }

func (k core) Move(t *sched.Task, cpu int, preempt bool) {
	k.e.migrate(k.e.task(t), k.e.cpus[cpu], preempt)
}

func (k core) ArmTimer(when int64) { k.e.q.arm(&k.e.classT, when) }

// ownBalance reports whether t's class places and moves it: the engine's
// fair wakeup placement and load balancing leave it alone, and it adds
// nothing to a CPU's fair load (the kernel's rq load counts fair entities
// only).
func (e *Engine) ownBalance(t *Task) bool { return t.ownBal }

// rtAvgPeriod is half of sysctl_sched_time_avg (1 s): the real-time time
// a CPU's capacity discounts halves every period (sched_avg_update).
const rtAvgPeriod = 500e6

// capacity is c's CPU power left to the fair class out of 1024
// (scale_rt_power): what real-time tasks ran on it recently, decayed,
// is not the fair tasks'. The fair balancing divides a CPU's load by it,
// so a fair task queued behind a real-time hog is pulled to a CPU where
// it can run. 1024 on every CPU of a run without real-time tasks.
func (e *Engine) capacity(c *CPU) int64 {
	if c.rtAvg == 0 {
		return 1024
	}
	for e.now-c.ageStamp > rtAvgPeriod {
		c.ageStamp += rtAvgPeriod
		c.rtAvg /= 2
	}
	total := rtAvgPeriod + e.now - c.ageStamp
	return max(1, 1024*max(0, total-c.rtAvg)/total)
}

// balanceLoad is c's load for the periodic balance: its fair load over
// its capacity.
func (e *Engine) balanceLoad(c *CPU) int64 {
	l := e.load(c)
	if capa := e.capacity(c); capa != 1024 {
		l = l * 1024 / capa
	}
	return l
}

// push lets the stack's classes push tasks after an event, each push's
// preemptions resolved before the next; the bound keeps a class that
// keeps pushing from hanging the run.
func (e *Engine) push() {
	for n := 0; e.err == nil && e.stack.Push(core{e}); n++ {
		if n == 4*len(e.cpus)+16 {
			e.err = fmt.Errorf("the scheduling classes keep pushing tasks between CPUs at %d ns", e.now)
			return
		}
		e.resolveOnce()
	}
}

// admit asks t's class to take t as sched_setattr would; a refusal
// (deadline admission control) ends the run with the class's reason, as
// rt-app stops when it cannot set a thread's policy.
func (e *Engine) admit(t *Task) bool {
	if e.stack == nil {
		return true
	}
	if err := e.stack.Admit(&t.st); err != nil {
		e.err = &WorkloadError{Msg: fmt.Sprintf("task %s (pid %d) at %d ns: %v", t.st.Comm, t.st.PID, e.now, err)}
		return false
	}
	return true
}

// ownRT sets the real-time priority and deadline reservation a definition
// gives its threads.
func ownRT(st *sched.Task, d *workload.Task) {
	st.RTPrio = d.Props.RTPrio
	st.DL.Runtime, st.DL.Deadline, st.DL.Period = d.Props.DL.Runtime, d.Props.DL.Deadline, d.Props.DL.Period
}

// setClass is sched_setscheduler by the running task t to a policy of
// another class (a forked thread setting its own, applyOwnSched): the
// new class admits it first, and the move happens in the schedule() the
// call ends with, once t has been put back (switchClass).
func (e *Engine) setClass(t *Task, pol uapi.Policy, nice int) {
	probe := t.st
	probe.Policy = pol
	ownRT(&probe, t.def)
	if err := e.stack.Admit(&probe); err != nil {
		e.err = &WorkloadError{Msg: fmt.Sprintf("task %s (pid %d) sets policy %v at %d ns: %v", t.st.Comm, t.st.PID, pol, e.now, err)}
		return
	}
	t.st.RTPrio, t.st.DL = probe.RTPrio, probe.DL
	t.classSwitch, t.newPolicy, t.newNice = true, pol, nice
	e.cpus[t.st.CPU].schedNow()
}

// classChange says whether a task setting policy pol and its definition's
// priority or reservation needs setClass: a move to another class, or a
// new policy, real-time priority or reservation within one above the
// fair class (whose entities are made for them).
func (e *Engine) classChange(t *Task, pol uapi.Policy) bool {
	if e.stack == nil {
		return false
	}
	d := sched.ClassOf(pol)
	if d != sched.ClassOf(t.st.Policy) {
		return true
	}
	var probe sched.Task
	ownRT(&probe, t.def)
	return d != nil && (pol != t.st.Policy || probe.RTPrio != t.st.RTPrio || probe.DL != t.st.DL)
}

// switchClass moves t, just put back on c by its old class, to the class
// of its new policy: dequeued from the old as a waiting task, created in
// the new one as a task without a parent, and queued there, before the
// pick. (The kernel's __sched_setscheduler dequeues, puts, sets the
// class and enqueues the same way.)
func (e *Engine) switchClass(c *CPU, t *Task) {
	t.classSwitch = false
	if t.state == stDead {
		return // it exits under its old class
	}
	// A task that blocked in the same step is off the queues already:
	// its wakeup enqueues it in the new class.
	queued := t.onRQ
	if queued {
		e.rqDel(c, t, 0)
	}
	t.st.Policy, t.st.Nice = t.newPolicy, t.newNice
	t.ownBal = e.stack.Balances(&t.st)
	e.class.TaskNew(&t.st, nil)
	e.class.Fork(c, c, nil, &t.st)
	if queued {
		e.rqAdd(c, t, 0)
	}
}
