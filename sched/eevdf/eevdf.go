// Package eevdf is the fair class of Linux 6.6, 6.12 and 6.18: Earliest
// Eligible Virtual Deadline First (Stoica & Abdel-Wahab, 1995), as
// kernel/sched/fair.c has it since 6.6. The comments name the kernel
// function each rule comes from, the source to compare it with.
//
// # What EEVDF keeps true
//
// Every queue (one per CPU, and one per task group and CPU) has a virtual
// clock. An entity of weight w that runs Δ ns advances its vruntime v by
// Δ·1024/w, and the weighted mean of the queued vruntimes,
//
//	V = Σ w_i·v_i / Σ w_i,
//
// is the point an ideal processor-sharing machine would have reached. An
// entity's lag w_i·(V − v_i)/1024 is the service (ns) it is owed
// (positive) or has had in advance (negative), and by construction the
// lags sum to zero on every queue at every moment. EEVDF serves, among the eligible entities
// (lag ≥ 0, i.e. v_i ≤ V), the one whose virtual deadline — v plus its
// request (the slice) in virtual time — comes first. So an entity that got
// ahead stops being served until the others catch up, and among those owed
// service the one asking for the least, soonest, goes first: latency is a
// matter of the request size, not of the weight.
//
// Lag is also what survives leaving the queue: a task that sleeps keeps its
// (clamped) lag and is placed at V − lag when it returns, the lag inflated
// by (W+w)/W so that the lag it has after joining is the lag it had. With
// DELAY_DEQUEUE (6.12+) a task that goes to sleep owing service stays
// queued, "delayed", until it has paid it back, so sleeping cannot erase a
// debt. New tasks join at zero lag. For entities that join and leave at
// zero lag the EEVDF paper bounds every lag by the largest request (plus
// the tick, since without HRTICK a request ends only when update_curr
// notices it). The Checker verifies after every event that the lags sum to
// zero and that each stays within that bound plus the lag that joins and
// leaves at non-zero lag have imposed on it (check.go).
//
// # Arithmetic
//
// V is computed as the kernel does: sums Σ w_i·(v_i − v0) and Σ w_i over the
// tree relative to an origin v0 (min_vruntime up to 6.18.2, zero_vruntime
// following V in 6.18.35), curr added on the fly, floor division. The floor
// does not depend on v0, so V is the exact floor of the weighted mean in
// every version; eligibility is tested cross-multiplied, without division.
// calc_delta_fair uses the 6.x fixed point (__calc_delta). The 6.x fixed
// point is the same on 32- and 64-bit kernels for every weight below 2^32
// (64-bit only stores weights ×1024, and all EEVDF sums use them scaled
// down), so unlike the CFS profiles these have no arch tunable.
//
// # Reconstructions and decisions
//
// R1 (tunable group_shares_split, SMP only): a group entity's weight on a
// CPU is tg.shares × (group queue weight here) / (group queue weight on all
// CPUs), clamped to [2, tg.shares], from instantaneous queue weights (the
// kernel uses PELT averages, which lag behind), refreshed at enqueue,
// dequeue and tick of that CPU. On one CPU it is tg.shares, as in the
// kernel. An emptied group keeps its weight.
//
// R2 (feature HRTICK): the high-resolution tick is armed for the wall time
// at which the running task's vruntime reaches its deadline (at least
// 10 µs) and reschedules when it fires. The kernel arms "slice − time since
// pick", which agrees for a fresh request and, when it does not, can ask
// for a reschedule of the task it just picked; with simulated time standing
// still that would never end.
//
// Decisions where the kernel's source was simplified, or leaves a choice
// to the simulator:
//   - 6.6's tree was ordered by vruntime; one deadline-ordered tree serves
//     all versions. Equal deadlines among waiting entities go to the one
//     queued first in every version (6.6's walk depended on tree shape);
//     6.6 keeps curr on a tie with the best waiting entity.
//   - 6.12's protection is the 6.6 marker (vlag == deadline at pick);
//     PREEMPT_SHORT cancels it when the shorter wakee wins, and update_curr
//     reschedules on a deadline renewal, or when the marker is gone and curr
//     is ineligible (the kernel's did_preempt_short) [I].
//   - The wakeup decision of 6.12 and 6.18.0–.2 is pick(protect = !short) ==
//     wakee; 6.18.35 follows its check_preempt_wakeup_fair step by step
//     (PREEMPT_SHORT is the slice comparison only).
//   - A reweight (group shares, SMP) places the entity against V and W
//     without itself, also when it is curr, so its lag is kept exactly
//     (reweight_entity).
//   - Yield, reweight and group slices follow 6.18.35's rules in all
//     versions, 6.6 included.
//   - A task that exits while delayed has its dequeue finished in TaskDead
//     (the kernel's task_dead_fair); a nice change of a delayed task
//     finishes its dequeue first; a wakeup that the engine routes to another
//     CPU (MigrateTask with wakeup) finishes it on the old CPU (a choice),
//     although the kernel would requeue it in place.
//   - A delayed group entity (its queue emptied while it was ineligible)
//     keeps its slice; only the ancestors above it take their queues'
//     shortest slice.
//   - tick_nsec, the lag clamp's TICK_NSEC, is the engine's tick
//     (sched.Machine.TickNS, 10^9/HZ) unless set explicitly.
//   - Resched requests made while picking, or while the running task that
//     blocks is dequeued, are dropped: in the kernel both happen inside
//     __schedule, which clears need_resched after the pick.
//   - PutPrev only records prev; the following PickNext picks with prev
//     still curr (its protection and the tie rule apply to it) and then
//     puts back and sets only the levels that changed, as
//     pick_next_task_fair does.
package eevdf

import (
	"fmt"
	"math"
	"math/bits"

	"schedlab/internal/freelist"
	"schedlab/sched"
)

// entity is a sched_entity: a task's, or a task group's on one CPU.
type entity struct {
	node

	w   uint64 // weight, scaled down (1024 for nice 0)
	inv uint64 // cached 2^32/w (table value for tasks); 0 = not computed

	vruntime    uint64 // (deadline is in node)
	slice       int64  // request size, wall ns
	customSlice bool
	vlag        int64  // V − v saved at dequeue; 6.6–6.16: also the protection marker
	vprot       uint64 // protection limit (6.17+)
	relDeadline bool   // deadline holds deadline − vruntime (PLACE_REL_DEADLINE)
	delayed     bool   // sched_delayed: asleep but still queued
	onRQ        bool
	initial     bool // not enqueued yet: the next enqueue is ENQUEUE_INITIAL

	sumExec, execStart int64

	// The what-ifs' state (whatif.go): the wakeup-chain marks, and
	// START_NICE's temporary weight with sumExec when it began.
	marks     sched.WakeMarks
	startNice bool
	sumAtFork int64

	// The Checker's lag account (check.go): the queue's shift when this
	// entity joined, and the |service lag| it joined with.
	shift0  int64
	joinLag float64

	parent *entity // group entity one level up; nil at the root
	q      *cfsRQ  // the queue this entity is (or would be) queued on
	my     *cfsRQ  // a group entity's own queue; nil for a task
	task   *sched.Task
	depth  int
}

// cfsRQ is a cfs_rq: one task group's (or the root's) queue on one CPU.
type cfsRQ struct {
	tl         timeline
	curr, next *entity
	load       uint64 // Σ w of queued entities, curr and delayed included
	nr         int    // nr_queued: entities queued here, curr and delayed included
	v0         uint64 // origin of the sums: min_vruntime or zero_vruntime
	sumW       int64  // avg_load: Σ w over the tree
	sumWV      int64  // avg_vruntime: Σ w·(v − v0) over the tree
	shift      int64  // Σ |jumps of V| from joins, leaves, reweights, yields (check.go)
	cpu        *cpuRQ
	gs         *groupState // nil for the root queue
}

// cpuRQ is the fair part of one CPU's rq. The engine's side of it (the
// sched.RQ) is not kept: each hook is given it, and passes it down to
// whatever may reschedule or arm the hrtick.
type cpuRQ struct {
	id      int
	root    cfsRQ
	now     int64   // rq_clock_task as the class last saw it
	nrTasks int     // task entities queued on this CPU, delayed ones included
	prev    *entity // PutPrev's task, put back by the following PickNext
	picking bool
	// skipClock is RQCF_REQ_SKIP: a wakeup left the running task marked
	// for preemption, so the coming schedule() keeps the clock of that
	// wakeup.
	skipClock bool
	// lazy is the version's lazy preemption; lazyMark says the running
	// task's mark is TIF_NEED_RESCHED_LAZY, set by this class's
	// resched_curr_lazy, not TIF_NEED_RESCHED (a mark the engine or
	// another class set, or one promoted by the tick, is a full one).
	lazy, lazyMark bool
	// hrtickAt is when the hrtick armed by 7.2's rules expires (0: not
	// armed); the engine cancels it at each schedule(), which 7.2 does not.
	hrtickAt int64
}

// groupState is a task group's entities and queues, one per CPU.
type groupState struct {
	g         *sched.Group
	se        []*entity
	q         []*cfsRQ
	totalLoad uint64 // Σ over CPUs of the group queues' load
}

// EEVDF is the fair scheduling class for one run.
type EEVDF struct {
	// free holds the entities of dead tasks for reuse (TaskDead): a long
	// run forks hundreds of thousands of tasks.
	free freelist.List[entity]
	// clock is the engine's clock, read by address (sched.Clocked); nil:
	// ask each hook's RQ.
	clock *int64
	// noLagAccount: no Checker will run (SkipChecks), so the queues'
	// lag account (jumped, and the V before each join and leave) is not
	// kept: it cost three divisions an enqueue and two a dequeue.
	noLagAccount bool
	cfg          *sched.Config
	ver          version
	cpus         []*cpuRQ
	groups       []*groupState // creation order, for checks

	baseSlice, normSlice int64
	tick                 int64
	migrationCost        int64
	splitShares          bool

	placeLag, placeDeadlineInitial, placeRelDeadline bool
	runToParity, preemptShort                        bool
	nextBuddy, pickBuddy                             bool
	delayDequeue, delayZero                          bool
	wakeupPreemption, hrtick                         bool
	whatIf                                           whatIf

	// maxSliceSeen is the largest request any entity has had in this run.
	maxSliceSeen int64
	// The largest |lag| (ns) and |lag|/bound the Checker has seen.
	maxLagRatio float64
	maxLagNS    float64
}

// initialV0 is where every queue's origin starts (−2^20 as u64), so that
// wrap-around of the u64 virtual clock is exercised early.
const initialV0 = ^uint64(0) - (1 << 20) + 1

// Custom slice limits (sched_setattr), ns.
const (
	minCustomSlice = 100000
	maxCustomSlice = 100000000
)

func feat(cfg *sched.Config, name string) bool { return cfg.Features[name] }

// build makes the class of version ver for a resolved configuration.
func build(cfg *sched.Config, ver version) (sched.Class, error) {
	if cfg.NCPU < 1 {
		return nil, fmt.Errorf("eevdf: need at least one CPU")
	}
	c := &EEVDF{
		cfg:                  cfg,
		ver:                  ver,
		baseSlice:            cfg.Tunable(BaseSlice),
		tick:                 cfg.Tunable(TickNsec),
		migrationCost:        cfg.Tunable(MigrationCost),
		splitShares:          cfg.Tunable(GroupShares) == 1,
		placeLag:             feat(cfg, PlaceLag),
		placeDeadlineInitial: feat(cfg, PlaceDeadlineInitial),
		placeRelDeadline:     feat(cfg, PlaceRelDeadline),
		runToParity:          feat(cfg, RunToParity),
		preemptShort:         feat(cfg, PreemptShort),
		nextBuddy:            feat(cfg, NextBuddy),
		pickBuddy:            feat(cfg, PickBuddy),
		delayDequeue:         feat(cfg, DelayDequeue),
		delayZero:            feat(cfg, DelayZero),
		wakeupPreemption:     feat(cfg, WakeupPreemption),
		hrtick:               feat(cfg, HRTick),
		whatIf:               newWhatIf(cfg),
	}
	// normalized_sysctl_sched_base_slice: the unscaled value, which
	// protection uses without RUN_TO_PARITY.
	c.normSlice = c.baseSlice / sched.ScaleFactor(cfg.Tunable(TunableScaling), cfg.NCPU)
	for i := 0; i < cfg.NCPU; i++ {
		r := &cpuRQ{id: i, lazy: ver.lazy}
		r.root.cpu = r
		r.root.v0 = initialV0
		c.cpus = append(c.cpus, r)
	}
	return c, nil
}

func taskSE(t *sched.Task) *entity { return t.Sched.(*entity) }

// SetClock implements sched.Clocked.
func (c *EEVDF) SetClock(now *int64) { c.clock = now }

// SkipChecks implements sched.Unchecked: the lag account is the
// Checker's alone.
func (c *EEVDF) SkipChecks() { c.noLagAccount = true }

// vBefore is V before a join, leave, reweight or yield, for the lag
// account (jumped); 0 when the account is not kept.
func (c *EEVDF) vBefore(q *cfsRQ) uint64 {
	if c.noLagAccount {
		return 0
	}
	return q.avg()
}

// jumped is q.jumped unless the account is not kept.
func (c *EEVDF) jumped(q *cfsRQ, before uint64, se *entity) {
	if !c.noLagAccount {
		q.jumped(before, se)
	}
}

// now is the time update_rq_clock reads: the engine's clock through the
// address it gave (SetClock), which saves an interface call on every
// hook, or env.Now() when no one gave one (tests, wrappers).
func (c *EEVDF) now(env sched.RQ) int64 {
	if c.clock != nil {
		return *c.clock
	}
	return env.Now()
}

// rq returns env's CPU with its clock refreshed (update_rq_clock).
func (c *EEVDF) rq(env sched.RQ) *cpuRQ {
	r := c.cpus[env.CPU()]
	r.now = c.now(env)
	if r.prev != nil {
		// PutPrev is always followed by PickNext; anything else first
		// completes the put.
		c.completePut(env, r)
	}
	return r
}

// rqOf is rq for a hook that names a task on env's CPU (t.CPU ==
// env.CPU(), as sched.Class promises for every such hook): the task says
// which queue, one interface call fewer on every enqueue, dequeue, wakeup
// check and tick.
func (c *EEVDF) rqOf(env sched.RQ, t *sched.Task) *cpuRQ {
	r := c.cpus[t.CPU]
	r.now = c.now(env)
	if r.prev != nil {
		c.completePut(env, r)
	}
	return r
}

func (c *EEVDF) completePut(env sched.RQ, r *cpuRQ) {
	c.putPrevAll(env, r.prev)
	r.prev = nil
}

// resched asks env, r's CPU, for a reschedule: resched_curr_lazy, the
// fair class's own requests (update_curr, wakeup_preempt_fair). Requests
// made while picking are dropped: the kernel clears need_resched after
// the pick.
func (r *cpuRQ) resched(env sched.RQ) {
	if r.picking {
		return
	}
	if env.CPU() != r.id {
		panic(fmt.Sprintf("eevdf: a reschedule of cpu %d was sent to cpu %d's run queue", r.id, env.CPU()))
	}
	if r.lazy && !env.NeedResched() {
		r.lazyMark = true
	}
	env.Resched()
}

// reschedFull is resched_curr: TIF_NEED_RESCHED whatever the preemption
// model (the hrtick's entity_tick, hrtick_start_fair on an overrun
// request, prio_changed_fair).
func (r *cpuRQ) reschedFull(env sched.RQ) {
	if r.picking {
		return
	}
	r.resched(env)
	r.lazyMark = false
}

// fullMark reports whether the running task is marked with
// TIF_NEED_RESCHED, what test_tsk_need_resched tests.
func (r *cpuRQ) fullMark(env sched.RQ) bool { return env.NeedResched() && !r.lazyMark }

// group returns g's state, creating its per-CPU entities and queues.
func (c *EEVDF) group(g *sched.Group) *groupState {
	if gs, ok := g.Sched.(*groupState); ok {
		return gs
	}
	gs := &groupState{g: g}
	for i, r := range c.cpus {
		q := &cfsRQ{cpu: r, gs: gs, v0: initialV0}
		se := &entity{w: g.Shares, my: q, slice: c.baseSlice}
		se.q, se.parent = c.queueOf(g.Parent, i)
		if se.parent != nil {
			se.depth = se.parent.depth + 1
		}
		gs.se = append(gs.se, se)
		gs.q = append(gs.q, q)
	}
	g.Sched = gs
	c.groups = append(c.groups, gs)
	return gs
}

// queueOf returns the queue entities of group g sit on, on cpu, and the
// group entity that represents that queue one level up.
func (c *EEVDF) queueOf(g *sched.Group, cpu int) (*cfsRQ, *entity) {
	if g == nil {
		return &c.cpus[cpu].root, nil
	}
	gs := c.group(g)
	return gs.q[cpu], gs.se[cpu]
}

// ---------------------------------------------------------------------------
// Fixed point (__calc_delta)

const wmultConst = 1<<32 - 1

// inverse is __update_inv_weight: 2^32/w, computed lazily for groups.
func (se *entity) inverse() uint64 {
	if se.inv == 0 {
		switch {
		case se.w >= wmultConst:
			se.inv = 1
		case se.w == 0:
			se.inv = wmultConst
		default:
			se.inv = wmultConst / se.w
		}
	}
	return se.inv
}

// calcDelta is __calc_delta(Δ, weight, se): Δ·weight/se.w with a 32-bit
// inverse, the factor renormalised to 32 bits and a 128-bit product. The
// result is floor(Δ·weight/w) or one less.
func calcDelta(d, weight uint64, se *entity) uint64 {
	fact := weight
	shift := uint(32)
	if hi := fact >> 32; hi != 0 {
		fs := uint(bits.Len64(hi))
		shift -= fs
		fact >>= fs
	}
	fact = uint64(uint32(fact)) * se.inverse()
	if hi := fact >> 32; hi != 0 {
		fs := uint(bits.Len64(hi))
		shift -= fs
		fact >>= fs
	}
	hi, lo := bits.Mul64(d, fact)
	return hi<<(64-shift) | lo>>shift
}

// calcDeltaFair converts wall ns into se's virtual time.
func calcDeltaFair(d int64, se *entity) uint64 {
	if se.w != sched.NiceZeroLoad {
		return calcDelta(uint64(d), sched.NiceZeroLoad, se)
	}
	return uint64(d)
}

// ---------------------------------------------------------------------------
// The zero-lag point (avg_vruntime), eligibility (entity_eligible), lag
// (update_entity_lag)

func (q *cfsRQ) key(se *entity) int64 { return int64(se.vruntime - q.v0) }

// sums returns Σ w·(v − v0) and Σ w over the queued entities, curr
// included when it is queued.
func (q *cfsRQ) sums() (s, w int64) {
	s, w = q.sumWV, q.sumW
	if c := q.curr; c != nil && c.onRQ {
		s += q.key(c) * int64(c.w)
		w += int64(c.w)
	}
	return s, w
}

// avg is avg_vruntime without side effects: floor of the weighted mean,
// or the (stale) origin of an empty queue.
func (q *cfsRQ) avg() uint64 {
	s, w := q.sums()
	if w == 0 {
		return q.v0
	}
	if s < 0 {
		s -= w - 1 // floor, not truncation
	}
	return q.v0 + uint64(s/w)
}

// avgVruntime is avg_vruntime; 6.18.35 moves the origin to the result.
func (c *EEVDF) avgVruntime(q *cfsRQ) uint64 {
	v := q.avg()
	if c.ver.zeroVruntime {
		q.moveOrigin(v)
	}
	return v
}

// moveOrigin rebases the sums on a new origin.
func (q *cfsRQ) moveOrigin(v0 uint64) {
	d := int64(v0 - q.v0)
	q.sumWV -= q.sumW * d
	q.v0 = v0
}

// updateMinVruntime is the monotonic min_vruntime of 6.6–6.18.2: the
// smaller of curr's and the tree's smallest vruntime, never moving back.
func (q *cfsRQ) updateMinVruntime() {
	v := q.v0
	cur := q.curr
	if cur != nil && !cur.onRQ {
		cur = nil
	}
	if cur != nil {
		v = cur.vruntime
	}
	if m, ok := q.tl.minVruntime(); ok {
		if cur == nil || int64(m-v) < 0 {
			v = m
		}
	}
	if int64(v-q.v0) > 0 {
		q.moveOrigin(v)
	}
}

// vruntimeEligible is vruntime_eligible: V ≥ v, cross-multiplied.
func (q *cfsRQ) vruntimeEligible(v uint64) bool {
	s, w := q.sums()
	return s >= int64(v-q.v0)*w
}

func (q *cfsRQ) eligible(se *entity) bool { return q.vruntimeEligible(se.vruntime) }

// minSlice and maxSlice over the queued entities, curr included.
func (q *cfsRQ) minSlice() int64 {
	s := q.tl.minSlice()
	if c := q.curr; c != nil && c.onRQ {
		s = min(s, c.slice)
	}
	return s
}

func (q *cfsRQ) maxSlice() int64 {
	s := q.tl.maxSlice()
	if c := q.curr; c != nil && c.onRQ {
		s = max(s, c.slice)
	}
	return s
}

// lagLimit is the clamp of update_entity_lag in se's virtual time.
func (c *EEVDF) lagLimit(q *cfsRQ, se *entity) int64 {
	if c.ver.maxSliceClamp {
		return int64(calcDeltaFair(q.maxSlice()+c.tick, se))
	}
	return int64(calcDeltaFair(max(2*se.slice, c.tick), se))
}

// updateEntityLag saves se's clamped virtual lag (update_entity_lag).
func (c *EEVDF) updateEntityLag(q *cfsRQ, se *entity) {
	limit := c.lagLimit(q, se)
	vl := int64(c.avgVruntime(q) - se.vruntime)
	se.vlag = min(max(vl, -limit), limit)
}

// mulDiv is a·b/d truncated toward zero, with a 128-bit product (the
// kernel's s64 product would overflow only for absurd weights and lags).
func mulDiv(a, b, d int64) int64 {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = uint64(-a)
	}
	if b < 0 {
		ub = uint64(-b)
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi >= uint64(d) {
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	qv, _ := bits.Div64(hi, lo, uint64(d))
	if neg {
		return -int64(qv)
	}
	return int64(qv)
}

// ---------------------------------------------------------------------------
// Loads and the tree

func (q *cfsRQ) addLoad(w uint64) {
	q.load += w
	if q.gs != nil {
		q.gs.totalLoad += w
	}
}

func (q *cfsRQ) subLoad(w uint64) {
	q.load -= w
	if q.gs != nil {
		q.gs.totalLoad -= w
	}
}

// enqueueTree is __enqueue_entity: into the tree and the sums.
func (q *cfsRQ) enqueueTree(se *entity) {
	q.sumW += int64(se.w)
	q.sumWV += q.key(se) * int64(se.w)
	q.tl.insert(se)
}

func (q *cfsRQ) dequeueTree(se *entity) {
	q.tl.remove(se)
	q.sumW -= int64(se.w)
	q.sumWV -= q.key(se) * int64(se.w)
}

// jumped accounts a jump of V from before (the lag a join, leave, reweight
// or yield at non-zero lag imposes on everyone else queued) and, if se is
// given, restarts se's account as a fresh join.
func (q *cfsRQ) jumped(before uint64, se *entity) {
	v := q.avg()
	d := int64(v - before)
	q.shift += max(d, -d)
	if se != nil {
		se.shift0 = q.shift
		se.joinLag = math.Abs(float64(int64(v-se.vruntime)) * float64(se.w) / sched.NiceZeroLoad)
	}
}

// Lag returns t's service lag w·(V − v)/1024 in ns against its queue's V
// (0 when it is not queued), and its virtual lag (for tests and reports).
func Lag(t *sched.Task) (ns float64, vlag int64) {
	se := taskSE(t)
	if !se.onRQ {
		return 0, se.vlag
	}
	vl := int64(se.q.avg() - se.vruntime)
	return float64(vl) * float64(se.w) / sched.NiceZeroLoad, vl
}
