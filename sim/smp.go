package sim

import (
	"schedlab/sched"
)

// This file is the engine's many-CPU policy: where a woken or new task is
// queued, and how load is balanced. In the kernel these live partly in the
// fair class (select_task_rq_fair, load_balance); here they are simplified,
// class-independent rules, documented in docs/smp.md, so that every policy
// runs on the same machine model:
//
//   - wakeup: the previous CPU; wake-affine towards the waker's CPU when it
//     is less loaded; then the first idle CPU sharing a cache with that
//     target (select_idle_sibling);
//   - fork: the least loaded allowed CPU, the parent's on a tie;
//   - idle balance: a CPU about to go idle pulls a waiting task;
//   - NOHZ kick: a busy CPU's tick, seeing a task wait while some CPU is
//     idle, has the idle CPU pull it;
//   - periodic balance: every balance interval × busy_factor (32) a busy
//     CPU pulls load from the busiest CPU, half the difference, by
//     group-scaled load.
//
// Migrations go through the class (MigrateTask), so vruntime, lag and
// deadlines move as the class defines, and are traced as
// sched_migrate_task.

// smp says whether the machine has more than one CPU. One CPU has
// nothing to balance, so it keeps neither the list of each CPU's queued
// tasks nor the CPU masks that the balancer and the wakeup and fork
// placement read: the hot paths test this (it inlines) before they keep
// them.
func (e *Engine) smp() bool { return len(e.cpus) > 1 }

// rqAdd queues t on c through the class and keeps the engine's counts.
// The list of c's queued tasks and the CPU masks are the balancer's
// (coldestWaiting, pull): one CPU keeps neither (smp).
func (e *Engine) rqAdd(c *CPU, t *Task, flags int) {
	e.class.Enqueue(c, &t.st, flags)
	t.onRQ = true
	c.nr++
	if e.smp() {
		t.rqIdx = len(c.queued)
		c.queued = append(c.queued, t)
		e.countChanged(c, c.nr-1)
	}
	e.runnable++
	e.loadAdd(c, t, 1)
}

// rqDel dequeues t from c through the class.
func (e *Engine) rqDel(c *CPU, t *Task, flags int) {
	e.class.Dequeue(c, &t.st, flags)
	t.onRQ = false
	c.nr--
	if e.smp() {
		last := c.queued[len(c.queued)-1]
		c.queued[t.rqIdx] = last
		last.rqIdx = t.rqIdx
		c.queued = c.queued[:len(c.queued)-1]
		t.rqIdx = -1
		e.countChanged(c, c.nr+1)
	}
	e.runnable--
	e.loadAdd(c, t, -1)
}

// cpuChanged files c in the CPU masks after its running task changed
// (with its count of queued tasks, the only two things they depend on;
// a count's change goes through countChanged). One CPU keeps no masks:
// the test inlines.
func (e *Engine) cpuChanged(c *CPU) {
	if e.smp() {
		e.fileCPU(c)
	}
}

// countChanged files c after its count of queued tasks changed from was
// (−1: c is not filed yet). nrCPUs files a CPU at its count + 1, so that
// an empty CPU is filed too; the old level follows from was, and the CPU
// need not keep it.
func (e *Engine) countChanged(c *CPU, was int) {
	e.nrCPUs.Move(c.id, was+1, c.nr+1)
	e.fileCPU(c)
}

// fileCPU files c in the idle mask and in waitingCPUs, at its count when
// a task waits there, else at 0.
func (e *Engine) fileCPU(c *CPU) {
	e.idleCPUs.Set(c.id, c.curr == nil && c.nr == 0)
	k := int32(0)
	if c.nr-e.running(c) >= 1 {
		k = int32(c.nr)
	}
	if k != c.waitLevel {
		e.waitingCPUs.Move(c.id, int(c.waitLevel), int(k))
		c.waitLevel = k
	}
}

// groupLoad is a task group's queued weight per CPU and in all.
type groupLoad struct {
	shares int64
	perCPU []int64
	total  int64
}

// loadAdd adds (sign 1) or removes (−1) t's weight from c's load. A task
// in a group counts through its group: the group's shares are split
// between CPUs in proportion to the group's queued weight there, as the
// kernel's h_load does (nested groups are flattened to the task's own).
func (e *Engine) loadAdd(c *CPU, t *Task, sign int64) {
	if sign > 0 {
		t.loadW = int64(sched.NiceWeight(t.st.Nice, t.st.Policy).Weight)
		if e.ownBalance(t) {
			t.loadW = 0
		}
	}
	w := sign * t.loadW
	g := t.st.Group
	if g == nil {
		c.rootLoad += w
		return
	}
	gl := e.groupLoads[g]
	if gl == nil {
		gl = &groupLoad{shares: int64(g.Shares), perCPU: make([]int64, len(e.cpus))}
		e.groupLoads[g] = gl
		e.groupOrder = append(e.groupOrder, gl)
	}
	gl.perCPU[c.id] += w
	gl.total += w
}

// load is c's queued load, groups scaled to their shares.
func (e *Engine) load(c *CPU) int64 {
	l := c.rootLoad
	for _, gl := range e.groupOrder {
		if gl.total > 0 && gl.perCPU[c.id] > 0 {
			l += gl.shares * gl.perCPU[c.id] / gl.total
		}
	}
	return l
}

// setAllowed sets t's CPU affinity (empty: every CPU).
func (t *Task) setAllowed(cpus []int) { t.allowed, t.pinned = cpus, len(cpus) != 0 }

func (t *Task) allowedOn(cpu int) bool {
	if !t.pinned {
		return true
	}
	for _, a := range t.allowed {
		if a == cpu {
			return true
		}
	}
	return false
}

// sharesCache reports whether two CPUs are in one last-level-cache domain.
func (e *Engine) sharesCache(a, b int) bool {
	if e.p.LLCSize <= 0 {
		return true
	}
	return a/int(e.p.LLCSize) == b/int(e.p.LLCSize)
}

// selectForkCPU places a new task: the allowed CPU with the fewest queued
// tasks (SD_BALANCE_FORK's idlest CPU), the parent's CPU on a tie, then the
// lowest number.
func (e *Engine) selectForkCPU(t *Task, parent *Task) int {
	// An allowed CPU among those with the fewest tasks of all is the
	// answer: the parent's if it is one, else the first.
	if e.smp() {
		_, fewest := e.nrCPUs.Bottom()
		if parent != nil && fewest.Has(parent.st.CPU) && t.allowedOn(parent.st.CPU) {
			return parent.st.CPU
		}
		for i := fewest.Next(0, len(e.cpus)); i >= 0; i = fewest.Next(i+1, len(e.cpus)) {
			if t.allowedOn(i) {
				return i
			}
		}
	}
	return e.scanForkCPU(t, parent)
}

// scanForkCPU is selectForkCPU by a scan of every CPU: the answer when the
// fewest-task CPUs allow none of t's, and the reference the masks are
// tested against.
func (e *Engine) scanForkCPU(t *Task, parent *Task) int {
	best := -1
	for i, c := range e.cpus {
		if !t.allowedOn(i) {
			continue
		}
		if best < 0 || c.nr < e.cpus[best].nr || (c.nr == e.cpus[best].nr && parent != nil && i == parent.st.CPU) {
			best = i
		}
	}
	return best
}

// selectWakeCPU chooses the CPU a sleeping task wakes on; on one CPU
// the test inlines.
func (e *Engine) selectWakeCPU(t *Task, waker *Task) int {
	if !e.smp() {
		return t.st.CPU
	}
	return e.selectWakeCPUSMP(t, waker)
}

func (e *Engine) selectWakeCPUSMP(t *Task, waker *Task) int {
	prev := t.st.CPU
	if e.ownBalance(t) {
		return e.stack.SelectWakeCPU(core{e}, &t.st)
	}
	target := prev
	if !t.allowedOn(target) {
		target = e.selectForkCPU(t, nil)
	}
	// Wake-affine: a task woken by another task moves towards the waker
	// when the waker's CPU is the less loaded of the two.
	if waker != nil {
		wc := waker.st.CPU
		if wc != target && t.allowedOn(wc) && e.load(e.cpus[wc]) < e.load(e.cpus[target]) {
			target = wc
		}
	}
	return e.idleSibling(t, target)
}

// idleSibling is select_idle_sibling: target if it is idle, else the first
// idle allowed CPU that shares target's cache, else target.
func (e *Engine) idleSibling(t *Task, target int) int {
	if e.idleCPUs.Has(target) {
		return target
	}
	// The CPUs after target in its cache domain, then those before it:
	// the order of a scan from target+1 round the machine.
	lo, hi := 0, len(e.cpus)
	if l := int(e.p.LLCSize); l > 0 {
		lo = target / l * l
		hi = min(lo+l, hi)
	}
	for _, r := range [2][2]int{{target + 1, hi}, {lo, target}} {
		for i := e.idleCPUs.Next(r[0], r[1]); i >= 0; i = e.idleCPUs.Next(i+1, r[1]) {
			if t.allowedOn(i) {
				return i
			}
		}
	}
	return target
}

// migrate moves the waiting task t from its CPU to dst (detach_task and
// attach_task): dequeue, let the class carry its state over, enqueue, and,
// with check, let dst's running task be preempted if the class says so
// (not from inside dst's own schedule(), which picks right after).
func (e *Engine) migrate(t *Task, dst *CPU, check bool) {
	src := e.cpus[t.st.CPU]
	src.sync()
	dst.sync()
	e.rqDel(src, t, 0)
	e.class.MigrateTask(src, dst, &t.st, false)
	e.emitMigrate(dst, t, src.id)
	t.st.CPU = dst.id
	e.rqAdd(dst, t, 0)
	if check {
		e.checkPreempt(dst, t, 0)
	}
}

func (e *Engine) emitMigrate(c *CPU, t *Task, from int) {
	if e.untraced() {
		return
	}
	e.fast.Migrate(e.now, int32(c.id), int32(t.st.PID), t.st.Comm, int32(t.st.Prio()), int32(from), int32(c.id))
}

// coldestWaiting returns the waiting (queued, not running) task of src
// allowed on dst that ran least recently — the cheapest to move, as the
// kernel prefers cache-cold tasks — or nil.
func (e *Engine) coldestWaiting(src *CPU, dst int, maxLoad int64) *Task {
	var best *Task
	for _, t := range src.queued {
		if t == src.curr || !t.allowedOn(dst) || (maxLoad > 0 && t.loadW > maxLoad) || e.ownBalance(t) {
			continue
		}
		if best == nil || t.lastRan < best.lastRan || (t.lastRan == best.lastRan && t.st.PID < best.st.PID) {
			best = t
		}
	}
	return best
}

// pull moves one waiting task to dst from the CPU with the most waiting
// tasks (idle balance). It reports whether it moved one.
func (e *Engine) pull(dst *CPU, check bool) bool {
	if !e.smp() {
		return false
	}
	i := e.waitingCPUs.Top(dst.id)
	if i < 0 {
		return false
	}
	t := e.coldestWaiting(e.cpus[i], dst.id, 0)
	if t == nil {
		return false
	}
	e.migrate(t, dst, check)
	return true
}

func (e *Engine) running(c *CPU) int {
	if c.curr != nil {
		return 1
	}
	return 0
}

// balanceTick runs on a busy CPU's tick: the NOHZ kick, and the periodic
// balance when its interval has passed. One CPU has neither: the test
// inlines.
func (e *Engine) balanceTick(c *CPU) {
	if e.smp() {
		e.balanceTickSMP(c)
	}
}

func (e *Engine) balanceTickSMP(c *CPU) {
	if c.nr-e.running(c) > 0 && e.busy < len(e.cpus) {
		n := len(e.cpus)
		for i := e.idleCPUs.Next(0, n); i >= 0; i = e.idleCPUs.Next(i+1, n) {
			if t := e.coldestWaiting(c, i, 0); t != nil {
				e.migrate(t, e.cpus[i], true)
				break
			}
		}
	}
	if e.now < c.nextBalance {
		return
	}
	// A busy CPU balances busyFactor times less often than an idle one
	// would (sd->busy_factor): moving tasks off a busy CPU is rarely
	// urgent, and balancing at every tick makes CPUs that tick in
	// lockstep bounce one task back and forth.
	c.nextBalance = e.now + e.busyBalanceInterval()
	var busiest *CPU
	var bl int64
	for _, o := range e.cpus {
		if o == c || o.nr-e.running(o) < 1 {
			continue
		}
		if l := e.balanceLoad(o); busiest == nil || l > bl {
			busiest, bl = o, l
		}
	}
	if busiest == nil {
		return
	}
	// Move at most half the difference, so that the two CPUs meet rather
	// than swap roles; a task heavier than twice the imbalance stays.
	imbalance := (bl - e.balanceLoad(c)) / 2
	for moved := 0; imbalance > 0 && moved < maxMigrateBatch; moved++ {
		t := e.coldestWaiting(busiest, c.id, 2*imbalance)
		if t == nil {
			break
		}
		before := e.balanceLoad(busiest)
		e.migrate(t, c, true)
		imbalance -= before - e.balanceLoad(busiest)
	}
}

// maxMigrateBatch caps the tasks one balance moves (sysctl_sched_nr_migrate).
const maxMigrateBatch = 32

// busyFactor is the kernel's sd->busy_factor for a busy CPU's balancing.
const busyFactor = 32

// busyBalanceInterval is a busy CPU's time to its next balance: the
// interval × busy_factor, stretched by up to half at random. A simulated
// clock has none of the timing noise of real CPUs, and without it a
// balance that always falls on the same phase of two tasks' tick-by-tick
// alternation would always move the same one (a phase-locking artifact).
// The draws come from their own stream, so they never change the
// workload's random durations.
func (e *Engine) busyBalanceInterval() int64 {
	base := e.balanceInterval() * busyFactor
	return base + e.jitter.Int64N(base/2+1)
}

// balanceInterval is the periodic balance period: the kernel's top domain
// balances every sd_weight ms (one ms per CPU in it); at least one tick.
func (e *Engine) balanceInterval() int64 {
	if e.p.BalanceInterval > 0 {
		return e.p.BalanceInterval
	}
	return max(e.p.TickNS(), int64(len(e.cpus))*1e6)
}
