package cfs

import (
	"strings"
	"testing"

	"schedlab/sched"
	"schedlab/sim"
	"schedlab/workload"
)

// brokenMinV moves the root queue's whole virtual clock (min_vruntime and
// every entity on it) 100 ms back at the 10th tick, as a class that forgot
// the monotonic clamp would: further than the tick's own charge moved it
// forward.
type brokenMinV struct {
	*CFS
	ticks int
}

func (b *brokenMinV) Tick(rq sched.RQ, curr *sched.Task, queued bool) {
	b.CFS.Tick(rq, curr, queued)
	if b.ticks++; b.ticks == 10 {
		q := &b.cpus[0].root
		const back = 100000000
		q.minV -= back
		if q.curr != nil {
			q.curr.vruntime -= back
		}
		for i := 0; i < q.tree.len(); i++ {
			q.tree.at(i).vruntime -= back
		}
	}
}

// lostTask forgets to enqueue the third task that wakes.
type lostTask struct {
	*CFS
	wakes int
}

func (l *lostTask) Enqueue(rq sched.RQ, t *sched.Task, flags int) {
	if flags&sched.EnqueueWakeup != 0 {
		if l.wakes++; l.wakes == 3 {
			return
		}
	}
	l.CFS.Enqueue(rq, t, flags)
}

func runBroken(t *testing.T, wrap func(*CFS) sched.Class, check bool) error {
	t.Helper()
	sp, err := workload.Parse("t.json", []byte(`{"tasks": {"hog": {"instance": 2, "run": 100000},
		"s": {"run": 500, "sleep": 3000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	prof, _ := sched.Lookup("cfs-2.6.35")
	p := *prof
	p.New = func(c *sched.Config) (sched.Class, error) {
		cl, err := New(c)
		if err != nil {
			return nil, err
		}
		return wrap(cl.(*CFS)), nil
	}
	cfg, err := p.NewConfig(1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := sim.New(sim.Config{Spec: sp, Sched: cfg, Params: sim.DefaultParams(), Duration: 1e9, Check: check})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run()
	return err
}

func TestCheckCatchesBrokenInvariants(t *testing.T) {
	for _, c := range []struct {
		name string
		wrap func(*CFS) sched.Class
		want string
	}{
		{"min_vruntime back", func(c *CFS) sched.Class { return &brokenMinV{CFS: c} }, "min_vruntime went back"},
		{"task lost", func(c *CFS) sched.Class { return &lostTask{CFS: c} }, "in the fair queues"},
	} {
		err := runBroken(t, c.wrap, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: --check gave %v, want an error containing %q", c.name, err, c.want)
		}
		// Without checking, the broken min_vruntime goes unnoticed.
		if c.name == "min_vruntime back" {
			if err := runBroken(t, c.wrap, false); err != nil {
				t.Errorf("%s without --check: %v", c.name, err)
			}
		}
	}
	if err := runBroken(t, func(c *CFS) sched.Class { return c }, true); err != nil {
		t.Fatalf("the unbroken class fails its checks: %v", err)
	}
}
