package sim_test

import (
	"testing"

	"schedlab/analyze"
	"schedlab/sched"
	"schedlab/sched/cfs"
	"schedlab/sim"
)

// chargeProbe records, for each wakeup that marks the running task for
// preemption, that task's vruntime, and at its put_prev how much more it
// was charged and where it ended against min_vruntime.
type chargeProbe struct {
	sched.Class
	real    *cfs.CFS
	marked  map[int]uint64
	charges []int64
	right   int // puts that left the preempted task strictly right of min_vruntime
}

func (p *chargeProbe) CheckPreempt(rq sched.RQ, w *sched.Task, wf int) {
	before := rq.NeedResched()
	p.Class.CheckPreempt(rq, w, wf)
	if curr := rq.Curr(); curr != nil && !before && rq.NeedResched() {
		p.marked[curr.PID] = cfs.Vruntime(curr)
	}
}

func (p *chargeProbe) PutPrev(rq sched.RQ, prev *sched.Task) {
	p.Class.PutPrev(rq, prev)
	v0, ok := p.marked[prev.PID]
	if !ok {
		return
	}
	delete(p.marked, prev.PID)
	v := cfs.Vruntime(prev)
	p.charges = append(p.charges, int64(v-v0))
	if sched.Before(p.real.MinVruntime(rq.CPU()), v) {
		p.right++
	}
}

// In 2.6.35 put_prev_task refreshes the clock, so a task preempted by a
// wakeup is charged for the time it took to reach schedule() after that
// wakeup: cost_resched_ns (nice 0, so vruntime is wall time). A sleeper
// alone with a hog: the hog's wakeup-time charge made min_vruntime equal
// its vruntime, so the extra charge leaves it strictly right of it. With
// the cost at 0 the preemption takes no time (the old model, in which
// the hog ties with a task placed at min_vruntime).
func TestPreemptedTaskIsChargedUntilSchedule(t *testing.T) {
	for _, cost := range []int64{1000, 0} {
		probe := &chargeProbe{marked: map[int]uint64{}}
		cfg := wrapped(t, probe, func(c sched.Class) { probe.Class, probe.real = c, c.(*cfs.CFS) })
		p := sim.DefaultParams()
		p.CostResched = cost
		run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"run": 100000}, "w": {"run": 500, "sleep": 20000}}}`),
			Sched: cfg, Params: p, Duration: 1e9, Check: true})
		if len(probe.charges) < 40 {
			t.Fatalf("cost %d: only %d preemptions", cost, len(probe.charges))
		}
		for i, c := range probe.charges {
			if c != cost {
				t.Fatalf("cost %d: preemption %d charged the preempted task %d ns between the wakeup and its put_prev, want %d", cost, i, c, cost)
			}
		}
		if cost > 0 && probe.right != len(probe.charges) {
			t.Errorf("cost %d: %d of %d preempted tasks strictly right of min_vruntime, want all", cost, probe.right, len(probe.charges))
		}
	}
}

// The case: a SIGEV_THREAD helper wakes, preempts the hog, and
// forks the callback, which NO_START_DEBIT places at min_vruntime. The
// hog, charged for its way to schedule(), is right of that, so the
// callback runs as soon as the helper waits again: every sample is the
// helper's wakeup path (2 µs), the hog's return to user space (1 µs), the
// switch (3 µs), its 30 µs, the clone (25 µs) and the callback's switch
// (3 µs) = 64 µs. With a preemption that takes no time the hog ties with
// the callback, wins it by queue order, and the callback waits out the
// hog's slice.
func TestNoStartDebitChildRunsBeforePreemptedTask(t *testing.T) {
	const js = `{"tasks": {"hog": {"run": 100000},
		"sigev-helper": {"timer": {"ref": "posix", "period": 10000, "notify": "thread"}, "run": 30, "fork": "callback"},
		"callback": {"instance": 0, "loop": 1, "run": 20}}}`
	for _, cost := range []int64{1000, 0} {
		p := sim.DefaultParams()
		p.CostResched = cost
		an := analyze.New()
		e := run(t, sim.Config{Spec: spec(t, js), Sched: schedConfig(t, "cfs-2.6.35", 1, map[string]bool{cfs.StartDebit: false}, nil),
			Params: p, Duration: 1e9, Sink: an, Check: true})
		s := an.Finish(e.Now()).TimerLatency
		if s.Count < 90 {
			t.Fatalf("cost %d: %d samples", cost, s.Count)
		}
		want := p.CostWakeup + cost + 2*p.CostContextSwitch + 30000 + p.CostFork
		if cost > 0 && (s.Min != want || s.Max != want) {
			t.Errorf("cost %d: timer latency %d..%d ns, want every sample %d", cost, s.Min, s.Max, want)
		}
		if cost == 0 && s.Max < 1e6 {
			t.Errorf("cost 0: max timer latency %d ns, want the hog's slice (over 1 ms)", s.Max)
		}
	}
}

// forkProbe sees forks and the first run of each child.
type forkProbe struct {
	sched.Class
	inherited map[int]bool  // child PID → its parent's CPU had a preemption pending at the fork
	picked    map[int]int64 // child PID → when first picked
	firstPut  map[int]int64 // child PID → when first put back
	now       func() int64
}

func (p *forkProbe) Fork(rq, dst sched.RQ, parent, child *sched.Task) {
	p.Class.Fork(rq, dst, parent, child)
	if parent != nil {
		p.inherited[child.PID] = rq.NeedResched()
	}
}

func (p *forkProbe) PickNext(rq sched.RQ) *sched.Task {
	t := p.Class.PickNext(rq)
	if t != nil {
		if _, ok := p.picked[t.PID]; !ok {
			p.picked[t.PID] = rq.Now()
		}
	}
	return t
}

func (p *forkProbe) PutPrev(rq sched.RQ, prev *sched.Task) {
	if _, ok := p.firstPut[prev.PID]; !ok {
		p.firstPut[prev.PID] = rq.Now()
	}
	p.Class.PutPrev(rq, prev)
}

// A timer wakeup during the parent's clone() marks it; kernel code is not
// preempted, so the fork completes with the mark pending, and 2.6.35's
// dup_task_struct copies it into the child: the child's first switch-in
// is followed, once the switch is done, by another schedule(), before any
// of its own 50 µs.
func TestForkedChildInheritsNeedResched(t *testing.T) {
	probe := &forkProbe{inherited: map[int]bool{}, picked: map[int]int64{}, firstPut: map[int]int64{}}
	cfg := wrapped(t, probe, func(c sched.Class) { probe.Class = c })
	run(t, sim.Config{Spec: spec(t, `{"tasks": {
		"p": {"run": 100, "fork": "c"},
		"c": {"instance": 0, "loop": 1, "run": 50},
		"w": {"timer": {"ref": "unique", "period": 333}, "run": 5}}}`),
		Sched: cfg, Duration: 2e8, Check: true})
	p := sim.DefaultParams()
	n, early := 0, 0
	for pid, inh := range probe.inherited {
		pick, ran := probe.picked[pid]
		put, done := probe.firstPut[pid]
		if !ran || !done {
			continue
		}
		if inh {
			n++
			if put-pick != p.CostContextSwitch {
				t.Errorf("child %d inherited need_resched: first put %d ns after its first pick, want the switch's %d", pid, put-pick, p.CostContextSwitch)
			}
		} else if put-pick == p.CostContextSwitch {
			early++
		}
	}
	if n < 20 {
		t.Fatalf("only %d children forked with a preemption pending", n)
	}
	t.Logf("%d children inherited need_resched; %d others left the CPU as early", n, early)
}

// putReschedProbe asks for a reschedule inside one put_prev_task (as an
// update_curr that ends a slice there would) and records when the pick
// that follows it and the next put happen.
type putReschedProbe struct {
	sched.Class
	at         int64 // the first put at or after it asks
	asked      bool
	pick, next int64
}

func (p *putReschedProbe) PutPrev(rq sched.RQ, prev *sched.Task) {
	p.Class.PutPrev(rq, prev)
	switch {
	case !p.asked && rq.Now() >= p.at:
		p.asked = true
		rq.Resched()
	case p.asked && p.next == 0:
		p.next = rq.Now()
	}
}

func (p *putReschedProbe) PickNext(rq sched.RQ) *sched.Task {
	t := p.Class.PickNext(rq)
	if p.asked && p.pick == 0 {
		p.pick = rq.Now()
	}
	return t
}

// Up to 2.6.36 schedule() clears need_resched before the put and the
// pick, so a reschedule asked for during them stays set and the picked
// task reschedules once it reaches schedule() (cost_resched_ns); since
// 2.6.37 (f26f9aff6aa; 6.1's and 6.12's __schedule alike) the flag is
// cleared after pick_next_task and the request is dropped: the next put
// is the next tick's.
func TestReschedDuringPickDroppedSince2637(t *testing.T) {
	for _, before := range []bool{true, false} {
		probe := &putReschedProbe{at: 5e6}
		cfg := wrapped(t, probe, func(c sched.Class) { probe.Class = c })
		cfg.Profile.ReschedBefore2637 = before
		p := sim.DefaultParams()
		run(t, sim.Config{Spec: spec(t, `{"tasks": {"hog": {"instance": 2, "run": 100000}}}`),
			Sched: cfg, Params: p, Duration: 50e6, Check: true})
		if probe.pick == 0 || probe.next == 0 {
			t.Fatalf("before %v: no put after the request (pick %d, next %d)", before, probe.pick, probe.next)
		}
		gap := probe.next - probe.pick
		if before && gap != p.CostResched {
			t.Errorf("cleared before the pick: next put %d ns after the pick, want cost_resched_ns %d", gap, p.CostResched)
		}
		if !before && gap < p.TickNS()/2 {
			t.Errorf("cleared after the pick: next put %d ns after the pick, want the request dropped (about a tick, %d)", gap, p.TickNS())
		}
	}
}
