package sim

import (
	"math/rand/v2"
	"testing"

	"schedlab/workload"
)

func parseSpec(t *testing.T, js string) *workload.Spec {
	t.Helper()
	sp, err := workload.Parse("test.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// The balancer's searches through the CPU masks (cpuChanged) answer what
// the scans over every CPU they replaced answer, at many moments of runs
// whose CPUs go idle, fill and empty through wakeups, forks, exits,
// affinity and migrations; the run's invariant checks compare the masks
// with a scan after every event.
func TestCPUMasksMatchScans(t *testing.T) {
	affinity := `{"tasks": {
		"a": {"instance": 12, "run": {"dist": "exponential", "mean": 300}, "sleep": {"dist": "exponential", "mean": 900}},
		"pinned": {"instance": 6, "cpus": [1, 4, 6], "run": {"dist": "exponential", "mean": 700}, "sleep": {"dist": "exponential", "mean": 400}},
		"spawner": {"run": 200, "fork": "child", "sleep": {"dist": "exponential", "mean": 300}},
		"child": {"instance": 0, "loop": 1, "run": {"dist": "exponential", "mean": 2000}}}}`
	make40, _, err := workload.Load("wakeup-latency-make-j40", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		sp   *workload.Spec
		ncpu int
		llc  int64
	}{{"affinity/8", parseSpec(t, affinity), 8, 0}, {"affinity/8/llc3", parseSpec(t, affinity), 8, 3},
		{"affinity/67/llc16", parseSpec(t, affinity), 67, 16}, {"make-j40/4", make40, 4, 0}, {"make-j40/70/llc8", make40, 70, 8}} {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultParams()
			p.LLCSize = c.llc
			e, err := New(Config{Spec: c.sp, Sched: policyConfig(t, "cfs-2.6.35", c.ncpu), Params: p,
				Duration: 1e9, Seed: 5, Check: true})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			checked := 0
			for now := int64(0); now < 1e9 && e.err == nil; now += 1e6 + rng.Int64N(3e6) {
				if err := e.Advance(now); err != nil {
					t.Fatal(err)
				}
				for _, tk := range e.alive.list {
					if tk == nil || rng.IntN(4) != 0 {
						continue
					}
					var parent *Task
					if rng.IntN(2) == 0 {
						parent = e.alive.list[rng.IntN(len(e.alive.list))]
					}
					if got, want := e.selectForkCPU(tk, parent), e.scanForkCPU(tk, parent); got != want {
						t.Fatalf("at %d ns: fork placement of %s (parent %v): %d, a scan finds %d", e.now, tk.st.Comm, parent != nil, got, want)
					}
					target := rng.IntN(c.ncpu)
					if got, want := e.idleSibling(tk, target), scanIdleSibling(e, tk, target); got != want {
						t.Fatalf("at %d ns: idle sibling of cpu %d for %s: %d, a scan finds %d", e.now, target, tk.st.Comm, got, want)
					}
					checked++
				}
				for _, dst := range e.cpus {
					want := scanPullSource(e, dst)
					if got := e.waitingCPUs.Top(dst.id); got != want {
						t.Fatalf("at %d ns: pull to cpu %d takes from %d, a scan finds %d", e.now, dst.id, got, want)
					}
				}
			}
			if checked < 1000 {
				t.Fatalf("only %d placements compared", checked)
			}
		})
	}
}

// The scans the masks replaced, as smp.go had them.

func scanIdleSibling(e *Engine, t *Task, target int) int {
	if e.cpus[target].curr == nil && e.cpus[target].nr == 0 {
		return target
	}
	n := len(e.cpus)
	for k := 1; k < n; k++ {
		i := (target + k) % n
		c := e.cpus[i]
		if c.curr == nil && c.nr == 0 && t.allowedOn(i) && e.sharesCache(i, target) {
			return i
		}
	}
	return target
}

func scanPullSource(e *Engine, dst *CPU) int {
	var src *CPU
	for _, c := range e.cpus {
		if c == dst || c.nr-e.running(c) < 1 {
			continue
		}
		if src == nil || c.nr > src.nr {
			src = c
		}
	}
	if src == nil {
		return -1
	}
	return src.id
}
