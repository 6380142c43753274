// Package rt is the kernel's real-time scheduling class (kernel/sched_rt.c,
// kernel/sched/rt.c): SCHED_FIFO and SCHED_RR tasks at 99 priorities above
// every fair task, RR's time slice, RT bandwidth throttling and, on many
// CPUs, the push and pull that keep the highest-priority real-time tasks
// running somewhere.
//
// The rules, as the kernel has them from 2.6.25 to 6.x:
//
//   - a run queue holds one FIFO list per priority; the first task of the
//     highest non-empty list runs. A task joins the tail of its list when
//     it wakes or moves; the running task stays in its list, so one that
//     a higher priority preempted runs again first;
//   - a waking task preempts the running one if its priority is higher
//     (check_preempt_curr_rt), never on a tie;
//   - SCHED_RR counts its slice in ticks (sched_rr_timeslice_ms, 100 ms):
//     at its end the slice is refilled and, if its list holds another
//     task, the task goes to the tail and the CPU reschedules. A FIFO
//     task runs until it blocks, yields or a higher priority wakes;
//   - throttling: each CPU's real-time time is summed (rt_time) at every
//     tick and switch; when it exceeds sched_rt_runtime_us the CPU's
//     real-time queue is throttled (nothing real-time is picked, so the
//     fair class runs), and the period timer, firing on the grid
//     k·sched_rt_period_us, subtracts one runtime from rt_time and
//     unthrottles once rt_time is below it. The runtime is per CPU; with
//     RT_RUNTIME_SHARE (rt_runtime_share: always in 2.6.x, the default
//     from 3.2 to 5.9, off since 5.10) a CPU over its runtime first
//     borrows 1/n of every other CPU's unused runtime, up to the whole
//     period, and keeps it (do_balance_runtime);
//   - push: a CPU with more than one real-time task pushes its
//     highest-priority waiting one to the CPU of lowest priority (cpupri:
//     the priority of its highest queued real-time task, else "normal"
//     for a CPU with fair tasks or none), if that is lower than the
//     task's; ties go to the lowest-numbered CPU;
//   - pull: a CPU whose priority drops at a switch away from a real-time
//     task takes the highest waiting real-time task of another CPU that
//     is higher than anything it has left, unless that task is about to
//     preempt where it is (one task per pull here; the kernel may pull
//     several and push the surplus back);
//   - a woken real-time task whose CPU runs a real-time task of equal or
//     higher priority goes to the lowest-priority CPU instead, if that is
//     lower than the task (select_task_rq_rt as of 3.x).
//
// Group scheduling of real-time tasks (CONFIG_RT_GROUP_SCHED), priority
// inheritance and the watchdog (RLIMIT_RTTIME) are not modelled.
package rt

import (
	"fmt"
	"math/bits"
	"strings"

	"schedlab/sched"
	"schedlab/uapi"
)

// Tunable names, as /proc/sys/kernel spells them.
const (
	Runtime = "sched_rt_runtime_us"
	Period  = "sched_rt_period_us"
	RRSlice = "sched_rr_timeslice_ms"
	// Share is the RT_RUNTIME_SHARE sched feature as a tunable (the
	// class has no feature list of its own).
	Share = "rt_runtime_share"
)

func init() {
	sched.RegisterClass(&sched.ClassDef{
		Name:     "rt",
		Rank:     10,
		Policies: []uapi.Policy{uapi.SchedFIFO, uapi.SchedRR},
		Tunables: []sched.Tunable{
			{Name: Runtime, Default: 950000, Unit: "µs", Min: -1, Max: 1 << 31,
				Doc: "real-time class: CPU time real-time tasks may use per period on each CPU before they are throttled; -1: never throttle. With the period it also bounds the SCHED_DEADLINE bandwidth admitted (NCPU × runtime/period)"},
			{Name: Period, Default: 1000000, Unit: "µs", Min: 1, Max: 1 << 31,
				Doc: "real-time class: the throttling period; the runtime is replenished every period"},
			{Name: RRSlice, Default: 100, Unit: "ms", Min: 1, Max: 1000000,
				Doc: "real-time class: SCHED_RR time slice, counted in ticks (rounded up to one)"},
			{Name: Share, Default: -1, Choices: []int64{-1, 0, 1},
				Doc: "real-time class: RT_RUNTIME_SHARE, a CPU over its RT runtime borrowing other CPUs' unused runtime (1) or not (0); -1: as the --policy's kernel did (on for cfs-2.6.*, off for the 6.x profiles, off by default since 5.10)"},
		},
		New: func(cfg *sched.Config) (sched.Class, error) { return New(cfg) },
	})
}

// RT is the real-time class for one run.
type RT struct {
	cpus []*cpuRQ
	// runtime and period are the bandwidth in ns; throttle is false
	// when the runtime is unlimited (-1 or the whole period).
	runtime, period int64
	throttle        bool
	share           bool // RT_RUNTIME_SHARE
	rrTicks         int
	// timerArmed: the period timer runs; wantTimer: an enqueue asked
	// for it, and the next Push arms it.
	timerArmed, wantTimer bool
	overloaded            int // run queues with more than one task
}

// cpuRQ is one CPU's real-time run queue (struct rt_rq).
type cpuRQ struct {
	cpu    int
	queue  [sched.MaxRTPrio][]*sched.Task
	bitmap [2]uint64 // bit p: queue[p] is not empty
	nr     int
	// curr is the task PickNext chose, until its PutPrev; execStart is
	// when its time was last accounted.
	curr      *sched.Task
	execStart int64
	rtTime    int64
	throttled bool
	// runtime is this CPU's share of the bandwidth: the sysctl's, more
	// or less what RT_RUNTIME_SHARE has lent.
	runtime int64
}

// entity is a task's sched_rt_entity.
type entity struct {
	prio  int // 99 − rt_priority: lower runs first
	slice int // SCHED_RR: ticks left of the slice
	rq    *cpuRQ
}

func taskRT(t *sched.Task) *entity { return t.Sched.(*entity) }

// New builds the class from a resolved configuration (its tunables are
// every profile's).
func New(cfg *sched.Config) (*RT, error) {
	c := &RT{
		runtime: cfg.Tunable(Runtime) * 1000,
		period:  cfg.Tunable(Period) * 1000,
	}
	if c.runtime > c.period {
		return nil, fmt.Errorf("%s %d is more than %s %d (the kernel refuses it; -1 turns throttling off)",
			Runtime, c.runtime/1000, Period, c.period/1000)
	}
	c.throttle = c.runtime >= 0 && c.runtime < c.period
	switch cfg.Tunable(Share) {
	case 1:
		c.share = true
	case -1:
		c.share = strings.HasPrefix(cfg.Profile.Name, "cfs-2.6.")
	}
	tick := cfg.TickNS
	if tick == 0 {
		tick = 1e9 / 250 // the engine's default HZ, for a config made for no engine
	}
	// msecs_to_jiffies rounds up.
	slice := cfg.Tunable(RRSlice) * 1e6
	c.rrTicks = int(max(1, (slice+tick-1)/tick))
	for i := 0; i < max(cfg.NCPU, 1); i++ {
		c.cpus = append(c.cpus, &cpuRQ{cpu: i, runtime: c.runtime})
	}
	return c, nil
}

// RRTicks is the SCHED_RR slice in ticks.
func (c *RT) RRTicks() int { return c.rrTicks }

// Throttled reports whether cpu's real-time queue is throttled, and its
// rt_time (for tests and reports).
func (c *RT) Throttled(cpu int) (bool, int64) { return c.cpus[cpu].throttled, c.cpus[cpu].rtTime }

func (r *cpuRQ) highest() int {
	if r.bitmap[0] != 0 {
		return bits.TrailingZeros64(r.bitmap[0])
	}
	if r.bitmap[1] != 0 {
		return 64 + bits.TrailingZeros64(r.bitmap[1])
	}
	return sched.MaxRTPrio
}

func (r *cpuRQ) add(t *sched.Task) {
	p := taskRT(t).prio
	r.queue[p] = append(r.queue[p], t)
	r.bitmap[p/64] |= 1 << (p % 64)
}

func (r *cpuRQ) remove(t *sched.Task) {
	p := taskRT(t).prio
	q := r.queue[p]
	for i, x := range q {
		if x == t {
			copy(q[i:], q[i+1:])
			q[len(q)-1] = nil
			r.queue[p] = q[:len(q)-1]
			break
		}
	}
	if len(r.queue[p]) == 0 {
		r.bitmap[p/64] &^= 1 << (p % 64)
	}
}

// updateCurr is update_curr_rt: the running task's time since it was last
// accounted counts against the CPU's runtime, and a CPU over it is
// throttled and, with resched, rescheduled. Inside schedule() (PutPrev, a
// sleeper's Dequeue) the CPU is switching already, and the kernel's
// resched_task then marks the task leaving, to no effect.
func (c *RT) updateCurr(r *cpuRQ, rq sched.RQ, resched bool) {
	if r.curr == nil {
		return
	}
	now := rq.Now()
	delta := now - r.execStart
	if delta <= 0 {
		return
	}
	r.execStart = now
	if !c.throttle {
		return
	}
	r.rtTime += delta
	if c.exceeded(r) && resched {
		rq.Resched()
	}
}

// ChargeRT implements sched.RTCharger: a deadline task's time on cpu
// counts towards its real-time runtime, while the period timer runs or
// the runtime is not yet used up (sched_rt_bandwidth_account). The
// throttling it may cause is noticed at the next real-time accounting.
func (c *RT) ChargeRT(cpu int, ns int64) {
	if !c.throttle {
		return
	}
	if r := c.cpus[cpu]; c.timerArmed || r.rtTime < r.runtime {
		r.rtTime += ns
	}
}

// exceeded is sched_rt_runtime_exceeded.
func (c *RT) exceeded(r *cpuRQ) bool {
	if r.throttled {
		return true
	}
	if r.runtime >= c.period {
		return false
	}
	c.borrow(r)
	if r.rtTime > r.runtime {
		r.throttled = true
		return true
	}
	return false
}

// borrow is balance_runtime under RT_RUNTIME_SHARE: a CPU over its
// runtime takes 1/n of each other CPU's unused runtime, in CPU order,
// until it has the whole period.
func (c *RT) borrow(r *cpuRQ) {
	if !c.share || r.rtTime <= r.runtime {
		return
	}
	n := int64(len(c.cpus))
	for _, o := range c.cpus {
		if o == r {
			continue
		}
		if diff := o.runtime - o.rtTime; diff > 0 {
			diff = min(diff/n, c.period-r.runtime)
			o.runtime -= diff
			r.runtime += diff
			if r.runtime == c.period {
				return
			}
		}
	}
}

// TaskNew implements sched.Class.
func (c *RT) TaskNew(t, parent *sched.Task) {
	t.Sched = &entity{prio: t.Prio(), slice: c.rrTicks}
}

// Fork implements sched.Class: nothing to place.
func (c *RT) Fork(rq, dst sched.RQ, parent, child *sched.Task) {}

// Enqueue implements sched.Class: the tail of its priority's list.
func (c *RT) Enqueue(rq sched.RQ, t *sched.Task, flags int) {
	r := c.cpus[rq.CPU()]
	r.add(t)
	taskRT(t).rq = r
	if r.nr++; r.nr == 2 {
		c.overloaded++
	}
	if c.throttle && !c.timerArmed {
		c.wantTimer = true
	}
}

// Dequeue implements sched.Class.
func (c *RT) Dequeue(rq sched.RQ, t *sched.Task, flags int) {
	r := c.cpus[rq.CPU()]
	if r.curr == t {
		c.updateCurr(r, rq, false)
	}
	r.remove(t)
	taskRT(t).rq = nil
	if r.nr--; r.nr == 1 {
		c.overloaded--
	}
}

// CheckPreempt implements sched.Class: a strictly higher priority
// preempts.
func (c *RT) CheckPreempt(rq sched.RQ, t *sched.Task, wakeFlags int) {
	if curr := rq.Curr(); curr != nil && taskRT(t).prio < taskRT(curr).prio {
		rq.Resched()
	}
}

// PutPrev implements sched.Class.
func (c *RT) PutPrev(rq sched.RQ, prev *sched.Task) {
	r := c.cpus[rq.CPU()]
	c.updateCurr(r, rq, false)
	r.curr = nil
}

// PickNext implements sched.Class: nothing while throttled.
func (c *RT) PickNext(rq sched.RQ) *sched.Task {
	r := c.cpus[rq.CPU()]
	if r.nr == 0 || r.throttled {
		return nil
	}
	t := r.queue[r.highest()][0]
	r.curr, r.execStart = t, rq.Now()
	return t
}

// Tick implements sched.Class (task_tick_rt).
func (c *RT) Tick(rq sched.RQ, curr *sched.Task, queued bool) {
	r := c.cpus[rq.CPU()]
	c.updateCurr(r, rq, true)
	if curr.Policy != uapi.SchedRR {
		return
	}
	se := taskRT(curr)
	if se.slice--; se.slice > 0 {
		return
	}
	se.slice = c.rrTicks
	if len(r.queue[se.prio]) > 1 {
		r.remove(curr)
		r.add(curr)
		rq.Resched()
	}
}

// Yield implements sched.Class: the tail of its list.
func (c *RT) Yield(rq sched.RQ, curr *sched.Task) {
	r := c.cpus[rq.CPU()]
	r.remove(curr)
	r.add(curr)
}

// SetNice implements sched.Class: a real-time task's nice value is kept
// but orders nothing.
func (c *RT) SetNice(rq sched.RQ, t *sched.Task, nice int) { t.Nice = nice }

// TaskDead implements sched.Class.
func (c *RT) TaskDead(rq sched.RQ, t *sched.Task) {}

// MigrateTask implements sched.Class: an entity off every queue carries
// nothing between CPUs.
func (c *RT) MigrateTask(src, dst sched.RQ, t *sched.Task, wakeup bool) {}

// cpuPrio is cpupri's view of a CPU: the priority of its highest queued
// real-time task, or MaxRTPrio ("normal": fair tasks or none); −1 while a
// deadline task runs there (CPUPRI_HIGHER).
func (c *RT) cpuPrio(core sched.Core, cpu int) int {
	if curr := core.RQ(cpu).Curr(); curr != nil && curr.Prio() < 0 {
		return -1
	}
	return c.cpus[cpu].highest()
}

// lowest is find_lowest_rq: the allowed CPU, other than exclude, of the
// lowest priority if that is lower than t's; prefer wins a tie, then the
// lowest number. −1 if none.
func (c *RT) lowest(core sched.Core, t *sched.Task, prefer, exclude int) int {
	best, level := -1, taskRT(t).prio
	if prefer >= 0 && prefer != exclude && core.Allowed(t, prefer) && c.cpuPrio(core, prefer) > level {
		best, level = prefer, c.cpuPrio(core, prefer)
	}
	for i := range c.cpus {
		if i == exclude || !core.Allowed(t, i) {
			continue
		}
		if l := c.cpuPrio(core, i); l > level {
			best, level = i, l
		}
	}
	return best
}

// SelectWakeCPU implements sched.Balancer (select_task_rq_rt).
func (c *RT) SelectWakeCPU(core sched.Core, t *sched.Task) int {
	prev := t.CPU
	curr := core.RQ(prev).Curr()
	ok := core.Allowed(t, prev)
	// rt_task(curr): a deadline task (prio −1) counts as one.
	if ok && (curr == nil || curr.Prio() >= sched.MaxRTPrio || curr.Prio() > t.Prio()) {
		return prev
	}
	if dst := c.lowest(core, t, prev, -1); dst >= 0 {
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

// waiting returns r's highest-priority queued task that is not running
// (curr) and may run on cpu (−1: on some CPU other than r's), or nil.
func (c *RT) waiting(core sched.Core, r *cpuRQ, curr *sched.Task, cpu int) *sched.Task {
	for b := 0; b < 2; b++ {
		for m := r.bitmap[b]; m != 0; m &= m - 1 {
			p := b*64 + bits.TrailingZeros64(m)
			for _, t := range r.queue[p] {
				if t == curr {
					continue
				}
				if cpu >= 0 {
					if core.Allowed(t, cpu) {
						return t
					}
					continue
				}
				for i := range c.cpus {
					if i != r.cpu && core.Allowed(t, i) {
						return t
					}
				}
			}
		}
	}
	return nil
}

// PreSchedule implements sched.Balancer: a CPU whose priority drops as a
// real-time task leaves it pulls (pull_rt_task).
func (c *RT) PreSchedule(core sched.Core, rq sched.RQ, prev *sched.Task) {
	if prev == nil || !prev.Policy.RealTime() || len(c.cpus) == 1 || c.overloaded == 0 {
		return
	}
	r := c.cpus[rq.CPU()]
	limit := r.highest()
	if limit <= taskRT(prev).prio {
		return
	}
	var best *sched.Task
	for _, src := range c.cpus {
		if src == r || src.nr < 2 {
			continue
		}
		srcCurr := core.RQ(src.cpu).Curr()
		p := c.waiting(core, src, srcCurr, r.cpu)
		if p == nil || taskRT(p).prio >= limit {
			continue
		}
		// About to preempt where it is: leave it.
		currPrio := sched.DefaultPrio + uapi.MaxNice + 1 // the idle task's
		if srcCurr != nil {
			currPrio = srcCurr.Prio()
		}
		if taskRT(p).prio < currPrio {
			continue
		}
		best, limit = p, taskRT(p).prio
	}
	if best != nil {
		core.Move(best, r.cpu, false)
	}
}

// Push implements sched.Balancer (push_rt_task): at most one task per
// call. It also arms the period timer an enqueue asked for.
func (c *RT) Push(core sched.Core) bool {
	if c.wantTimer {
		c.wantTimer = false
		if !c.timerArmed {
			c.timerArmed = true
			now := core.RQ(0).Now()
			core.ArmTimer((now/c.period + 1) * c.period)
		}
	}
	if c.overloaded == 0 || len(c.cpus) == 1 {
		return false
	}
	for _, r := range c.cpus {
		if r.nr < 2 || r.throttled {
			continue
		}
		curr := core.RQ(r.cpu).Curr()
		next := c.waiting(core, r, curr, -1)
		// A task that outranks what runs is about to run here.
		if next == nil || curr == nil || taskRT(next).prio < curr.Prio() {
			continue
		}
		if dst := c.lowest(core, next, -1, r.cpu); dst >= 0 {
			core.Move(next, dst, true)
			return true
		}
	}
	return false
}

// Timer implements sched.Balancer: the RT bandwidth period timer
// (do_sched_rt_period_timer), on time, so one period's runtime is
// returned.
func (c *RT) Timer(core sched.Core) {
	idle := true
	for _, r := range c.cpus {
		if r.rtTime > 0 {
			if r.throttled {
				c.borrow(r)
			}
			r.rtTime -= min(r.rtTime, r.runtime)
			if r.throttled && r.rtTime < r.runtime {
				r.throttled = false
				if r.nr > 0 {
					core.RQ(r.cpu).Resched()
				}
			}
			if r.rtTime > 0 || r.nr > 0 {
				idle = false
			}
		} else if r.nr > 0 {
			idle = false
		}
	}
	c.timerArmed = !idle
	if !idle {
		now := core.RQ(0).Now()
		core.ArmTimer((now/c.period + 1) * c.period)
	}
}

// CheckInvariants implements sched.Checker: every runnable real-time task
// is in its priority's list on its CPU exactly once, the counts and the
// bitmap agree, and a throttled CPU runs no real-time task.
func (c *RT) CheckInvariants(now int64, runnable [][]*sched.Task) error {
	over := 0
	for cpu, r := range c.cpus {
		seen := map[*sched.Task]bool{}
		n := 0
		for p := range r.queue {
			if (len(r.queue[p]) > 0) != (r.bitmap[p/64]&(1<<(p%64)) != 0) {
				return fmt.Errorf("rt cpu %d: priority %d has %d tasks but its bitmap bit is %v", cpu, p, len(r.queue[p]), !(len(r.queue[p]) > 0))
			}
			for _, t := range r.queue[p] {
				if seen[t] {
					return fmt.Errorf("rt cpu %d: task %s (pid %d) queued twice", cpu, t.Comm, t.PID)
				}
				seen[t] = true
				if se := taskRT(t); se.prio != p || se.rq != r {
					return fmt.Errorf("rt cpu %d: task %s (pid %d) in list %d, prio %d", cpu, t.Comm, t.PID, p, se.prio)
				}
				n++
			}
		}
		if n != r.nr || n != len(runnable[cpu]) {
			return fmt.Errorf("rt cpu %d: %d tasks queued, nr %d, engine has %d runnable", cpu, n, r.nr, len(runnable[cpu]))
		}
		for _, t := range runnable[cpu] {
			if !seen[t] {
				return fmt.Errorf("rt cpu %d: runnable task %s (pid %d) is not queued", cpu, t.Comm, t.PID)
			}
		}
		if r.nr > 1 {
			over++
		}
		if r.rtTime < 0 || (!c.throttle && (r.rtTime != 0 || r.throttled)) {
			return fmt.Errorf("rt cpu %d: rt_time %d ns, throttled %v, with throttling %v", cpu, r.rtTime, r.throttled, c.throttle)
		}
	}
	var lent int64
	for _, r := range c.cpus {
		lent += r.runtime - c.runtime
	}
	if lent != 0 || (!c.share && c.cpus[0].runtime != c.runtime) {
		return fmt.Errorf("rt: the CPUs' runtimes do not add up to %d × %d ns (RT_RUNTIME_SHARE %v)", len(c.cpus), c.runtime, c.share)
	}
	if over != c.overloaded {
		return fmt.Errorf("rt: %d run queues hold several tasks, overload counts %d", over, c.overloaded)
	}
	return nil
}
