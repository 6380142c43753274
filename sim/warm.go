package sim

import "unsafe"

// Warming a wakeup's state before it is due.
//
// With thousands of tasks asleep, a wakeup finds the woken task's state
// (the five lines of its Task's hot part, its class entity, its CPU)
// long gone from the caches: at 10,000 tasks on one CPU each wakeup
// missed a dozen lines, and each miss waited for the one before it (the
// timer names the task, the task its entity), so that a wakeup cost
// three times a small run's. The queue knows the wakeups to come,
// though: far timers move to the near part a bucket at a time, before
// their time (queue.go, toNear). At that move warm reads every line
// those timers' tasks will need, a bucket's tasks in one loop, whose
// loads are independent and so in flight together; by the time the
// timers fire, their lines are in the cache. Nothing is written and no
// decision reads what warm computes: the sum is kept in the queue only
// so that the compiler cannot drop the loads as dead, and runs are the
// same with and without it.

// warm reads the lines the tasks of the entries in b will touch when
// their timers fire, and keeps a sum of what it read.
func (q *eventQueue) warm(b []entry) {
	if !warmTasks {
		return
	}
	var s uint64
	for i := range b {
		// A wakeup's task is cold; a piece of work's is running, and
		// a tick has none.
		if t := q.loc[b[i].id()].t; t != nil && t.kind == tkWake {
			s += t.task().warm()
		}
	}
	q.warmth += s
}

// warm reads one byte of each of the five cache lines of t's hot part
// (taskHotBytes; a Task starts on a line: newTask1, TestTasksStartOnLines),
// its CPU's first line and, through the class, its entity. Only those:
// each line warm reads is one more that every sleeping task holds in the
// cache, and with all ten of a Task's lines read, 10,000 tasks on one CPU
// missed the 6 MiB that a miss costs 45 ns within, three times as often
// (cachegrind's last level of 6 MiB: 1.35 misses per event against 0.41
// without warming at all). The reads are written out: a loop over the
// lines cost 60 instructions a task.
func (t *Task) warm() uint64 {
	l := (*[taskHotBytes]byte)(unsafe.Pointer(t))
	s := uint64(l[0]) + uint64(l[64]) + uint64(l[128]) + uint64(l[192]) + uint64(l[256])
	e := t.e
	if cpu := t.st.CPU; uint(cpu) < uint(len(e.cpus)) {
		s += uint64(e.cpus[cpu].nr)
	}
	if e.warmer != nil {
		s += e.warmer.Warm(&t.st)
	}
	return s
}

// warmTasks can be turned off by tests, to compare a run with and
// without warming.
var warmTasks = true
