package sim

// Exited tasks are recycled: a long run forks hundreds of thousands of
// ~700-byte Tasks, and allocating each was most of what the garbage
// collector had to do (a sweep ran 30 % faster with the collector off).
//
// A recycled Task must never be reached through a reference its earlier
// life left behind. What can still name a dead task:
//   - its own timers, in the event queue while armed: a task is
//     recycled only with none armed (a dead task's expiry is the engine's
//     to ignore, which recycling must not change). The queue's table of
//     timer numbers, which a timer keeps while unarmed, lets go of them
//     when the task is released (eventQueue.forget).
//   - a POSIX timer, whose owner and waiter are compared by pointer
//     (posixTimerFor) and whose owner's PID goes into its marks: a task
//     that a POSIX timer names (pins > 0) is never recycled.
//   - a mutex it owned when it exited (sync.go), compared by pointer: a
//     task that owns one is not recycled. The sync objects' waiters are
//     asleep, so alive.
//   - its rt-app log (rtapplog.go), which the run keeps: the recycled
//     task starts a log of its own.
//   - the class's state: nothing outlives TaskDead (the Class contract),
//     and TaskNew attaches an entity of its own (a class reuses a dead
//     task's entity only when no queue names it).
//   - WakeInfo.Waker of the tasks it woke, which the class reads only in
//     the wakeup's own enqueue, while the waker runs.
// A task joins the free list only between events (Advance, after the
// event that released it is resolved), so no frame of the engine's holds
// it when it is handed out again.

// allocTask returns a zeroed Task, recycled if one is free.
func (e *Engine) allocTask() *Task {
	if !recycleTasks {
		return new(Task)
	}
	if e.freeTasks.Len() == 0 {
		return e.newTask1()
	}
	t, _ := e.freeTasks.Get()
	e.reused++
	return t
}

// taskBlock is how many new Tasks are allocated together: 36 KiB.
const taskBlock = 64

// newTask1 hands out a fresh Task from a block of taskBlock. A Task
// allocated alone starts 8 bytes into its 576-byte slot, after the
// header Go (since 1.22) puts before a small object above 512 bytes
// that holds pointers, so that each of its lines straddled two, and
// fields laid out to share a line (Task) did not: with thousands of
// tasks, the CPU's sync of the running task's work and runtime, 8 bytes
// apart, missed on both. A block above 32 KiB is a large object, which
// has no header and starts on a page, and a Task is 576 bytes.
func (e *Engine) newTask1() *Task {
	if len(e.taskBlock) == 0 {
		e.taskBlock = make([]Task, taskBlock)
	}
	t := &e.taskBlock[0]
	e.taskBlock = e.taskBlock[1:]
	return t
}

// recycleTasks can be turned off by tests, to compare a run with and
// without recycling.
var recycleTasks = true

// released notes a dead task whose class state is gone (TaskDead): it is
// recycled after the current event unless a POSIX timer or a mutex names
// it or one of its timers is still armed.
func (e *Engine) released(t *Task) {
	// Timers keep their queue numbers while unarmed; a dead task's go
	// back (an armed one's when it fires), whether or not it is recycled.
	e.q.forget(&t.doneT)
	e.q.forget(&t.wakeT)
	e.q.forget(&t.startT)
	if t.pins != 0 || t.doneT.armed() || t.wakeT.armed() || t.startT.armed() {
		return
	}
	if e.syncs != nil {
		for i := range e.syncs.mutexes {
			if e.syncs.mutexes[i].owner == t {
				return
			}
		}
	}
	e.dying = append(e.dying, t)
}

// recycle moves the tasks released during the event just resolved to
// the free list.
func (e *Engine) recycle() {
	for i, t := range e.dying {
		e.freeTasks.Put(t)
		e.dying[i] = nil
	}
	e.dying = e.dying[:0]
}
