package sim_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"schedlab/sched"
	_ "schedlab/sched/eevdf" // every policy takes the contract test
	"schedlab/sim"
	"schedlab/trace"
)

// contractClass stands between the engine and a real class. Every hook call
// hands the class a new RQ that stops working when the call returns, so a
// class that keeps a handle for a later call is caught, and a class that
// works only with the handle it saw before behaves differently. It also
// checks what sched.Class promises about each call.
type contractClass struct {
	inner      sched.Class
	calls      map[string]int
	pendingPut map[int]bool // CPUs between PutPrev and PickNext
	// enqueued is, per CPU, the task of the last Enqueue there and its
	// time, until the next hook on that CPU: CheckPreempt's t.
	enqueued   map[int]enqueue
	violations []string
}

type enqueue struct {
	t   *sched.Task
	now int64
}

func newContract(inner sched.Class) *contractClass {
	return &contractClass{inner: inner, calls: map[string]int{}, pendingPut: map[int]bool{}, enqueued: map[int]enqueue{}}
}

func (c *contractClass) fail(format string, args ...any) {
	if len(c.violations) < 20 {
		c.violations = append(c.violations, fmt.Sprintf(format, args...))
	}
}

// callRQ is the RQ of one hook call.
type callRQ struct {
	rq   sched.RQ
	hook string
	done bool
	c    *contractClass
}

func (r *callRQ) use(method string) {
	if r.done {
		r.c.fail("%s on cpu %d's RQ from an earlier %s call", method, r.rq.CPU(), r.hook)
	}
}

func (r *callRQ) CPU() int                { r.use("CPU"); return r.rq.CPU() }
func (r *callRQ) Now() int64              { r.use("Now"); return r.rq.Now() }
func (r *callRQ) Curr() *sched.Task       { r.use("Curr"); return r.rq.Curr() }
func (r *callRQ) Resched()                { r.use("Resched"); r.rq.Resched() }
func (r *callRQ) NeedResched() bool       { r.use("NeedResched"); return r.rq.NeedResched() }
func (r *callRQ) StartHRTick(delay int64) { r.use("StartHRTick"); r.rq.StartHRTick(delay) }
func (r *callRQ) HRTickActive() bool      { r.use("HRTickActive"); return r.rq.HRTickActive() }

// handle makes the RQ that a hook call on rq's CPU hands the class; the
// call sets its done when it returns.
func (c *contractClass) handle(hook string, rq sched.RQ) *callRQ {
	if hook != "PickNext" && c.pendingPut[rq.CPU()] {
		c.fail("%s on cpu %d between PutPrev and PickNext", hook, rq.CPU())
	}
	delete(c.enqueued, rq.CPU())
	return &callRQ{rq: rq, hook: hook, c: c}
}

func (c *contractClass) on(hook string, rq sched.RQ, t *sched.Task) {
	if t.CPU != rq.CPU() {
		c.fail("%s of pid %d (on cpu %d) was given cpu %d's RQ", hook, t.PID, t.CPU, rq.CPU())
	}
}

func (c *contractClass) running(hook string, rq sched.RQ, t *sched.Task) {
	if rq.Curr() != t {
		c.fail("%s of pid %d, which is not cpu %d's running task", hook, t.PID, rq.CPU())
	}
}

func (c *contractClass) TaskNew(t, parent *sched.Task) {
	c.calls["TaskNew"]++
	if t.Sched != nil {
		c.fail("TaskNew of pid %d twice", t.PID)
	}
	c.inner.TaskNew(t, parent)
}

func (c *contractClass) Fork(rq, dst sched.RQ, parent, child *sched.Task) {
	c.on("Fork (dst)", dst, child)
	if parent != nil {
		c.on("Fork (parent)", rq, parent)
		c.running("Fork", rq, parent)
	} else if rq.CPU() != dst.CPU() {
		c.fail("Fork without a parent: cpu %d and cpu %d", rq.CPU(), dst.CPU())
	}
	c.calls["Fork"]++
	if dst.CPU() != rq.CPU() {
		c.calls["Fork to another CPU"]++
	}
	r, d := c.handle("Fork", rq), c.handle("Fork", dst)
	c.inner.Fork(r, d, parent, child)
	r.done, d.done = true, true
}

func (c *contractClass) Enqueue(rq sched.RQ, t *sched.Task, flags int) {
	c.on("Enqueue", rq, t)
	c.calls["Enqueue"]++
	r := c.handle("Enqueue", rq)
	c.inner.Enqueue(r, t, flags)
	r.done = true
	c.enqueued[rq.CPU()] = enqueue{t, rq.Now()}
}

func (c *contractClass) Dequeue(rq sched.RQ, t *sched.Task, flags int) {
	c.on("Dequeue", rq, t)
	if flags&sched.DequeueSleep != 0 {
		c.running("Dequeue(DequeueSleep)", rq, t)
	}
	c.calls["Dequeue"]++
	r := c.handle("Dequeue", rq)
	c.inner.Dequeue(r, t, flags)
	r.done = true
}

func (c *contractClass) CheckPreempt(rq sched.RQ, t *sched.Task, wakeFlags int) {
	c.on("CheckPreempt", rq, t)
	if rq.Curr() == nil {
		c.fail("CheckPreempt on idle cpu %d", rq.CPU())
	}
	if e := c.enqueued[rq.CPU()]; e.t != t || e.now != rq.Now() {
		c.fail("CheckPreempt of pid %d on cpu %d without its Enqueue just before", t.PID, rq.CPU())
	}
	c.calls["CheckPreempt"]++
	r := c.handle("CheckPreempt", rq)
	c.inner.CheckPreempt(r, t, wakeFlags)
	r.done = true
}

func (c *contractClass) PutPrev(rq sched.RQ, prev *sched.Task) {
	c.on("PutPrev", rq, prev)
	c.running("PutPrev", rq, prev)
	c.calls["PutPrev"]++
	r := c.handle("PutPrev", rq)
	c.inner.PutPrev(r, prev)
	r.done = true
	c.pendingPut[rq.CPU()] = true
}

func (c *contractClass) PickNext(rq sched.RQ) *sched.Task {
	c.calls["PickNext"]++
	r := c.handle("PickNext", rq)
	delete(c.pendingPut, rq.CPU())
	t := c.inner.PickNext(r)
	r.done = true
	if t != nil {
		c.on("PickNext (picked)", rq, t)
	}
	return t
}

func (c *contractClass) Tick(rq sched.RQ, curr *sched.Task, queued bool) {
	c.on("Tick", rq, curr)
	c.running("Tick", rq, curr)
	c.calls["Tick"]++
	r := c.handle("Tick", rq)
	c.inner.Tick(r, curr, queued)
	r.done = true
}

func (c *contractClass) Yield(rq sched.RQ, curr *sched.Task) {
	c.running("Yield", rq, curr)
	c.calls["Yield"]++
	r := c.handle("Yield", rq)
	c.inner.Yield(r, curr)
	r.done = true
}

func (c *contractClass) SetNice(rq sched.RQ, t *sched.Task, nice int) {
	c.on("SetNice", rq, t)
	c.calls["SetNice"]++
	r := c.handle("SetNice", rq)
	c.inner.SetNice(r, t, nice)
	r.done = true
}

func (c *contractClass) TaskDead(rq sched.RQ, t *sched.Task) {
	c.on("TaskDead", rq, t)
	if rq.Curr() == t {
		c.fail("TaskDead of pid %d while it still runs on cpu %d", t.PID, rq.CPU())
	}
	c.calls["TaskDead"]++
	r := c.handle("TaskDead", rq)
	c.inner.TaskDead(r, t)
	r.done = true
}

func (c *contractClass) MigrateTask(src, dst sched.RQ, t *sched.Task, wakeup bool) {
	c.on("MigrateTask (src)", src, t)
	if src.CPU() == dst.CPU() {
		c.fail("MigrateTask of pid %d from cpu %d to itself", t.PID, src.CPU())
	}
	c.calls["MigrateTask"]++
	if wakeup {
		c.calls["MigrateTask (wakeup)"]++
	}
	s, d := c.handle("MigrateTask", src), c.handle("MigrateTask", dst)
	c.inner.MigrateTask(s, d, t, wakeup)
	s.done, d.done = true, true
}

// CheckInvariants implements sched.Checker for the class inside.
func (c *contractClass) CheckInvariants(now int64, runnable [][]*sched.Task) error {
	if ck, ok := c.inner.(sched.Checker); ok {
		return ck.CheckInvariants(now, runnable)
	}
	return nil
}

// contractLoad exercises every hook on three CPUs: forks (a thread whose
// children exit), task groups, nice changes between phases, yields, sleeps
// and wakeups that move tasks, and load balancing.
const contractLoad = `{
  "global": {"taskgroups": {"/a": {"shares": 512}, "/a/b": {"shares": 2048}}},
  "tasks": {
    "spawner": {"run": 3000, "fork": "child", "sleep": 2000},
    "child": {"instance": 0, "loop": 1, "taskgroup": "/a/b", "run": 1500, "sleep": 500, "run1": 700},
    "hog": {"instance": 2, "taskgroup": "/a", "run": 10000, "yield": 0, "run1": 4000, "sleep": 6000},
    "renicer": {"loop": -1, "phases": {
      "p0": {"priority": 0, "run": 5000, "sleep": 1000},
      "p1": {"priority": 5, "run": 3000, "sleep": 3000},
      "p2": {"priority": -3, "run": 2000, "sleep": 500}}},
    "sleeper": {"instance": 4, "run": 300, "sleep": 4000}
  }
}`

// The engine hands each hook the run queues it acts on, as sched.Class
// documents, and every class works from those alone: given a new RQ value
// at every call, each policy (with its hrtick too, where it has one) runs
// the same simulation, event for event, as when it is given the engine's
// own CPUs, and never touches a handle after its call returned. The
// wrapper is no sched.Clocked, so a class that reads the engine's clock
// (cfs) asks each RQ's Now instead: the two readings give the same run.
func TestClassesUseOnlyTheRQsTheyAreGiven(t *testing.T) {
	for _, policy := range sched.Profiles() {
		prof, _ := sched.Lookup(policy)
		featureSets := []map[string]bool{nil}
		if prof.Feature("HRTICK") != nil {
			featureSets = append(featureSets, map[string]bool{"HRTICK": true})
		}
		for _, feats := range featureSets {
			name := fmt.Sprintf("%s%v", policy, feats)
			plain := &trace.Recorder{}
			run(t, sim.Config{Spec: spec(t, contractLoad), Sched: schedConfig(t, policy, 3, feats, nil),
				Duration: 300e6, Seed: 7, Sink: plain, Check: true})

			cfg := schedConfig(t, policy, 3, feats, nil)
			var cc *contractClass
			p := *cfg.Profile
			p.New = func(c *sched.Config) (sched.Class, error) {
				inner, err := prof.New(c)
				cc = newContract(inner)
				return cc, err
			}
			cfg.Profile = &p
			wrapped := &trace.Recorder{}
			run(t, sim.Config{Spec: spec(t, contractLoad), Sched: cfg, Duration: 300e6, Seed: 7, Sink: wrapped, Check: true})

			for _, v := range cc.violations {
				t.Errorf("%s: %s", name, v)
			}
			for _, hook := range []string{"TaskNew", "Fork", "Fork to another CPU", "Enqueue", "Dequeue", "CheckPreempt",
				"PutPrev", "PickNext", "Tick", "Yield", "SetNice", "TaskDead", "MigrateTask", "MigrateTask (wakeup)"} {
				if cc.calls[hook] == 0 {
					t.Errorf("%s: the workload never called %s", name, hook)
				}
			}
			if !reflect.DeepEqual(plain.Events, wrapped.Events) {
				t.Errorf("%s: %d events given the engine's CPUs, %d given a new RQ per call, or different ones",
					name, len(plain.Events), len(wrapped.Events))
			}
		}
	}
}

// keepsRQ keeps the RQ of its last Enqueue and asks it for the time at the
// next tick, as a class that caches the engine's handle would.
type keepsRQ struct {
	sched.Class
	last sched.RQ
}

func (k *keepsRQ) Enqueue(rq sched.RQ, t *sched.Task, flags int) {
	k.last = rq
	k.Class.Enqueue(rq, t, flags)
}

func (k *keepsRQ) Tick(rq sched.RQ, curr *sched.Task, queued bool) {
	if k.last != nil {
		k.last.Now()
	}
	k.Class.Tick(rq, curr, queued)
}

// The contract test catches a class that keeps a handle.
func TestContractCatchesAKeptRQ(t *testing.T) {
	cfg := schedConfig(t, "cfs-2.6.35", 1, nil, nil)
	orig := cfg.Profile
	prof := *orig
	var cc *contractClass
	prof.New = func(c *sched.Config) (sched.Class, error) {
		inner, err := orig.New(c)
		cc = newContract(&keepsRQ{Class: inner})
		return cc, err
	}
	cfg.Profile = &prof
	run(t, sim.Config{Spec: spec(t, `{"tasks": {"a": {"run": 5000, "sleep": 1000}, "b": {"run": 20000}}}`),
		Sched: cfg, Duration: 100e6})
	if len(cc.violations) == 0 || !strings.Contains(cc.violations[0], "Now on cpu 0's RQ from an earlier Enqueue call") {
		t.Fatalf("violations %q, want a kept Enqueue RQ", cc.violations)
	}
}

// A configuration resolved for a machine runs only on an engine with that
// tick: the class's model of the tick is the engine's.
func TestConfigForAnotherTickIsRefused(t *testing.T) {
	prof, _ := sched.Lookup("eevdf-6.18")
	cfg, err := prof.NewConfigFor(sched.Machine{NCPU: 1, TickNS: 1000000}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := spec(t, `{"tasks": {"hog": {"run": 1000}}}`)
	p := sim.DefaultParams() // HZ 250
	if _, err := sim.New(sim.Config{Spec: sp, Sched: cfg, Params: p, Duration: 1e9}); err == nil || !strings.Contains(err.Error(), "1000000 ns tick") {
		t.Fatalf("HZ 250 with a class configured for a 1 ms tick: %v", err)
	}
	p.HZ = 1000
	if _, err := sim.New(sim.Config{Spec: sp, Sched: cfg, Params: p, Duration: 1e9}); err != nil {
		t.Fatal(err)
	}
}
