package cfs

import (
	"fmt"
	"math/bits"

	"schedlab/sched"
	"schedlab/uapi"
)

// CFS as Linux 2.6.24 had it, with its default CONFIG_FAIR_USER_SCHED: one
// task group per uid (kernel/sched_fair.c and kernel/sched.c of v2.6.24;
// the comments below name the kernel functions). The 2.6.35 types (entity,
// cfsRQ, timeline) carry the state, but every rule is 2.6.24's: vruntimes
// are never normalized, slices are plain divisions of a period that
// stretches as latency×n/nr_latency, the tick ends a slice only on
// wall-clock time, picks take the leftmost at every level, and the sleeper
// credit is a full latency for tasks only.

// Feature and tunable names 2.6.24 adds to profile.go's.
const (
	NewFairSleepers    = "NEW_FAIR_SLEEPERS"
	TreeAvg            = "TREE_AVG"
	ApproxAvg          = "APPROX_AVG"
	FairUserSched      = "FAIR_USER_SCHED"
	GroupSleeperCredit = "GROUP_SLEEPER_CREDIT"

	BatchWakeupGran = "sched_batch_wakeup_granularity_ns"
	RootUserShares  = "root_user_shares"
)

// maxBootGran caps the CPU-scaled latency and min_granularity at boot
// (sched_init_granularity).
const maxBootGran = 200000000

func features2624() []sched.Feature {
	return []sched.Feature{
		{Name: NewFairSleepers, Default: true, Doc: "a waking task is placed a full sched_latency left of min_vruntime (tasks only; see GROUP_SLEEPER_CREDIT)"},
		{Name: WakeupPreempt, Default: true, Doc: "wakeups may preempt; with it off the tick check runs even with one entity queued"},
		{Name: StartDebit, Default: true, Doc: "a new task starts one vslice_add right of min_vruntime, so forks cannot jump the queue"},
		{Name: TreeAvg, Default: false, Doc: "placement starts from the mean of min_vruntime and the rightmost vruntime"},
		{Name: ApproxAvg, Default: false, Doc: "placement starts from min_vruntime + vslice/2 when the queue is not empty"},
		{Name: FairUserSched, Default: true, Doc: "configuration choice, not a sched_features bit: CONFIG_FAIR_USER_SCHED, one task group per uid (uid 0: root_user_shares); off: the workload's task groups, flat (FAIR_CGROUP_SCHED)"},
		{Name: GroupSleeperCredit, Default: false, Doc: "configuration choice, not a 2.6.24 sched_features bit: the 2008 fix 296825cbe14d (2.6.25), group entities get the sleeper credit too"},
	}
}

func tunables2624() []sched.Tunable {
	return []sched.Tunable{
		{Name: Latency, Default: 20000000, Unit: "ns", Min: 100000, Max: 1000000000, Scaled: true,
			Doc: "targeted period in which every runnable task runs once (scaled by 1+log2(ncpu), capped at 200 ms)"},
		{Name: MinGranularity, Default: 4000000, Unit: "ns", Min: 100000, Max: 1000000000, Scaled: true,
			Doc: "beyond sched_nr_latency tasks the period is sched_latency x n / sched_nr_latency (scaled, capped at 200 ms)"},
		{Name: NrLatency, Default: 5, Min: 1, Max: 1 << 31, Derived: true,
			Doc: "5 at boot; ceil(sched_latency_ns / sched_min_granularity_ns) once either is set"},
		{Name: WakeupGran, Default: 10000000, Unit: "ns", Min: 0, Max: 1000000000, Scaled: true,
			Doc: "a wakee preempts only if it is this much (in the running entity's virtual time) left of it"},
		{Name: BatchWakeupGran, Default: 10000000, Unit: "ns", Min: 0, Max: 1000000000, Scaled: true,
			Doc: "no effect: 2.6.24 has and scales this sysctl, but no CFS decision reads it"},
		{Name: ChildRunsFirst, Default: 1, Min: 0, Max: 1, Doc: "after fork, swap vruntimes so the child runs before the parent"},
		{Name: CompatYield, Default: 0, Min: 0, Max: 1, Doc: "sched_yield moves the task to the right end of the tree"},
		{Name: MigrationCost, Default: 500000, Unit: "ns", Min: 0, Max: 1 << 40, Doc: "SMP only: a task that ran this recently is cache-hot"},
		{Name: ArchBits, Default: 64, Choices: []int64{32, 64},
			Doc: "word size of the modelled kernel: 32 uses WMULT_CONST 2^32-1 and 32-bit unsigned longs"},
		{Name: RootUserShares, Default: 2 * sched.NiceZeroLoad, Min: 2, Max: 1 << 18,
			Doc: "FAIR_USER_SCHED: weight of uid 0's group (other uids have 1024)"},
	}
}

func init() {
	sched.Register(&sched.Profile{
		Name:     "cfs-2.6.24",
		Doc:      "CFS of Linux 2.6.24 (latency 20 ms, min_granularity 4 ms, wakeup granularity 10 ms, per-uid groups)",
		Features: features2624(),
		Tunables: tunables2624(),
		New:      New24,
		Resolve:  resolve24,
		// 2.6.24 fork.c: dup_task_struct copies thread_info whole.
		ReschedBefore2637: true,
	})
}

// resolve24 scales the time tunables the user left at their defaults by
// 1+ilog2(ncpu), with no cap on the CPU count, as sched_init_granularity
// does at boot, and caps latency and min_granularity at 200 ms. The boot
// path leaves sched_nr_latency at 5; only writing latency or
// min_granularity recomputes it.
func resolve24(cfg *sched.Config, userSet map[string]bool) error {
	if userSet[NrLatency] {
		return fmt.Errorf("tunable %s is derived from %s and %s; set those instead", NrLatency, Latency, MinGranularity)
	}
	f := int64(bits.Len(uint(max(cfg.NCPU, 1))))
	for _, t := range cfg.Profile.Tunables {
		if !t.Scaled || userSet[t.Name] {
			continue
		}
		v := t.Default * f
		if (t.Name == Latency || t.Name == MinGranularity) && v > maxBootGran {
			v = maxBootGran
		}
		cfg.Tunables[t.Name] = v
	}
	if userSet[Latency] || userSet[MinGranularity] {
		lat, gran := cfg.Tunables[Latency], cfg.Tunables[MinGranularity]
		cfg.Tunables[NrLatency] = (lat + gran - 1) / gran
	}
	return nil
}

// CFS24 is the 2.6.24 fair scheduling class for one run.
type CFS24 struct {
	arch sched.Arch
	cpus []cpuRQ // newCPURQs

	users     map[int]*groupState          // FAIR_USER_SCHED: uid → group
	cgroups   map[*sched.Group]*groupState // otherwise: task group → group
	groupList []*groupState                // creation order, for checks

	latency, minGran, wakeupGran uint64
	nrLatency                    uint64
	rootShares                   uint64
	childRunsFirst, compatYield  bool

	sleepers, wakeupPreempt, startDebit bool
	treeAvg, approxAvg                  bool
	userSched, groupCredit              bool
}

// New24 builds the 2.6.24 class for a resolved configuration.
func New24(cfg *sched.Config) (sched.Class, error) {
	if cfg.NCPU < 1 {
		return nil, fmt.Errorf("cfs: need at least one CPU")
	}
	c := &CFS24{
		arch:           sched.Arch(cfg.Tunable(ArchBits)),
		users:          map[int]*groupState{},
		cgroups:        map[*sched.Group]*groupState{},
		latency:        uint64(cfg.Tunable(Latency)),
		minGran:        uint64(cfg.Tunable(MinGranularity)),
		wakeupGran:     uint64(cfg.Tunable(WakeupGran)),
		nrLatency:      uint64(cfg.Tunable(NrLatency)),
		rootShares:     uint64(cfg.Tunable(RootUserShares)),
		childRunsFirst: cfg.Tunable(ChildRunsFirst) != 0,
		compatYield:    cfg.Tunable(CompatYield) != 0,
		sleepers:       cfg.Feature(NewFairSleepers),
		wakeupPreempt:  cfg.Feature(WakeupPreempt),
		startDebit:     cfg.Feature(StartDebit),
		treeAvg:        cfg.Feature(TreeAvg),
		approxAvg:      cfg.Feature(ApproxAvg),
		userSched:      cfg.Feature(FairUserSched),
		groupCredit:    cfg.Feature(GroupSleeperCredit),
	}
	c.cpus = newCPURQs(cfg.NCPU)
	return c, nil
}

// rq returns env's fair run queue with its clock refreshed.
func (c *CFS24) rq(env sched.RQ) *cpuRQ {
	r := &c.cpus[env.CPU()]
	r.clock = uint64(env.Now())
	return r
}

// newGroup makes a group's per-CPU queues and entities. 2.6.24's groups are
// flat: every group entity sits on a CPU's root queue with the group's full
// shares, and its inverse is set once, as 2^32/shares (set_se_shares).
func (c *CFS24) newGroup(path string, shares uint64) *groupState {
	gs := &groupState{path: path}
	for i := range c.cpus {
		r := &c.cpus[i]
		q := &cfsRQ{cpu: r, minV: initialMinVruntime, lastMinV: initialMinVruntime}
		se := &entity{load: sched.LoadWeight{Weight: shares, Inv: c.arch.Ulong((1 << 32) / shares)}, q: &r.root, my: q, idx: -1}
		gs.se = append(gs.se, se)
		gs.q = append(gs.q, q)
	}
	c.groupList = append(c.groupList, gs)
	return gs
}

// queueOf returns the queue t's entity sits on and the group entity above it
// (nil at the root): its user's group under FAIR_USER_SCHED, which ignores
// t.Group; otherwise its task group, or the root queue for the root group.
func (c *CFS24) queueOf(t *sched.Task, cpu int) (*cfsRQ, *entity) {
	var gs *groupState
	switch {
	case c.userSched:
		if gs = c.users[t.UID]; gs == nil {
			shares := uint64(sched.NiceZeroLoad)
			if t.UID == 0 {
				shares = c.rootShares
			}
			gs = c.newGroup(fmt.Sprintf("uid%d", t.UID), shares)
			c.users[t.UID] = gs
		}
	case t.Group != nil:
		if gs = c.cgroups[t.Group]; gs == nil {
			gs = c.newGroup(t.Group.Path, t.Group.Shares)
			c.cgroups[t.Group] = gs
		}
	default:
		return &c.cpus[cpu].root, nil
	}
	return gs.q[cpu], gs.se[cpu]
}

// TaskNew implements sched.Class.
func (c *CFS24) TaskNew(t, parent *sched.Task) {
	se := &entity{load: sched.NiceWeight(t.Nice, t.Policy), task: t, idx: -1}
	se.q, se.parent = c.queueOf(t, t.CPU)
	t.Sched = se
}

// period is __sched_period: beyond nr_latency entities the latency
// target stretches in proportion, so the average slice stays at
// min_granularity.
func (c *CFS24) period(n uint64) uint64 {
	if n > c.nrLatency {
		return c.latency * n / c.nrLatency
	}
	return c.latency
}

// slice is se's wall-clock share of its own queue's period (sched_slice).
// Unlike 2.6.35 it ignores the levels above, so a group's tasks each get a
// full share of the group's period at their level.
func (c *CFS24) slice(q *cfsRQ, se *entity) uint64 {
	return c.period(uint64(q.nr)) * se.load.Weight / q.load.Weight
}

// vslice is the period in the virtual time of a queue of weight w with n
// entities (__sched_vslice): how far the queue's clock advances in one period.
func (c *CFS24) vslice(w, n uint64) uint64 {
	return c.period(n) * sched.NiceZeroLoad / w
}

// calcDeltaFair converts wall time into lw's virtual time. An inverse not yet
// known is computed 2.6.24's way, dividing by the weight itself
// (calc_delta_mine).
func (c *CFS24) calcDeltaFair(delta uint64, lw *sched.LoadWeight) uint64 {
	if lw.Inv == 0 {
		wc := uint64(1 << 32)
		if c.arch == sched.Arch32 {
			wc--
		}
		lw.Inv = (wc-lw.Weight/2)/lw.Weight + 1
	}
	return c.arch.CalcDeltaFair(delta, lw)
}

// updateCurr charges q's running entity for the time since it was last
// charged and is the only place min_vruntime moves (update_curr): forward to
// the smaller of curr's and the leftmost's vruntime, never back, so
// placements relative to it cannot hand out the same credit twice.
func (c *CFS24) updateCurr(q *cfsRQ) {
	cur := q.curr
	if cur == nil {
		return
	}
	now := q.cpu.clock
	d := c.arch.Ulong(now - cur.execStart)
	cur.sumExec += d
	cur.vruntime += c.calcDeltaFair(d, &cur.load)
	v := cur.vruntime
	v = sched.MinVruntime(v, q.tree.leftmostVruntime(v))
	q.minV = sched.MaxVruntime(q.minV, v)
	cur.execStart = now
}

// placeEntity sets a new or waking entity's vruntime (place_entity).
func (c *CFS24) placeEntity(q *cfsRQ, se *entity, initial bool) {
	v := q.minV
	if c.treeAvg {
		// The mean is taken on the wrap-safe distance; it equals the
		// kernel's (v+last)>>1 whenever that sum does not overflow.
		if last := q.tree.rightmost(); last != nil {
			v += uint64(int64(last.vruntime-v) >> 1)
		}
	} else if c.approxAvg && q.nr > 0 {
		v += c.vslice(q.load.Weight, uint64(q.nr)) / 2
	}
	// The current period is promised to the queued entities; the new one
	// starts where their slices, shrunk by its weight, end.
	if initial && c.startDebit {
		v += c.vslice(q.load.Weight+se.load.Weight, uint64(q.nr)+1)
	}
	if !initial {
		// Sleeps up to a latency do not count, but in 2.6.24 only a
		// task is credited: a group whose tasks all slept rejoins at
		// min_vruntime, level with the group that kept running.
		if c.sleepers && (se.isTask() || c.groupCredit) {
			v -= c.latency
		}
		// Never gain time by being placed backwards.
		v = sched.MaxVruntime(se.vruntime, v)
	}
	se.vruntime = v
}

// Enqueue implements sched.Class (enqueue_task_fair). Vruntimes are
// absolute, so no flag shifts them; every group entity that joins its parent
// is placed as a waking sleeper, even above a new task.
func (c *CFS24) Enqueue(env sched.RQ, t *sched.Task, flags int) {
	c.rq(env)
	wakeup := flags&sched.EnqueueWakeup != 0
	for x := taskSE(t); x != nil && !x.onRQ; x = x.parent {
		q := x.q
		c.updateCurr(q)
		if wakeup {
			c.placeEntity(q, x, false)
		}
		if x != q.curr {
			q.tree.insert(x)
		}
		q.load.Weight += x.load.Weight
		q.nr++
		x.onRQ = true
		wakeup = true
	}
}

// Dequeue implements sched.Class (dequeue_task_fair): a group leaves its
// parent when its queue empties. min_vruntime is left where update_curr put
// it.
func (c *CFS24) Dequeue(env sched.RQ, t *sched.Task, flags int) {
	c.rq(env)
	for x := taskSE(t); x != nil; x = x.parent {
		q := x.q
		c.updateCurr(q)
		if x != q.curr {
			q.tree.remove(x)
		}
		q.load.Weight -= x.load.Weight
		q.nr--
		x.onRQ = false
		if q.load.Weight != 0 {
			break
		}
	}
}

// CheckPreempt implements sched.Class (check_preempt_wakeup).
func (c *CFS24) CheckPreempt(env sched.RQ, p *sched.Task, wakeFlags int) {
	c.rq(env)
	curr := env.Curr()
	if curr == nil {
		env.Resched()
		return
	}
	// Batch wakees leave preemption to the tick.
	if p.Policy == uapi.SchedBatch || !c.wakeupPreempt {
		return
	}
	se, pse := taskSE(curr), taskSE(p)
	if se == pse {
		return
	}
	// Compare where the two compete. No update_curr: the levels are as
	// fresh as the wakee's enqueue left them. 2.6.24 lifts both together
	// (its tasks all have one depth); lifting the deeper one first extends
	// that to root-group tasks beside grouped ones.
	se, pse = findMatchingSE(se, pse)
	// The granularity is in the running entity's virtual time: a heavy
	// curr is harder to preempt than 2.6.35's wakee-scaled rule allows.
	gran := c.wakeupGran
	if se.load.Weight != sched.NiceZeroLoad {
		gran = c.calcDeltaFair(gran, &se.load)
	}
	if pse.vruntime+gran < se.vruntime {
		env.Resched()
	}
}

// PickNext implements sched.Class (pick_next_task_fair): the leftmost at every
// level; each level's slice restarts, even when the same task is picked again.
func (c *CFS24) PickNext(env sched.RQ) *sched.Task {
	r := c.rq(env)
	q := &r.root
	if q.nr == 0 {
		return nil
	}
	var se *entity
	for ; q != nil; q = se.my {
		se = q.tree.leftmost()
		q.tree.remove(se)
		se.execStart = r.clock
		q.curr = se
		se.prevSum = se.sumExec
	}
	return se.task
}

// PutPrev implements sched.Class.
func (c *CFS24) PutPrev(env sched.RQ, prev *sched.Task) {
	c.rq(env)
	for x := taskSE(prev); x != nil; x = x.parent {
		q := x.q
		if x.onRQ {
			c.updateCurr(q)
			q.tree.insert(x)
		}
		q.curr = nil
	}
}

// Tick implements sched.Class (entity_tick, check_preempt_tick). A slice
// ends only when its wall-clock share is used up: no vruntime comparison, so
// a wakee left behind by the wakeup test waits for the next slice end at its
// level. 2.6.24 has no hrtick, so queued ticks do not occur.
func (c *CFS24) Tick(env sched.RQ, curr *sched.Task, queued bool) {
	c.rq(env)
	for x := taskSE(curr); x != nil; x = x.parent {
		q := x.q
		c.updateCurr(q)
		if q.nr > 1 || !c.wakeupPreempt {
			ideal := c.arch.Ulong(c.slice(q, x))
			if ran := c.arch.Ulong(x.sumExec - x.prevSum); ran > ideal {
				env.Resched()
			}
		}
	}
}

// Fork implements sched.Class as task_new_fair, which 2.6.24 runs on
// the child's run queue, dst: the child is placed on its own queue with no
// regard for its old vruntime, child_runs_first hands it the parent's
// earlier position when both share a CPU, and dst's running task (the
// parent, when they share it) is always rescheduled. The engine's
// Enqueue(dst, 0) and CheckPreempt(dst, WFFork) follow.
func (c *CFS24) Fork(env, dst sched.RQ, parent, child *sched.Task) {
	c.rq(dst)
	here := dst.CPU() == env.CPU()
	se := taskSE(child)
	q := se.q
	// The parent is curr of the child's queue when both share a group
	// and CPU; the workload's initial tasks have no simulated parent.
	var curr *entity
	if parent != nil {
		curr = q.curr
	}
	c.updateCurr(q)
	c.placeEntity(q, se, true)
	if c.childRunsFirst && here && curr != nil && curr.vruntime < se.vruntime {
		curr.vruntime, se.vruntime = se.vruntime, curr.vruntime
	}
	dst.Resched()
}

// Yield implements sched.Class (yield_task_fair).
func (c *CFS24) Yield(env sched.RQ, curr *sched.Task) {
	c.rq(env)
	yieldTask(c, curr, c.compatYield)
}

// SetNice implements sched.Class: requeue with the new weight. The vruntime
// stays absolute and unscaled.
func (c *CFS24) SetNice(env sched.RQ, t *sched.Task, nice int) {
	c.rq(env)
	setNice(c, env, t, nice)
}

// TaskDead implements sched.Class: nothing outlives the final dequeue.
func (c *CFS24) TaskDead(env sched.RQ, t *sched.Task) {}

// MigrateTask implements sched.Class. 2.6.24 keeps vruntimes absolute and
// shifts a moving task by the difference of the two queues' min_vruntime in
// set_task_cpu, whether it sleeps or was queued: it keeps its
// distance from min_vruntime, now dst's.
func (c *CFS24) MigrateTask(src, dst sched.RQ, t *sched.Task, wakeup bool) {
	se := taskSE(t)
	old := se.q
	se.q, se.parent = c.queueOf(t, dst.CPU())
	se.vruntime += se.q.minV - old.minV
}

// CheckInvariants implements sched.Checker.
func (c *CFS24) CheckInvariants(now int64, runnable [][]*sched.Task) error {
	return checkQueues(c.cpus, c.groupList, runnable)
}
