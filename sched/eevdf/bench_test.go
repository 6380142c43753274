package eevdf

import (
	"fmt"
	"testing"

	"schedlab/sched"
)

// BenchmarkQueueOps measures the class's cost per scheduler event with 10
// and 10,000 queued tasks of mixed nice levels. One op is a cycle the
// engine drives all the time: a tick, the running task blocks (Dequeue
// with DEQUEUE_SLEEP — it may stay queued as delayed — PutPrev, PickNext),
// and the task that blocked n/10+1 cycles ago wakes (Enqueue,
// CheckPreempt, and a switch if asked). Every structure is logarithmic, so 10,000 tasks
// should cost little more per event than 10.
func BenchmarkQueueOps(b *testing.B) {
	for _, n := range []int{10, 10000} {
		for _, p := range []string{"eevdf-6.6", "eevdf-6.18"} {
			b.Run(fmt.Sprintf("%s/n=%d", p, n), func(b *testing.B) { benchQueue(b, p, n) })
		}
	}
}

func benchQueue(b *testing.B, policy string, n int) {
	c := newClass(b, policy, nil, nil)
	rq := &fakeRQ{}
	for i := 0; i < n; i++ {
		t := newTask(c, i%11-5)
		c.Fork(rq, rq, nil, t)
		c.Enqueue(rq, t, 0)
	}
	schedule(c, rq)
	// Sleepers wake in order, k cycles after they blocked (a ring).
	k := n/10 + 1
	ring := make([]*sched.Task, k+1)
	head, tail := 0, 0
	events := 0
	cycle := func() {
		rq.now += 37000
		c.Tick(rq, rq.curr, false)
		prev := rq.curr
		c.Dequeue(rq, prev, sched.DequeueSleep)
		ring[tail] = prev
		tail = (tail + 1) % len(ring)
		schedule(c, rq)
		events += 3
		if (tail-head+len(ring))%len(ring) < k {
			return
		}
		w := ring[head]
		head = (head + 1) % len(ring)
		rq.now += 1000
		c.Enqueue(rq, w, sched.EnqueueWakeup)
		c.CheckPreempt(rq, w, 0)
		events += 2
		if rq.resched {
			schedule(c, rq)
			events++
		}
	}
	for i := 0; i < 2*n; i++ { // reach a steady mix of lags and delayed tasks
		cycle()
	}
	events = 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cycle()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
