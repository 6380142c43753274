package sim

import (
	"schedlab/sched"
	"schedlab/workload"
)

// Synchronisation objects: rt-app's mutexes, condition variables, barriers
// and semaphores, as glibc builds them on futexes. A thread that must wait
// blocks (it sleeps, and schedule() dequeues it); the thread that releases
// it wakes it with a task-to-task wakeup (sched.WakeTask, the releaser as
// waker), so wakeup chains and lock convoys show in the wakeup latency.
//
// Costs. The uncontended paths (taking a free mutex, unlocking or
// signalling with nobody waiting) stay in user space and take no time. A
// release that has a waiter to wake makes a futex system call: the
// releaser spends cost_wakeup_ns of CPU time in it, as a resume does,
// before the wakee is queued. Blocking costs the context switches; unlike
// a sleep, a timer wait or a suspend, a sync wait does not yet spend
// cost_block_ns (0 by default) before it blocks.
//
// Waiters queue in arrival order. The kernel's futex queue orders waiters
// by priority, but gives every fair task the same one (MAX_RT_PRIO), so
// among the fair tasks this simulator runs the order is FIFO.
//
// Mutexes (glibc PTHREAD_MUTEX_NORMAL, or PTHREAD_PRIO_INHERIT when
// global.pi_enabled):
//   - Without PI, unlock releases the lock in user space at once and then
//     wakes the first waiter, which retries when it runs: a thread that
//     runs in between takes the lock (barging), and the wakee blocks again
//     at the end of the queue.
//   - With PI (FUTEX_UNLOCK_PI), the kernel hands the lock to the first
//     waiter, which returns owning it: no barging. Boosting the owner to a
//     waiter's priority matters only for real-time priorities; a fair
//     task's weight follows its static priority (nice), which PI does not
//     change, so for fair tasks PI is the handoff alone.
//   - Unlocking a mutex another thread holds releases it, as a normal
//     glibc mutex does; unlocking a free one does nothing. Locking a mutex
//     the thread holds deadlocks it, as a normal mutex does.
//
// Condition variables: wait releases the mutex (waking its first waiter,
// at no extra cost: that is the same futex call), sleeps until a signal or
// broadcast, then takes the mutex again (and may block on it). A signal or
// broadcast that finds no waiter is lost, as pthread's are. broadcast
// wakes every waiter (glibc 2.25+; older glibc requeued them onto the
// mutex).
//
// Barriers follow rt-app's own (not pthread_barrier): a count of the users
// still to arrive starts at users−1; a thread that finds it 0 is the last
// and broadcasts, any other decrements it and waits, and increments it
// again when it runs after the broadcast. The barrier's internal mutex is
// held for a few instructions and its contention is not modelled.
//
// Semaphores: sem_post wakes the first waiter, which takes the unit, or
// else counts it; sem_wait takes a unit or blocks.

// Actions of the sync events, after the task's CPU work (task.go's action).
const (
	actLock        action = iota + 64 // try to take mutex sy.res
	actWakeMutex                      // unlock's futex wake of mutex sy.res
	actSignal                         // wake the first waiter of condition sy.res
	actBroadcast                      // wake every waiter of condition sy.res
	actSigWait                        // signal condition sy.res, then wait on it
	actBarrierWake                    // the last arrival wakes barrier sy.res's waiters
	actBarrierBack                    // a barrier waiter runs again: count itself back
	actSemWake                        // sem_post hands a unit to semaphore sy.res's first waiter
)

// syncState is a task's part in the sync objects.
type syncState struct {
	res   int // the object the pending action is on
	mutex int // for a condition wait: the mutex to take again
}

type mutexObj struct {
	owner   *Task
	waiters []*Task
}

type condObj struct{ waiters []*Task }

type barrierObj struct {
	waiting int // rt-app's count: users still to arrive, minus one
	waiters []*Task
}

type semObj struct {
	count   int64
	waiters []*Task
}

// syncObjs are a run's sync objects, by the Spec's indexes.
type syncObjs struct {
	mutexes  []mutexObj
	conds    []condObj
	barriers []barrierObj
	sems     []semObj
}

func (e *Engine) syncObjects() *syncObjs {
	if e.syncs == nil {
		s := &syncObjs{
			mutexes:  make([]mutexObj, len(e.spec.Mutexes)),
			conds:    make([]condObj, len(e.spec.Conds)),
			barriers: make([]barrierObj, len(e.spec.Barriers)),
			sems:     make([]semObj, len(e.spec.Sems)),
		}
		for i, b := range e.spec.Barriers {
			s.barriers[i].waiting = b.Users - 1
		}
		e.syncs = s
	}
	return e.syncs
}

// syncStep executes a sync, mem or I/O event for the running task t.
func (e *Engine) syncStep(t *Task, ev *workload.Event) {
	s := e.syncObjects()
	t.work, t.action, t.sy.res = 0, actStep, ev.Res
	switch ev.Kind {
	case workload.Lock:
		t.action = actLock
	case workload.Unlock:
		e.unlock(t, ev.Res)
	case workload.Wait:
		e.condWait(t, ev.Res, ev.Mutex)
	case workload.Signal, workload.Broadcast, workload.SigAndWait:
		if len(s.conds[ev.Res].waiters) == 0 {
			if ev.Kind == workload.SigAndWait {
				e.condWait(t, ev.Res, ev.Mutex)
			}
			return
		}
		t.work, t.action, t.sy.mutex = e.p.CostWakeup, actSignal, ev.Mutex
		switch ev.Kind {
		case workload.Broadcast:
			t.action = actBroadcast
		case workload.SigAndWait:
			t.action = actSigWait
		}
	case workload.Barrier:
		b := &s.barriers[ev.Res]
		if b.waiting != 0 {
			b.waiting--
			b.waiters = append(b.waiters, t)
			t.action = actBarrierBack
			e.block(t)
			return
		}
		if len(b.waiters) > 0 {
			t.work, t.action = e.p.CostWakeup, actBarrierWake
		}
	case workload.SemPost:
		sm := &s.sems[ev.Res]
		if len(sm.waiters) == 0 {
			sm.count++
			return
		}
		t.work, t.action = e.p.CostWakeup, actSemWake
	case workload.SemWait:
		sm := &s.sems[ev.Res]
		if sm.count > 0 {
			sm.count--
			return
		}
		sm.waiters = append(sm.waiters, t)
		e.block(t)
	case workload.Mem:
		t.work = memCost(workload.MemWrite, ev.Bytes, true)
	case workload.MemRun:
		t.work = memCost(ev.Mem, ev.Bytes, false)
	case workload.IORun:
		e.ioRun(t, ev.Bytes)
	}
}

// syncAction performs a sync action once t's CPU work is done.
func (e *Engine) syncAction(t *Task) {
	s := e.syncObjects()
	a := t.action
	t.action, t.work = actStep, 0
	switch a {
	case actLock:
		e.lock(t, t.sy.res)
	case actWakeMutex:
		m := &s.mutexes[t.sy.res]
		if w := popWaiter(&m.waiters); w != nil {
			if e.spec.Global.PIEnabled {
				m.owner = w
			}
			e.wakeUp(w, sched.WakeTask, t)
		} else if e.spec.Global.PIEnabled && m.owner == t {
			m.owner = nil
		}
	case actSignal, actSigWait:
		c := &s.conds[t.sy.res]
		if w := popWaiter(&c.waiters); w != nil {
			e.wakeUp(w, sched.WakeTask, t)
		}
		if a == actSigWait {
			e.condWait(t, t.sy.res, t.sy.mutex)
		}
	case actBroadcast:
		e.wakeAll(&s.conds[t.sy.res].waiters, t)
	case actBarrierWake:
		e.wakeAll(&s.barriers[t.sy.res].waiters, t)
	case actBarrierBack:
		s.barriers[t.sy.res].waiting++
	case actSemWake:
		sm := &s.sems[t.sy.res]
		if w := popWaiter(&sm.waiters); w != nil {
			e.wakeUp(w, sched.WakeTask, t)
		} else {
			sm.count++
		}
	}
}

func popWaiter(q *[]*Task) *Task {
	if len(*q) == 0 {
		return nil
	}
	w := (*q)[0]
	*q = (*q)[1:]
	return w
}

// wakeAll wakes a queue's waiters in order, with waker as their waker.
func (e *Engine) wakeAll(q *[]*Task, waker *Task) {
	ws := *q
	*q = nil
	for _, w := range ws {
		e.wakeUp(w, sched.WakeTask, waker)
	}
}

// lock takes mutex i for t, or queues t on it and blocks. Without PI the
// woken waiter retries (actLock again); with PI it is woken as the owner.
func (e *Engine) lock(t *Task, i int) {
	m := &e.syncObjects().mutexes[i]
	if m.owner == nil {
		m.owner = t
		return
	}
	m.waiters = append(m.waiters, t)
	t.sy.res = i
	if !e.spec.Global.PIEnabled {
		t.action = actLock
	}
	e.block(t)
}

// unlock releases mutex i. Without PI the lock is free at once and the
// futex wake follows; with PI the lock stays t's until the kernel hands it
// to the first waiter.
func (e *Engine) unlock(t *Task, i int) {
	m := &e.syncObjects().mutexes[i]
	if m.owner == nil {
		return
	}
	if len(m.waiters) == 0 {
		m.owner = nil
		return
	}
	if !e.spec.Global.PIEnabled {
		m.owner = nil
	}
	t.sy.res = i
	t.work, t.action = e.p.CostWakeup, actWakeMutex
}

// condWait releases mutex mi (if t holds it), waking its first waiter,
// and blocks t on condition ci; t takes the mutex again when it runs.
func (e *Engine) condWait(t *Task, ci, mi int) {
	s := e.syncObjects()
	if m := &s.mutexes[mi]; m.owner == t {
		m.owner = nil
		if w := popWaiter(&m.waiters); w != nil {
			if e.spec.Global.PIEnabled {
				m.owner = w
			}
			e.wakeUp(w, sched.WakeTask, t)
		}
	}
	s.conds[ci].waiters = append(s.conds[ci].waiters, t)
	t.sy.res, t.action = mi, actLock
	e.block(t)
}

// suspendOn blocks t on rendezvous ci (rt-app 1.0's suspend with a name):
// a condition wait with no mutex.
func (e *Engine) suspendOn(t *Task, ci int) {
	s := e.syncObjects()
	s.conds[ci].waiters = append(s.conds[ci].waiters, t)
	t.work, t.action = 0, actStep
	e.block(t)
}

// resumeCond is the rendezvous half of a resume (rt-app 1.0's broadcast
// on the condition the name names): every task suspended on it wakes.
func (e *Engine) resumeCond(waker *Task, ev *workload.Event) {
	if ev.Cond >= 0 {
		e.wakeAll(&e.syncObjects().conds[ev.Cond].waiters, waker)
	}
}

// Cost model of mem, memrun and iorun (reconstructions: rt-app's own cost
// is whatever the machine takes; these are round figures of the right
// order for a 2 GHz CPU, fixed, not calibrated to any measurement).
const (
	// memsetBytesPerUS: mem is memset() over the thread's buffer,
	// vectorised: 10 GB/s.
	memsetBytesPerUS = 10_000
	// byteLoopBytesPerUS: memrun read and write touch a byte per
	// iteration through a volatile pointer: about a byte a cycle, 2 GB/s.
	byteLoopBytesPerUS = 2_000
	// chaseHopNS: a memrun chase hop is a dependent load that misses the
	// caches (its buffer is meant to exceed them): 100 ns of DRAM latency.
	chaseHopNS = 100
	// ioBytesPerUS: iorun to a real device blocks for its write at
	// 100 MB/s, a disk's sequential rate, and is woken by its completion
	// interrupt.
	ioBytesPerUS = 100
	// nullWriteNS: iorun to /dev/null (rt-app's default io_device) never
	// blocks: each write() of at most mem_buffer_size bytes is a system
	// call of 1 µs of CPU time that copies nothing.
	nullWriteNS = 1000
)

// memCost is the CPU time of touching n bytes (hops for a chase).
func memCost(kind workload.MemAccess, n int64, memset bool) int64 {
	switch {
	case memset:
		return n * 1000 / memsetBytesPerUS
	case kind == workload.MemChase:
		return n * chaseHopNS
	}
	return n * 1000 / byteLoopBytesPerUS
}

// ioRun writes n bytes to the global io_device.
func (e *Engine) ioRun(t *Task, n int64) {
	g := e.spec.Global
	if g.IODevice == "/dev/null" {
		chunks := (n + g.MemBufferSize - 1) / g.MemBufferSize
		t.work = chunks * nullWriteNS
		return
	}
	if n == 0 {
		return
	}
	e.block(t)
	t.wakeT.phase = wakeNow
	e.q.arm(&t.wakeT, e.now+n*1000/ioBytesPerUS+e.p.CostWakeup)
}
