package sim

import "schedlab/sched"

// CPU is one simulated CPU and the engine's half of its run queue. It
// implements sched.RQ for the class.
type CPU struct {
	id          int
	e           *Engine
	curr        *Task
	needResched bool
	// selfSched: curr calls schedule() itself (it blocks, exits or
	// yields, or leaves a system call with a preemption pending), so the
	// reschedule is not delayed. listed: c is in the engine's dirty list.
	selfSched, listed bool
	// remoteWake: the pending reschedule was asked for by a wakeup that
	// ran on another CPU, so it waits for the IPI (cost_ipi_ns).
	remoteWake bool
	// waitLevel is c's level in the engine's waitingCPUs (fileCPU),
	// kept here, in the line the change touches, for Levels.Move.
	waitLevel int32
	nr        int // tasks queued on this CPU, the running one included

	// lastSync is the time up to which busy/idle time and the running
	// task's work have been accounted.
	lastSync   int64
	busy, idle int64

	// The timers' first 16 bytes (when, seq) are what schedule() reads
	// of them (armed, armTick's test): tickT's and reschedT's share the
	// second line, and hrtickT's, which it reads only when hrticks are
	// used (Engine.hrticks), is in the third (TestCPULayout). (With
	// hrtickT second, reschedT's was in the third line, and every
	// schedule() read two lines of a CPU's timers.)
	tickT timer
	// reschedT is a preemption on its way to schedule() (cost_resched_ns).
	reschedT timer
	hrtickT  timer

	// queued lists the tasks on this run queue (running one included),
	// for balancing; rootLoad is their weight outside task groups.
	queued      []*Task
	rootLoad    int64
	nextBalance int64

	// rtAvg is the real-time time run here, halved every rtAvgPeriod
	// since ageStamp (classes.go, capacity).
	rtAvg, ageStamp int64

	// The padding makes a CPU 256 bytes, a size class whose objects
	// start on a cache line, so that what sync and the handlers read
	// first (the fields up to idle) is one line: at 264 bytes (the
	// 288-byte class) every other CPU had them across two.
	_ [40]byte
}

// sync accounts the time since the last sync: the running task progresses
// through its work, or the CPU was idle. Every handler calls it before it
// changes anything on this CPU, so CPU time always adds up to elapsed time.
func (c *CPU) sync() {
	el := c.e.now - c.lastSync
	if el <= 0 {
		return
	}
	if t := c.curr; t != nil {
		t.work -= el
		t.runtime += el
		c.busy += el
		if t.ownBal {
			c.rtAvg += el
		}
	} else {
		c.idle += el
	}
	c.lastSync = c.e.now
}

// CPU implements sched.RQ.
func (c *CPU) CPU() int { return c.id }

// Now implements sched.RQ.
func (c *CPU) Now() int64 { return c.e.now }

// Curr implements sched.RQ.
func (c *CPU) Curr() *sched.Task {
	if c.curr == nil {
		return nil
	}
	return &c.curr.st
}

// Resched implements sched.RQ: it marks the running task, which reaches
// schedule() after cost_resched_ns (afterEvent).
func (c *CPU) Resched() {
	c.needResched = true
	c.list()
}

// schedNow is the running task calling schedule() itself.
func (c *CPU) schedNow() {
	c.needResched, c.selfSched = true, true
	c.list()
}

func (c *CPU) list() {
	if !c.listed {
		c.listed = true
		c.e.dirty = append(c.e.dirty, c)
	}
}

// NeedResched implements sched.RQ.
func (c *CPU) NeedResched() bool { return c.needResched }

// StartHRTick implements sched.RQ.
func (c *CPU) StartHRTick(delay int64) {
	c.e.hrticks = true
	c.e.q.arm(&c.hrtickT, c.e.now+delay)
}

// HRTickActive implements sched.RQ.
func (c *CPU) HRTickActive() bool { return c.hrtickT.armed() }
