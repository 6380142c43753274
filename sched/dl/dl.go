// Package dl is the kernel's deadline scheduling class (kernel/sched/
// deadline.c, 3.14 on; read in 6.1): SCHED_DEADLINE tasks, above the
// real-time class, each a reservation of runtime every period with a
// relative deadline, scheduled earliest deadline first (EDF) with the
// constant bandwidth server (CBS) enforcing the reservation.
//
// The rules, as 6.1 has them:
//
//   - admission control: sched_setattr refuses a task whose bandwidth
//     (runtime/period) would take the sum of all deadline tasks' over
//     the CPUs' capacity, NCPU × sched_rt_runtime_us/sched_rt_period_us
//     (__dl_overflow); -1 turns the check off. The bandwidth is freed
//     when the task exits;
//   - a new task gets deadline now + dl-deadline and a full runtime;
//   - a waking task keeps its deadline and remaining runtime unless the
//     deadline has passed or the remaining runtime would exceed its
//     bandwidth up to the deadline (dl_entity_overflow), in which case it
//     starts a new period: deadline now + dl-deadline, full runtime. A
//     constrained task (deadline < period) instead has its runtime cut to
//     its density times the time left (update_dl_revised_wakeup); one
//     woken after its deadline but before its next period waits for that
//     period (dl_check_constrained_dl);
//   - the earliest absolute deadline runs; a waking task preempts the
//     running one if its deadline is strictly earlier;
//   - the running task's runtime is charged at every tick and switch; at
//     zero or below it is throttled until its next period (deadline −
//     dl-deadline + dl-period), when its runtime is replenished (periods
//     added until it is positive, the overrun carried) and its deadline
//     moved on by as many periods. sched_yield gives up the rest of the
//     runtime the same way. HRTICK_DL is off, as in 6.1's default, so
//     enforcement is at the tick;
//   - on many CPUs (global EDF by push and pull, cpudl): a woken task
//     whose CPU runs an earlier deadline goes to a CPU with no deadline
//     task, else to the one whose earliest deadline is latest, if later
//     than its own; a CPU with several deadline tasks pushes its earliest
//     waiting one there; a CPU that switches away from a deadline task
//     that is no longer queued pulls the earliest waiting one another CPU
//     has, if earlier than its own.
//
// A deadline task's run time also counts towards the real-time class's
// runtime on its CPU (sched.RTCharger), as the kernel charges it to the
// rt_rq.
//
// Not modelled: GRUB reclaiming and the inactive timer (bandwidth is
// released at exit, not at the 0-lag time), deadline servers,
// priority inheritance, and forks of deadline tasks (which the kernel
// refuses without SCHED_FLAG_RESET_ON_FORK).
package dl

import (
	"fmt"
	"slices"

	"schedlab/sched"
	"schedlab/uapi"
)

// The sysctls that bound the deadline bandwidth (the real-time class's,
// which registers them).
const (
	rtRuntime = "sched_rt_runtime_us"
	rtPeriod  = "sched_rt_period_us"
)

// The kernel's limits of a reservation (__checkparam_dl,
// sysctl_sched_dl_period_min/_max): runtime at least 2^DL_SCALE ns, a
// period from 100 µs to 2^22 µs.
const (
	minRuntime = 1 << 10
	minPeriod  = 100e3
	maxPeriod  = (1 << 22) * 1e3
)

// bwShift is BW_SHIFT: bandwidths are runtime/period in 2^-20 units.
const bwShift = 20

func init() {
	sched.RegisterClass(&sched.ClassDef{
		Name:     "deadline",
		Rank:     20,
		Policies: []uapi.Policy{uapi.SchedDeadline},
		New:      func(cfg *sched.Config) (sched.Class, error) { return New(cfg) },
	})
}

// DL is the deadline class for one run.
type DL struct {
	cpus []*cpuRQ
	// limit is the bandwidth all deadline tasks may hold (-1: no
	// admission control), total what they hold.
	limit, total int64
	// timers are the entities whose replenishment timer is armed;
	// armed is the time the class timer was last asked for, and dirty
	// says it must be asked again (the next Push does).
	timers []*entity
	dirty  bool
	// rt is the real-time class its run time is charged to, if any.
	rt sched.RTCharger
}

// SetRTCharger implements sched.RTCharged.
func (c *DL) SetRTCharger(rt sched.RTCharger) { c.rt = rt }

type cpuRQ struct {
	cpu int
	// tree is the EDF queue: every queued, unthrottled deadline task,
	// the running one included, by absolute deadline (ties in arrival
	// order, as the kernel's rbtree).
	tree      []*entity
	nr        int // queued deadline tasks, throttled ones included
	curr      *entity
	execStart int64
}

type entity struct {
	t                               *sched.Task
	dlRuntime, dlDeadline, dlPeriod int64
	bw                              int64
	runtime, deadline               int64
	fresh, throttled, yielded       bool
	queued                          bool   // between the engine's Enqueue and Dequeue
	rq                              *cpuRQ // the tree it is in, or nil
	timer                           int64  // replenishment time, 0 if none
}

func taskDL(t *sched.Task) *entity { return t.Sched.(*entity) }

// New builds the class.
func New(cfg *sched.Config) (*DL, error) {
	c := &DL{limit: -1}
	rt, okR := cfg.Tunables[rtRuntime]
	per, okP := cfg.Tunables[rtPeriod]
	if !okR || !okP {
		rt, per = 950000, 1000000
	}
	if rt >= 0 {
		c.limit = (rt << bwShift) / per * int64(max(cfg.NCPU, 1))
	}
	for i := 0; i < max(cfg.NCPU, 1); i++ {
		c.cpus = append(c.cpus, &cpuRQ{cpu: i})
	}
	return c, nil
}

// Admit implements sched.Admitter: sched_setattr's parameter check and
// admission control.
func (c *DL) Admit(t *sched.Task) error {
	d := t.DL
	switch {
	case d.Runtime < minRuntime:
		return fmt.Errorf("SCHED_DEADLINE runtime %d ns is below the kernel's minimum of %d ns", d.Runtime, minRuntime)
	case d.Deadline < d.Runtime || d.Period < d.Deadline:
		return fmt.Errorf("SCHED_DEADLINE needs runtime <= deadline <= period, got %d, %d, %d ns", d.Runtime, d.Deadline, d.Period)
	case d.Period < minPeriod || d.Period > maxPeriod:
		return fmt.Errorf("SCHED_DEADLINE period %d µs is outside the kernel's [100, %d] µs", d.Period/1000, int64(maxPeriod/1000))
	}
	bw := (d.Runtime << bwShift) / d.Period
	if c.limit >= 0 && c.total+bw > c.limit {
		return fmt.Errorf("admission control refuses SCHED_DEADLINE runtime %d µs per %d µs (%.1f%% of a CPU): the deadline tasks would hold %.1f%% of %d CPU(s), over the %.1f%% that sched_rt_runtime_us/sched_rt_period_us allows (sched_setattr: EBUSY)",
			d.Runtime/1000, d.Period/1000, pct(bw), pct(c.total+bw), len(c.cpus), pct(c.limit))
	}
	c.total += bw
	return nil
}

func pct(bw int64) float64 { return float64(bw) * 100 / (1 << bwShift) }

// TaskNew implements sched.Class.
func (c *DL) TaskNew(t, parent *sched.Task) {
	t.Sched = &entity{t: t, dlRuntime: t.DL.Runtime, dlDeadline: t.DL.Deadline, dlPeriod: t.DL.Period,
		bw: (t.DL.Runtime << bwShift) / t.DL.Period, fresh: true}
}

// Fork implements sched.Class.
func (c *DL) Fork(rq, dst sched.RQ, parent, child *sched.Task) {}

func (r *cpuRQ) insert(se *entity) {
	i := len(r.tree)
	for j, o := range r.tree {
		if se.deadline < o.deadline {
			i = j
			break
		}
	}
	r.tree = slices.Insert(r.tree, i, se)
	se.rq = r
}

func (r *cpuRQ) remove(se *entity) {
	if i := slices.Index(r.tree, se); i >= 0 {
		r.tree = slices.Delete(r.tree, i, i+1)
	}
	se.rq = nil
}

// earliest is the CPU's earliest deadline and whether it has one
// (cpudl).
func (r *cpuRQ) earliest() (int64, bool) {
	if len(r.tree) == 0 {
		return 0, false
	}
	return r.tree[0].deadline, true
}

func (se *entity) newPeriod(now int64) {
	se.deadline = now + se.dlDeadline
	se.runtime = se.dlRuntime
}

// overflow is dl_entity_overflow: would the remaining runtime, run from
// t, exceed the bandwidth up to the deadline? In the kernel's 2^-10
// scaled products, which cannot wrap for its parameter limits.
func (se *entity) overflow(t int64) bool {
	left := (se.dlDeadline >> 10) * (se.runtime >> 10)
	right := ((se.deadline - t) >> 10) * (se.dlRuntime >> 10)
	return right < left
}

// replenish is replenish_dl_entity.
func (se *entity) replenish(now int64) {
	if se.yielded && se.runtime > 0 {
		se.runtime = 0
	}
	for se.runtime <= 0 {
		se.deadline += se.dlPeriod
		se.runtime += se.dlRuntime
	}
	if se.deadline < now {
		se.newPeriod(now)
	}
	se.yielded, se.throttled = false, false
}

// nextPeriod is dl_next_period: the start of the period after the
// current deadline's.
func (se *entity) nextPeriod() int64 { return se.deadline - se.dlDeadline + se.dlPeriod }

// startTimer is start_dl_timer: throttled se is replenished at its next
// period; false if that has already begun.
func (c *DL) startTimer(se *entity, now int64) bool {
	at := se.nextPeriod()
	if at <= now {
		return false
	}
	if se.timer == 0 {
		c.timers = append(c.timers, se)
	}
	se.timer = at
	c.dirty = true
	return true
}

func (c *DL) stopTimer(se *entity) {
	if se.timer != 0 {
		se.timer = 0
		c.timers = slices.DeleteFunc(c.timers, func(o *entity) bool { return o == se })
		c.dirty = true
	}
}

// Enqueue implements sched.Class (enqueue_task_dl).
func (c *DL) Enqueue(rq sched.RQ, t *sched.Task, flags int) {
	r, se, now := c.cpus[rq.CPU()], taskDL(t), rq.Now()
	se.queued = true
	r.nr++
	switch {
	case se.fresh:
		se.fresh = false
		se.newPeriod(now)
	case se.throttled:
		return // the replenishment timer enqueues it
	case flags&sched.EnqueueWakeup != 0:
		implicit := se.dlDeadline == se.dlPeriod
		if !implicit && se.deadline < now && now < se.nextPeriod() {
			// dl_check_constrained_dl: woken after its deadline, before
			// its next period.
			se.throttled = true
			c.startTimer(se, now)
			return
		}
		if se.deadline < now || se.overflow(now) {
			if !implicit && se.deadline >= now {
				se.runtime = se.dlRuntime * (se.deadline - now) / se.dlDeadline
			} else {
				se.newPeriod(now)
			}
		}
	}
	r.insert(se)
}

// Dequeue implements sched.Class.
func (c *DL) Dequeue(rq sched.RQ, t *sched.Task, flags int) {
	r, se := c.cpus[rq.CPU()], taskDL(t)
	if r.curr == se {
		c.updateCurr(r, rq, false)
	}
	if se.rq != nil {
		r.remove(se)
	}
	se.queued = false
	r.nr--
}

// updateCurr is update_curr_dl: the running task's runtime is charged,
// and at zero (or after a yield) it is throttled until its next period,
// or replenished at once if that period has begun. resched is false
// inside schedule(), where the CPU is switching anyway.
func (c *DL) updateCurr(r *cpuRQ, rq sched.RQ, resched bool) {
	se := r.curr
	if se == nil {
		return
	}
	now := rq.Now()
	if d := now - r.execStart; d > 0 {
		se.runtime -= d
		r.execStart = now
		if c.rt != nil {
			c.rt.ChargeRT(r.cpu, d)
		}
	}
	if se.runtime > 0 && !se.yielded {
		return
	}
	r.remove(se)
	se.throttled = true
	if !c.startTimer(se, now) {
		se.replenish(now)
		r.insert(se)
	}
	if resched && (len(r.tree) == 0 || r.tree[0] != se) {
		rq.Resched()
	}
}

// CheckPreempt implements sched.Class: a strictly earlier deadline
// preempts.
func (c *DL) CheckPreempt(rq sched.RQ, t *sched.Task, wakeFlags int) {
	if curr := rq.Curr(); curr != nil && taskDL(t).deadline < taskDL(curr).deadline {
		rq.Resched()
	}
}

// PutPrev implements sched.Class.
func (c *DL) PutPrev(rq sched.RQ, prev *sched.Task) {
	r := c.cpus[rq.CPU()]
	c.updateCurr(r, rq, false)
	r.curr = nil
}

// PickNext implements sched.Class: the earliest deadline.
func (c *DL) PickNext(rq sched.RQ) *sched.Task {
	r := c.cpus[rq.CPU()]
	if len(r.tree) == 0 {
		return nil
	}
	r.curr, r.execStart = r.tree[0], rq.Now()
	return r.curr.t
}

// Tick implements sched.Class (task_tick_dl without HRTICK_DL).
func (c *DL) Tick(rq sched.RQ, curr *sched.Task, queued bool) {
	c.updateCurr(c.cpus[rq.CPU()], rq, true)
}

// Yield implements sched.Class (yield_task_dl): the rest of this
// period's runtime is given up.
func (c *DL) Yield(rq sched.RQ, curr *sched.Task) {
	taskDL(curr).yielded = true
	c.updateCurr(c.cpus[rq.CPU()], rq, false)
}

// SetNice implements sched.Class: nice orders no deadline task.
func (c *DL) SetNice(rq sched.RQ, t *sched.Task, nice int) { t.Nice = nice }

// TaskDead implements sched.Class: the task's bandwidth is released.
func (c *DL) TaskDead(rq sched.RQ, t *sched.Task) {
	se := taskDL(t)
	c.stopTimer(se)
	c.total -= se.bw
}

// MigrateTask implements sched.Class: deadlines are absolute times, and
// an entity off every queue carries nothing else.
func (c *DL) MigrateTask(src, dst sched.RQ, t *sched.Task, wakeup bool) {}

// later is find_later_rq: an allowed CPU other than exclude with no
// deadline task (prefer first, then the lowest number), else the one
// whose earliest deadline is latest, if later than t's; −1 if none.
func (c *DL) later(core sched.Core, se *entity, prefer, exclude int) int {
	best, latest := -1, se.deadline
	try := func(i int) bool {
		if i == exclude || !core.Allowed(se.t, i) {
			return false
		}
		d, busy := c.cpus[i].earliest()
		if !busy {
			best = i
			return true
		}
		if d > latest {
			best, latest = i, d
		}
		return false
	}
	if prefer >= 0 && try(prefer) {
		return best
	}
	for i := range c.cpus {
		if try(i) {
			return best
		}
	}
	return best
}

// SelectWakeCPU implements sched.Balancer (select_task_rq_dl).
func (c *DL) SelectWakeCPU(core sched.Core, t *sched.Task) int {
	se, prev := taskDL(t), t.CPU
	curr := core.RQ(prev).Curr()
	ok := core.Allowed(t, prev)
	if ok && (curr == nil || curr.Policy != uapi.SchedDeadline || se.deadline < taskDL(curr).deadline) {
		return prev
	}
	if dst := c.later(core, se, prev, -1); dst >= 0 {
		return dst
	}
	if ok {
		return prev
	}
	for i := range c.cpus {
		if core.Allowed(t, i) {
			return i
		}
	}
	return prev
}

// waiting returns r's earliest queued task other than curr that may run
// on cpu (−1: on some other CPU than r's), or nil.
func (c *DL) waiting(core sched.Core, r *cpuRQ, curr *sched.Task, cpu int) *entity {
	for _, se := range r.tree {
		if se.t == curr {
			continue
		}
		if cpu >= 0 {
			if core.Allowed(se.t, cpu) {
				return se
			}
			continue
		}
		for i := range c.cpus {
			if i != r.cpu && core.Allowed(se.t, i) {
				return se
			}
		}
	}
	return nil
}

// PreSchedule implements sched.Balancer (balance_dl → pull_dl_task): a
// CPU switching away from a deadline task that has left its queue pulls
// the earliest waiting deadline task of another CPU, if earlier than any
// it has.
func (c *DL) PreSchedule(core sched.Core, rq sched.RQ, prev *sched.Task) {
	if prev == nil || prev.Policy != uapi.SchedDeadline || len(c.cpus) == 1 || taskDL(prev).rq != nil {
		return
	}
	r := c.cpus[rq.CPU()]
	dmin, has := r.earliest()
	var best *entity
	for _, src := range c.cpus {
		if src == r || len(src.tree) < 2 {
			continue
		}
		srcCurr := core.RQ(src.cpu).Curr()
		p := c.waiting(core, src, srcCurr, r.cpu)
		if p == nil || (has && p.deadline >= dmin) {
			continue
		}
		// About to preempt where it is: leave it.
		if srcCurr == nil || srcCurr.Policy != uapi.SchedDeadline || p.deadline < taskDL(srcCurr).deadline {
			continue
		}
		best, dmin, has = p, p.deadline, true
	}
	if best != nil {
		core.Move(best.t, r.cpu, false)
	}
}

// Push implements sched.Balancer (push_dl_task): at most one task a
// call. It first asks for the class timer the replenishments need.
func (c *DL) Push(core sched.Core) bool {
	c.arm(core)
	if len(c.cpus) == 1 {
		return false
	}
	for _, r := range c.cpus {
		if len(r.tree) < 2 {
			continue
		}
		curr := core.RQ(r.cpu).Curr()
		next := c.waiting(core, r, curr, -1)
		if next == nil || curr == nil || curr.Policy != uapi.SchedDeadline || next.deadline < taskDL(curr).deadline {
			continue
		}
		if dst := c.later(core, next, -1, r.cpu); dst >= 0 {
			core.Move(next.t, dst, true)
			return true
		}
	}
	return false
}

// Timer implements sched.Balancer (dl_task_timer): each throttled task
// whose next period has come is replenished and, if it is still queued,
// enqueued again, preempting a later deadline or a lower class.
func (c *DL) Timer(core sched.Core) {
	now := core.RQ(0).Now()
	var due []*entity
	for _, se := range c.timers {
		if se.timer <= now {
			due = append(due, se)
		}
	}
	slices.SortFunc(due, func(a, b *entity) int {
		if a.timer != b.timer {
			return int(a.timer - b.timer)
		}
		return a.t.PID - b.t.PID
	})
	for _, se := range due {
		c.stopTimer(se)
		if !se.throttled {
			continue
		}
		se.replenish(now)
		if !se.queued {
			continue
		}
		rq := core.RQ(se.t.CPU)
		c.cpus[se.t.CPU].insert(se)
		if curr := rq.Curr(); curr == nil || curr.Policy != uapi.SchedDeadline || se.deadline < taskDL(curr).deadline {
			rq.Resched()
		}
	}
	c.dirty = true
	c.arm(core)
}

// arm asks for the class timer at the earliest replenishment, once the
// set of them has changed.
func (c *DL) arm(core sched.Core) {
	if !c.dirty {
		return
	}
	c.dirty = false
	if len(c.timers) > 0 {
		first := c.timers[0].timer
		for _, se := range c.timers {
			first = min(first, se.timer)
		}
		core.ArmTimer(first)
	}
}

// CheckInvariants implements sched.Checker.
func (c *DL) CheckInvariants(now int64, runnable [][]*sched.Task) error {
	var bw int64
	seen := map[*entity]bool{}
	for cpu, r := range c.cpus {
		for i, se := range r.tree {
			if i > 0 && se.deadline < r.tree[i-1].deadline {
				return fmt.Errorf("dl cpu %d: queue out of deadline order at %d", cpu, i)
			}
			if se.rq != r || !se.queued || se.throttled || se.t.CPU != cpu {
				return fmt.Errorf("dl cpu %d: task %s (pid %d) in the queue: rq ok %v, queued %v, throttled %v, cpu %d",
					cpu, se.t.Comm, se.t.PID, se.rq == r, se.queued, se.throttled, se.t.CPU)
			}
			if se.runtime <= 0 {
				return fmt.Errorf("dl cpu %d: task %s (pid %d) queued with runtime %d", cpu, se.t.Comm, se.t.PID, se.runtime)
			}
		}
		// A running task throttled at a tick runs on until its
		// reschedule takes effect (cost_resched_ns).
		if se := r.curr; se != nil && se.rq != r && !se.throttled {
			return fmt.Errorf("dl cpu %d: running task %s (pid %d) is neither queued nor throttled", cpu, se.t.Comm, se.t.PID)
		}
		if r.nr != len(runnable[cpu]) {
			return fmt.Errorf("dl cpu %d: %d tasks counted, engine has %d runnable", cpu, r.nr, len(runnable[cpu]))
		}
		for _, t := range runnable[cpu] {
			se := taskDL(t)
			if !se.queued || (se.rq == nil) != se.throttled {
				return fmt.Errorf("dl cpu %d: runnable task %s (pid %d): queued %v, in a queue %v, throttled %v", cpu, t.Comm, t.PID, se.queued, se.rq != nil, se.throttled)
			}
			if se.throttled && se.timer == 0 {
				return fmt.Errorf("dl cpu %d: task %s (pid %d) throttled with no replenishment timer", cpu, t.Comm, t.PID)
			}
			seen[se] = true
			bw += se.bw
		}
	}
	for _, se := range c.timers {
		if se.timer == 0 {
			return fmt.Errorf("dl: task %s (pid %d) listed with no timer", se.t.Comm, se.t.PID)
		}
	}
	if bw > c.total || (c.limit >= 0 && c.total > c.limit) {
		return fmt.Errorf("dl: runnable tasks hold bandwidth %d, admitted %d, limit %d", bw, c.total, c.limit)
	}
	return nil
}
