package sim

import "schedlab/sched"

// A measured run's threads set themselves up before their first event:
// the host runner's run_thread (host/worker.c) names the thread, opens its
// task clock and applies its start properties, then reads the clock that
// anchors its timers. The engine charges that setup as CPU time before the
// thread's first step (Params.CostThreadStart), so the thread's timer grid
// starts after it as the runner's does.
//
// How long it takes depends on the thread's stack. glibc keeps the stacks
// of exited threads of a process and gives one to the next thread it
// creates; a new stack's pages fault in as the thread first touches them,
// a cached one's are mapped already. So a thread created while its thread
// group has a cached stack takes CostThreadStartCached instead: the later
// SIGEV_THREAD callbacks, and every thread a loop forks after the one
// before has exited.

// stackCacheStacks is how many default-size (8 MiB) stacks glibc's cache
// holds: its 40 MiB limit (stack_cache_maxsize).
const stackCacheStacks = 5

// threadStartOn reports whether the engine charges threads a setup: a
// model of a kernel does not, and then keeps no stack cache either.
func (e *Engine) threadStartOn() bool {
	return e.p.CostThreadStart > 0 || e.p.CostThreadStartCached > 0
}

// takeStack gives a new thread (not a process, whose first thread is its
// own) one of its thread group's cached stacks, if there is one.
func (e *Engine) takeStack(t *Task) {
	if !e.threadStartOn() || t.st.TGID == t.st.PID || e.stacks[int32(t.st.TGID)] == 0 {
		return
	}
	e.stacks[int32(t.st.TGID)]--
	t.cachedStack = true
}

// returnStack puts an exiting thread's stack in its group's cache (a
// process's first thread's stack goes with the process).
func (e *Engine) returnStack(t *Task) {
	if !e.threadStartOn() || t.kernel || t.def.Runner || t.st.TGID == t.st.PID {
		return
	}
	if e.stacks == nil {
		e.stacks = map[int32]int{}
	}
	if e.stacks[int32(t.st.TGID)] < stackCacheStacks {
		e.stacks[int32(t.st.TGID)]++
	}
}

// threadStart is the setup t runs before its first event: 0 for the
// guest's kernel threads and the runner's own tasks, which do not run
// run_thread.
func (e *Engine) threadStart(t *Task) int64 {
	if t.kernel || t.def.Runner {
		return 0
	}
	if t.cachedStack {
		return e.p.CostThreadStartCached
	}
	return e.p.CostThreadStart
}

// A process fork holds its process's locks: glibc's fork() takes the
// malloc arenas' and stdio's locks before the clone and gives them back
// only when the parent returns from it, which, if the new process runs
// first (its exec, milliseconds), is when the parent next gets the CPU.
// A thread of the same process that starts meanwhile waits at its
// setup's first allocation (run_thread's calloc) until then. On the
// guest, make's forks of sh hold the SIGEV_THREAD helper's start so
// (docs/vm.md). Kept only with the thread start on: a model of a kernel
// has no C library.

// forkLock is a thread group's fork-time locks: the thread holding them
// and the threads waiting.
type forkLock struct {
	holder  *Task
	waiters []*Task
}

// lockForFork notes that t starts a fork of a process.
func (e *Engine) lockForFork(t *Task) {
	if !e.threadStartOn() {
		return
	}
	if e.forkLocks == nil {
		e.forkLocks = map[int32]*forkLock{}
	}
	l := e.forkLocks[int32(t.st.TGID)]
	if l == nil {
		l = &forkLock{}
		e.forkLocks[int32(t.st.TGID)] = l
	}
	l.holder = t
	t.forkLocked, t.settled = true, false
}

// unlockAfterFork is t's return from its fork: the locks go back and
// the threads that waited for them are woken.
func (e *Engine) unlockAfterFork(t *Task) {
	t.forkLocked = false
	l := e.forkLocks[int32(t.st.TGID)]
	if l == nil || l.holder != t {
		return
	}
	l.holder = nil
	for i, w := range l.waiters {
		l.waiters[i] = nil
		w.pins--
		if w.state == stSleeping && w.lockWait {
			w.lockWait = false
			e.wakeUp(w, sched.WakeTask, t)
		}
	}
	l.waiters = l.waiters[:0]
}

// waitForForkLock blocks t if another thread of its group holds the
// fork-time locks, and reports whether it did.
func (e *Engine) waitForForkLock(t *Task) bool {
	l := e.forkLocks[int32(t.st.TGID)]
	if l == nil || l.holder == nil || l.holder == t {
		return false
	}
	// Pinned while it waits, so that an exit meanwhile (a kill) does not
	// recycle it under the list.
	l.waiters = append(l.waiters, t)
	t.pins++
	t.lockWait = true
	e.block(t)
	return true
}
