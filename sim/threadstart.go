package sim

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
