package sim

import "unsafe"

// Warming a wakeup's state before it is due.
//
// With thousands of tasks asleep, a wakeup finds the woken task's state
// (its Task, ten cache lines; its class entity; its CPU) long gone from
// the caches: at 10,000 tasks on one CPU each wakeup missed a dozen
// lines, and each miss waited for the one before it (the timer names the
// task, the task its entity), so that a wakeup cost three times a small
// run's. The queue knows the wakeups to come, though: far timers move
// to the near part a bucket at a time, before their time (queue.go,
// toNear). At that move warm reads every line those timers' tasks will need, a
// bucket's tasks in one loop, whose loads are independent and so in
// flight together; by the time the timers fire, their lines are in the
// cache. Nothing is written and no decision reads what warm computes:
// the sum is kept in the queue only so that the compiler cannot drop the
// loads as dead, and runs are the same with and without it.

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
			s += t.task.warm()
		}
	}
	q.warmth += s
}

// warm reads one byte of each of t's ten cache lines (a Task is 640
// bytes and starts on a line: newTask1, TestTasksStartOnLines), its CPU's
// first line and, through the class, its entity. The reads are written
// out: a loop over the lines cost 60 instructions a task.
func (t *Task) warm() uint64 {
	l := (*[unsafe.Sizeof(Task{})]byte)(unsafe.Pointer(t))
	s := uint64(l[0]) + uint64(l[64]) + uint64(l[128]) + uint64(l[192]) + uint64(l[256]) +
		uint64(l[320]) + uint64(l[384]) + uint64(l[448]) + uint64(l[512]) + uint64(l[576])
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
