package sched

import (
	"fmt"
	"sort"

	"schedlab/uapi"
)

// The kernel stacks its scheduling classes: stop > deadline > rt > fair >
// idle. A task's policy picks its class; pick_next_task asks each class in
// that order and runs the first task offered; a task woken into a higher
// class than the running task's preempts it at once, one in a lower class
// never does, and within a class the class decides. A profile (cfs-2.6.35,
// eevdf-6.12…) is the fair class; the classes above it are registered here
// by their packages (sched/rt) with a rank, and Stack puts them over the
// fair class for a run whose tasks use them. A deadline class joins with
// a higher rank and its policy, and no engine change.

// ClassDef is a scheduling class above the fair one.
type ClassDef struct {
	Name string // "rt"
	// Rank orders the classes: the higher runs first. The fair class is
	// 0; rt is 10 and deadline would be 20.
	Rank     int
	Policies []uapi.Policy
	// Tunables are the class's sysctls. Every profile lists them after
	// its own (Profile.Tunable, NewConfigFor), since a run of any fair
	// profile may hold tasks of this class.
	Tunables []Tunable
	// New builds the class for one run; cfg is the run's resolved
	// configuration, its tunables included.
	New func(cfg *Config) (Class, error)
}

var classDefs []*ClassDef

// RegisterClass makes a class available; its package's init calls it.
func RegisterClass(d *ClassDef) {
	for _, o := range classDefs {
		if o.Name == d.Name || o.Rank == d.Rank {
			panic("sched: class registered twice: " + d.Name)
		}
	}
	classDefs = append(classDefs, d)
	sort.Slice(classDefs, func(i, j int) bool { return classDefs[i].Rank > classDefs[j].Rank })
}

// ClassOf returns the registered class that runs policy p, or nil for the
// fair class's policies and for a policy no class registered.
func ClassOf(p uapi.Policy) *ClassDef {
	for _, d := range classDefs {
		for _, q := range d.Policies {
			if q == p {
				return d
			}
		}
	}
	return nil
}

// ClassTunable returns the tunable of that name of a registered class
// and the class, or nils.
func ClassTunable(name string) (*Tunable, *ClassDef) {
	for _, d := range classDefs {
		for i := range d.Tunables {
			if d.Tunables[i].Name == name {
				return &d.Tunables[i], d
			}
		}
	}
	return nil, nil
}

// ClassTunables lists the registered classes' tunables, highest class
// first.
func ClassTunables() []Tunable {
	var out []Tunable
	for _, d := range classDefs {
		out = append(out, d.Tunables...)
	}
	return out
}

// Core is what the engine offers a class that places and moves its own
// tasks (the real-time class's push and pull): the other CPUs' run queues,
// a move between them and a timer. Like an RQ it is good for the call it
// is passed to.
type Core interface {
	NCPU() int
	RQ(cpu int) RQ
	// Allowed reports whether t may run on cpu (its affinity).
	Allowed(t *Task, cpu int) bool
	// Move migrates t, queued and waiting (not running) on t.CPU, to cpu:
	// Dequeue, MigrateTask and Enqueue through the classes, traced as a
	// migration; with preempt, CheckPreempt on cpu follows.
	Move(t *Task, cpu int, preempt bool)
	// ArmTimer arms the calling class's timer for when, replacing the
	// one it armed before: at that time Balancer.Timer is called. (The
	// engine has one timer for the stack, which multiplexes it.)
	ArmTimer(when int64)
}

// Admitter is implemented by a class that may refuse a task its policy,
// as sched_setattr does (the deadline class's admission control). The
// engine asks before the task's TaskNew; an error ends the run.
type Admitter interface {
	Admit(t *Task) error
}

// Balancer is implemented by a class that places and moves its tasks
// itself rather than leave them to the engine's fair load balancing. The
// engine calls it only through the Stack.
type Balancer interface {
	// SelectWakeCPU is select_task_rq for a wakeup of t, one of this
	// class's tasks, asleep on t.CPU.
	SelectWakeCPU(core Core, t *Task) int
	// PreSchedule runs in schedule() on rq after PutPrev(rq, prev) and
	// before PickNext (pre_schedule: the pull). prev may be nil.
	PreSchedule(core Core, rq RQ, prev *Task)
	// Push runs after each event, once its reschedules are done
	// (post_schedule and task_woken: the push); it reports whether it
	// moved a task, and is called again until it does not.
	Push(core Core) bool
	// Timer is the expiry of the timer armed with Core.ArmTimer.
	Timer(core Core)
}

// RTCharger is implemented by the class that throttles real-time time per
// CPU (rt), and RTCharged by a class whose time counts there too: the
// kernel charges deadline tasks' time to the CPU's rt_rq, so that the
// real-time tasks beside them stay within sched_rt_runtime_us. The stack
// connects them when it builds the classes.
type RTCharger interface {
	ChargeRT(cpu int, ns int64)
}

// RTCharged is implemented by a class whose run time is charged to the
// real-time throttling (deadline).
type RTCharged interface {
	SetRTCharger(RTCharger)
}

// PutCompleter is implemented by a fair class whose PutPrev leaves work to
// its PickNext (EEVDF's deferred put_prev_task). When a higher class picks
// after the fair class's PutPrev, the stack calls CompletePut instead of
// the fair PickNext, so the fair class puts prev back at that instant and
// charges it nothing of what the higher class then runs.
type PutCompleter interface {
	CompletePut(rq RQ)
}

// Stack is the run's classes in the kernel's order, itself a Class to the
// engine. It dispatches each hook to the class of the task the hook names,
// and gives every class a view of each run queue in which Curr is nil
// while another class's task runs: to the fair class a CPU running a
// real-time task has no current fair entity (cfs_rq->curr is NULL), so
// no time is charged to fair tasks while it runs.
type Stack struct {
	classes []Class // highest first; the fair class is the last
	ranks   []int
	fair    Class
	views   [][]classView // [class][cpu]
	bal     []Balancer    // per class, nil for a class without one
	// put is the class whose PutPrev ran on each CPU and whose PickNext
	// has not yet followed (-1: none).
	put []int
	// timers are the times each class armed its timer for (0: none).
	timers []int64
}

// NewStack builds the classes of a run: the profile's fair class, and
// over it each registered class that runs one of the policies used. With
// none used it returns the fair class itself, so a fair-only run is
// exactly what it was before classes stacked.
func NewStack(cfg *Config, used []uapi.Policy) (Class, error) {
	fair, err := cfg.Profile.New(cfg)
	if err != nil {
		return nil, err
	}
	var defs []*ClassDef
	for _, d := range classDefs {
		for _, p := range used {
			if ClassOf(p) == d {
				defs = append(defs, d)
				break
			}
		}
	}
	if len(defs) == 0 {
		return fair, nil
	}
	s := &Stack{fair: fair}
	for _, d := range defs {
		c, err := d.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s class: %w", d.Name, err)
		}
		s.classes = append(s.classes, c)
		s.ranks = append(s.ranks, d.Rank)
	}
	s.classes = append(s.classes, fair)
	s.ranks = append(s.ranks, 0)
	s.views = make([][]classView, len(s.classes))
	for k := range s.classes {
		s.views[k] = make([]classView, cfg.NCPU)
		for cpu := range s.views[k] {
			s.views[k][cpu].s, s.views[k][cpu].k = s, k
		}
	}
	for _, c := range s.classes {
		b, _ := c.(Balancer)
		s.bal = append(s.bal, b)
	}
	for _, c := range s.classes {
		if to, ok := c.(RTCharger); ok {
			for _, from := range s.classes {
				if f, ok := from.(RTCharged); ok {
					f.SetRTCharger(to)
				}
			}
		}
	}
	s.timers = make([]int64, len(s.classes))
	s.put = make([]int, cfg.NCPU)
	for i := range s.put {
		s.put[i] = -1
	}
	return s, nil
}

// SetClock implements Clocked for the classes that are.
func (s *Stack) SetClock(now *int64) {
	for _, c := range s.classes {
		if k, ok := c.(Clocked); ok {
			k.SetClock(now)
		}
	}
}

// SkipChecks implements Unchecked for the classes that are.
func (s *Stack) SkipChecks() {
	for _, c := range s.classes {
		if u, ok := c.(Unchecked); ok {
			u.SkipChecks()
		}
	}
}

// Warm implements Warmer through the fair class, which holds nearly every
// task of the loads where it matters.
func (s *Stack) Warm(t *Task) uint64 {
	if w, ok := s.fair.(Warmer); ok {
		return w.Warm(t)
	}
	return 0
}

// Classes returns the stacked classes, highest first.
func (s *Stack) Classes() []Class { return s.classes }

// classView is one class's view of one CPU's run queue.
type classView struct {
	RQ
	s *Stack
	k int
}

// Curr is the running task if it is this class's.
func (v *classView) Curr() *Task {
	if t := v.RQ.Curr(); t != nil && v.s.index(t) == v.k {
		return t
	}
	return nil
}

// index is the position in s.classes of t's class.
func (s *Stack) index(t *Task) int {
	if d := ClassOf(t.Policy); d != nil {
		for k, r := range s.ranks {
			if r == d.Rank {
				return k
			}
		}
	}
	return len(s.classes) - 1
}

func (s *Stack) view(k int, rq RQ) RQ {
	if rq == nil {
		return nil
	}
	v := &s.views[k][rq.CPU()]
	v.RQ = rq
	return v
}

// same returns o if it is in class k, else nil: a class sees no parent of
// another class (a fair child of a real-time parent is placed as a task
// without a running fair parent, as task_fork_fair finds no cfs_rq curr).
func (s *Stack) same(k int, o *Task) *Task {
	if o != nil && s.index(o) == k {
		return o
	}
	return nil
}

// TaskNew implements Class.
func (s *Stack) TaskNew(t, parent *Task) {
	k := s.index(t)
	s.classes[k].TaskNew(t, s.same(k, parent))
}

// Fork implements Class.
func (s *Stack) Fork(rq, dst RQ, parent, child *Task) {
	k := s.index(child)
	s.classes[k].Fork(s.view(k, rq), s.view(k, dst), s.same(k, parent), child)
}

// Enqueue implements Class.
func (s *Stack) Enqueue(rq RQ, t *Task, flags int) {
	k := s.index(t)
	s.classes[k].Enqueue(s.view(k, rq), t, flags)
}

// Dequeue implements Class.
func (s *Stack) Dequeue(rq RQ, t *Task, flags int) {
	k := s.index(t)
	s.classes[k].Dequeue(s.view(k, rq), t, flags)
}

// CheckPreempt implements Class (check_preempt_curr): a higher class
// preempts, a lower one waits, the class judges its own.
func (s *Stack) CheckPreempt(rq RQ, t *Task, wakeFlags int) {
	k, kc := s.index(t), s.index(rq.Curr())
	switch {
	case k == kc:
		s.classes[k].CheckPreempt(s.view(k, rq), t, wakeFlags)
	case k < kc:
		rq.Resched()
	}
}

// PutPrev implements Class.
func (s *Stack) PutPrev(rq RQ, prev *Task) {
	k := s.index(prev)
	s.classes[k].PutPrev(s.view(k, rq), prev)
	s.put[rq.CPU()] = k
}

// PickNext implements Class: each class in turn, highest first. A class
// whose PutPrev ran but whose pick a higher class took completes its put.
func (s *Stack) PickNext(rq RQ) *Task {
	put := s.put[rq.CPU()]
	s.put[rq.CPU()] = -1
	for k, c := range s.classes {
		if t := c.PickNext(s.view(k, rq)); t != nil {
			if put > k {
				if pc, ok := s.classes[put].(PutCompleter); ok {
					pc.CompletePut(s.view(put, rq))
				}
			}
			return t
		}
		if put == k {
			put = -1 // its PickNext has followed
		}
	}
	return nil
}

// Tick implements Class.
func (s *Stack) Tick(rq RQ, curr *Task, queued bool) {
	k := s.index(curr)
	s.classes[k].Tick(s.view(k, rq), curr, queued)
}

// Yield implements Class.
func (s *Stack) Yield(rq RQ, curr *Task) {
	k := s.index(curr)
	s.classes[k].Yield(s.view(k, rq), curr)
}

// SetNice implements Class.
func (s *Stack) SetNice(rq RQ, t *Task, nice int) {
	k := s.index(t)
	s.classes[k].SetNice(s.view(k, rq), t, nice)
}

// TaskDead implements Class.
func (s *Stack) TaskDead(rq RQ, t *Task) {
	k := s.index(t)
	s.classes[k].TaskDead(s.view(k, rq), t)
}

// MigrateTask implements Class.
func (s *Stack) MigrateTask(src, dst RQ, t *Task, wakeup bool) {
	k := s.index(t)
	s.classes[k].MigrateTask(s.view(k, src), s.view(k, dst), t, wakeup)
}

// Balances reports whether t's class places and moves it itself; the
// engine's fair balancing leaves such tasks alone.
func (s *Stack) Balances(t *Task) bool { return s.bal[s.index(t)] != nil }

// classCore is the engine's Core as class k sees it: its ArmTimer is the
// class's own.
type classCore struct {
	Core
	s *Stack
	k int
}

func (c classCore) ArmTimer(when int64) {
	c.s.timers[c.k] = when
	c.s.armTimer(c.Core)
}

// armTimer arms the engine's timer for the earliest class timer.
func (s *Stack) armTimer(core Core) {
	var first int64
	for _, w := range s.timers {
		if w != 0 && (first == 0 || w < first) {
			first = w
		}
	}
	if first != 0 {
		core.ArmTimer(first)
	}
}

func (s *Stack) core(k int, core Core) Core { return classCore{core, s, k} }

// Admit asks t's class whether it takes t.
func (s *Stack) Admit(t *Task) error {
	if a, ok := s.classes[s.index(t)].(Admitter); ok {
		return a.Admit(t)
	}
	return nil
}

// SelectWakeCPU is the wakeup CPU of a task whose class Balances it.
func (s *Stack) SelectWakeCPU(core Core, t *Task) int {
	k := s.index(t)
	return s.bal[k].SelectWakeCPU(s.core(k, core), t)
}

// PreSchedule runs every balancing class's pre_schedule on rq.
func (s *Stack) PreSchedule(core Core, rq RQ, prev *Task) {
	for k, b := range s.bal {
		if b != nil {
			b.PreSchedule(s.core(k, core), s.view(k, rq), prev)
		}
	}
}

// Push runs the balancing classes' pushes, highest class first, until
// one moves a task; it reports whether one did.
func (s *Stack) Push(core Core) bool {
	for k, b := range s.bal {
		if b != nil && b.Push(s.core(k, core)) {
			return true
		}
	}
	return false
}

// Timer is the engine's timer: each class whose own timer is due gets
// its expiry, and the engine's is armed for the next.
func (s *Stack) Timer(core Core) {
	now := core.RQ(0).Now()
	for k, b := range s.bal {
		if w := s.timers[k]; b != nil && w != 0 && w <= now {
			s.timers[k] = 0
			b.Timer(s.core(k, core))
		}
	}
	s.armTimer(core)
}

// CheckInvariants implements Checker: each class that checks itself is
// given the runnable tasks of its own policies.
func (s *Stack) CheckInvariants(now int64, runnable [][]*Task) error {
	for k, c := range s.classes {
		ck, ok := c.(Checker)
		if !ok {
			continue
		}
		mine := make([][]*Task, len(runnable))
		for cpu, ts := range runnable {
			mine[cpu] = []*Task{}
			for _, t := range ts {
				if s.index(t) == k {
					mine[cpu] = append(mine[cpu], t)
				}
			}
		}
		if err := ck.CheckInvariants(now, mine); err != nil {
			return err
		}
	}
	return nil
}
