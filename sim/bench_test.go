package sim_test

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"

	"schedlab/analyze"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// busyWorkload keeps the CPU busy with hogs, periodic sleepers and timers,
// and creates no tasks after the start, so a long run is steady state.
const busyWorkload = `{"tasks": {
	"hog": {"instance": 4, "run": 100000},
	"periodic": {"instance": 4, "timer": {"ref": "unique", "period": 1000}, "run": 100},
	"sleeper": {"instance": 4, "run": 300, "sleep": 700}}}`

// chainWorkload adds task-to-task wakeups (suspend/resume) and an input
// source whose sample token travels along the chain.
const chainWorkload = `{"tasks": {
	"hog": {"instance": 2, "run": 100000},
	"x": {"timer": {"ref": "kbd", "period": 1000, "notify": "input"}, "run": 50, "resume": "t", "suspend": 0, "run1": 50, "latency_end": 0},
	"t": {"suspend": 0, "run": 100, "resume": "x"},
	"periodic": {"instance": 2, "timer": {"ref": "unique", "period": {"dist": "uniform", "min": 500, "max": 1500}}, "run": 100}}}`

// benchEngine simulates the busy workload for b.N·10 ms and reports the
// cost per engine event and allocations per event.
func benchEngine(b *testing.B, sink func() trace.Sink) {
	benchWorkload(b, busyWorkload, sink)
}

// cpuNS returns the process's CPU time (user + sys, all threads, so the
// garbage collector's work on the other core counts): on a shared machine
// it varies less than the wall clock.
func cpuNS(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchWorkload(b *testing.B, workload string, sink func() trace.Sink) {
	sp := spec(b, workload)
	cfg := schedConfig(b, "cfs-2.6.35", 1, nil, nil)
	e, err := sim.New(sim.Config{Spec: sp, Sched: cfg, Params: sim.DefaultParams(), Duration: int64(b.N) * 10e6, Sink: sink()})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runTimed(b, e, 0)
}

// runTimed runs e to its end as b's timed part and reports, per event run
// after the first ev0, wall and CPU ns, allocations, and events per op;
// it returns where the run ended and the memory statistics after it.
func runTimed(b *testing.B, e *sim.Engine, ev0 uint64) (int64, runtime.MemStats) {
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	cpu0 := cpuNS(b)
	end, err := e.Run()
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuNS(b) - cpu0
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	ev := float64(e.Events() - ev0)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ev, "ns/event")
	b.ReportMetric(float64(cpu)/ev, "cpu-ns/event")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/ev, "allocs/event")
	b.ReportMetric(ev/float64(b.N), "events/op")
	return end, ms1
}

func BenchmarkEngine(b *testing.B) {
	benchEngine(b, func() trace.Sink { return nil })
}

func BenchmarkEngineWithAnalysis(b *testing.B) {
	benchEngine(b, func() trace.Sink { return analyze.New() })
}

func BenchmarkEngineResumeChain(b *testing.B) {
	benchWorkload(b, chainWorkload, func() trace.Sink { return nil })
}

// The reference: one push and one pop on a container/heap of timers of the
// size the engine's queue has in the busy workload.
type refItem struct {
	when int64
	seq  uint64
}
type refHeap []*refItem

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}
func (h refHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(*refItem)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// The floor: the same push and pop on a typed binary heap of 16-byte
// values, with no interface calls, pointers or allocation.
type typedItem struct {
	when int64
	seq  uint64
}

type typedHeap []typedItem

func (h typedHeap) less(i, j int) bool {
	return h[i].when < h[j].when || h[i].when == h[j].when && h[i].seq < h[j].seq
}

func (h *typedHeap) push(x typedItem) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *typedHeap) pop() typedItem {
	q := *h
	x := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && q.less(c+1, c) {
			c++
		}
		if !q.less(c, i) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	*h = q
	return x
}

func BenchmarkTypedHeapPushPop(b *testing.B) {
	var h typedHeap
	for i := 0; i < 16; i++ {
		h.push(typedItem{when: int64(i) * 1000, seq: uint64(i)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNS(b)
	for i := 0; i < b.N; i++ {
		x := h.pop()
		x.when += 16000
		x.seq += 16
		h.push(x)
	}
	b.ReportMetric(float64(cpuNS(b)-cpu0)/float64(b.N), "cpu-ns/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
}

// BenchmarkMemoryChase is the scaling goals' other floor: one load that
// depends on the one before, each on another 64-byte line picked at
// random from a set of the given size, as a wakeup reaches a task that
// has slept for thousands of events. On the machine of issue 16 (a VM,
// 2 MiB of L2 a core, a shared L3 of which it gets a part) a set of up
// to 4 MiB answers in 6-55 ns, one of 6 MiB in 45-95, and one of 8 MiB
// or more in 110-180 ns, more than a whole event of 10 tasks; huge pages
// (tried by hand, with madvise) moved neither. So what a large size's tasks hold in the
// cache decides its cost: while every sleeping task's lines fit in about
// 6 MiB its misses cost tens of ns, beyond they cost an event each
// (Task's hot part, warm; scripts/cg-per-event.sh counts the misses of
// a 6 MiB last level).
func BenchmarkMemoryChase(b *testing.B) {
	for _, kb := range []int{256, 1024, 2048, 4096, 6144, 8192, 32768} {
		b.Run(fmt.Sprintf("kb=%d", kb), func(b *testing.B) {
			n := kb << 10 / 64
			next := make([]int32, n*16) // the link in each line's first word
			perm := rand.New(rand.NewPCG(1, 2)).Perm(n)
			for i, l := range perm {
				next[l*16] = int32(perm[(i+1)%n] * 16)
			}
			p := int32(perm[0] * 16)
			b.ResetTimer()
			cpu0 := cpuNS(b)
			for i := 0; i < b.N; i++ {
				p = next[p]
			}
			b.ReportMetric(float64(cpuNS(b)-cpu0)/float64(b.N), "cpu-ns/load")
			if p < 0 {
				b.Fatal("no cycle")
			}
		})
	}
}

func BenchmarkContainerHeapPushPop(b *testing.B) {
	h := &refHeap{}
	items := make([]*refItem, 16)
	for i := range items {
		items[i] = &refItem{when: int64(i) * 1000, seq: uint64(i)}
		heap.Push(h, items[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNS(b)
	for i := 0; i < b.N; i++ {
		x := heap.Pop(h).(*refItem)
		x.when += 16000
		x.seq += 16
		heap.Push(h, x)
	}
	b.ReportMetric(float64(cpuNS(b)-cpu0)/float64(b.N), "cpu-ns/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
}

// BenchmarkTasks measures the cost per engine event as the number of tasks
// grows, at a constant CPU demand: each task runs 500 µs on average and
// sleeps in proportion to the task count, so that the tasks ask for 90 %
// of the CPUs (or, when there are fewer tasks than CPUs, each task for 90 %
// of one). The queues are logarithmic and the balancer's CPU searches use
// masks, so 10,000 tasks should cost little more per event than ten
// (issue 16: ≤ 1.5×, on 1 and on 256 CPUs). The start, where every task
// forks at once, and the first sleeps run before the timer starts.
func BenchmarkTasks(b *testing.B) {
	for _, c := range []struct{ ncpu, n int }{{1, 10}, {1, 10000}, {256, 10}, {256, 10000}} {
		b.Run(fmt.Sprintf("cpus=%d/tasks=%d", c.ncpu, c.n), func(b *testing.B) { benchScale(b, c.ncpu, c.n) })
	}
}

// BenchmarkCPUs measures the cost per event as the machine grows, at 40
// tasks per CPU and 90 % demand (issue 16: ≤ 1.3× from 16 to 1,024 CPUs).
func BenchmarkCPUs(b *testing.B) {
	for _, ncpu := range []int{16, 64, 256, 1024} {
		b.Run(fmt.Sprintf("cpus=%d/tasks=%d", ncpu, 40*ncpu), func(b *testing.B) { benchScale(b, ncpu, 40*ncpu) })
	}
}

// BenchmarkHuge is the "it runs" sizes: 100,000 tasks on 1,024
// CPUs, and 1,000,000 tasks from one definition (on 1,024 CPUs, and on 1
// CPU, where every task waits on one queue). Run them with a small
// -benchtime (1x to 20x): the start alone forks every task.
func BenchmarkHuge(b *testing.B) {
	for _, c := range []struct{ ncpu, n int }{{1024, 100000}, {1024, 1000000}, {1, 1000000}} {
		b.Run(fmt.Sprintf("cpus=%d/tasks=%d", c.ncpu, c.n), func(b *testing.B) { benchScale(b, c.ncpu, c.n) })
	}
}

// benchScale runs n tasks of one definition on ncpu CPUs (BenchmarkTasks),
// one op being 1 ms of one busy CPU's time, and reports CPU ns, allocations and
// heap bytes per event after the warm-up.
func benchScale(b *testing.B, ncpu, n int) {
	demand := max(float64(n)/(0.9*float64(ncpu)), 1/0.9)
	sleep := int64(500 * (demand - 1))
	w := fmt.Sprintf(`{"tasks": {"t": {"instance": %d, "run": {"dist": "exponential", "mean": 500},
		"sleep": {"dist": "exponential", "mean": %d}}}}`, n, sleep)
	sp, err := workload.Parse("scale.json", []byte(w))
	if err != nil {
		b.Skip(err) // a tree whose input limit is below n (bench-compare's base)
	}
	// Three sleeps, so that the start is over, capped for the million
	// tasks on one CPU (whose first round alone takes 500 s).
	warm := min(max(sleep*1e3*3, 20e6), 60e9)
	e, err := sim.New(sim.Config{Spec: sp, Sched: schedConfig(b, "cfs-2.6.35", ncpu, nil, nil),
		Params: sim.DefaultParams(), Duration: warm + int64(b.N)*1e6/int64(min(ncpu, n)) + 1})
	if err != nil {
		b.Skip(err)
	}
	if err := e.Advance(warm); err != nil {
		b.Fatal(err)
	}
	_, ms := runTimed(b, e, e.Events())
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
}

// BenchmarkScenario runs built-in seed scenarios, on 1 and 64 CPUs, with
// the analysis attached (as `schedlab run` does), and reports the cost per
// engine event, allocations per event, and simulated seconds per wall
// second. The 64-CPU runs put 64× the load on the machine.
func BenchmarkScenario(b *testing.B) {
	for _, name := range []string{"sigev-thread", "wakeup-latency-calibrated-make-j10", "fair-user-sched"} {
		for _, ncpu := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/cpus=%d", name, ncpu), func(b *testing.B) {
				load := name
				if ncpu > 1 && name == "wakeup-latency-calibrated-make-j10" {
					load = fmt.Sprintf("wakeup-latency-calibrated-make-j%d", 10*ncpu)
				}
				sp, _, err := workload.Load(load, nil)
				if err != nil {
					b.Fatal(err)
				}
				if ncpu > 1 && name != "wakeup-latency-calibrated-make-j10" {
					for _, t := range sp.Tasks {
						if t.Instances > 0 {
							t.Instances *= ncpu
						}
					}
				}
				policy := "cfs-2.6.35"
				if name == "fair-user-sched" {
					policy = "cfs-2.6.24"
				}
				simNS := int64(b.N) * 1e7 // 10 ms of simulated time per op
				e, err := sim.New(sim.Config{Spec: sp, Sched: schedConfig(b, policy, ncpu, nil, nil), Params: sim.DefaultParams(),
					Duration: simNS, Sink: analyze.New()})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				end, _ := runTimed(b, e, 0)
				b.ReportMetric(float64(end)/float64(b.Elapsed().Nanoseconds()), "sim-s/wall-s")
			})
		}
	}
}
