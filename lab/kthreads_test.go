package lab

import (
	"strings"
	"testing"
	"time"

	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// A machine's kernel threads run and preempt, but their wakeups are not
// samples and they are not in the task table: what is left is the
// workload's, as in a recording's analysis.
func TestKernelThreadsLeftOutOfTheFigures(t *testing.T) {
	spec, err := workload.Parse("exits.json", []byte(`{"tasks": {"hog": {"run": 100000},
		"spawner": {"timer": {"ref": "s", "period": 10000}, "run": 20, "fork": "child"},
		"child": {"instance": 0, "loop": 1, "run": 100}}}`))
	if err != nil {
		t.Fatal(err)
	}
	k := &sim.KernelThreads{WakeDelay: 4000, Periodic: []sim.PeriodicThread{{Comm: "kworker/0:2", Run: 2800, Period: 100_000_000}},
		RCU: &sim.RCUThread{Comm: "rcu_preempt", Run: 600, GPTicks: 1}}
	var kwakes, wakes int
	sink := sinkFunc(func(e *trace.Event) {
		if e.Kind == trace.Wakeup || e.Kind == trace.WakeupNew {
			if sim.IsKernelPID(e.PID) {
				kwakes++
			} else {
				wakes++
			}
		}
	})
	oc, err := Simulate(Request{Spec: spec, Name: "exits.json", Policy: "eevdf-6.12", Duration: time.Second, Seed: 1,
		Kernel: k, Keep: Keep{Samples: true, Sink: sink}})
	if err != nil {
		t.Fatal(err)
	}
	if kwakes < 150 {
		t.Fatalf("kernel threads woken %d times beside 100 exits, want at least 150", kwakes)
	}
	if got := len(oc.Wakeup); got != wakes {
		t.Errorf("%d wakeup samples, want the workload's %d wakeups (the kernel threads' %d left out)", got, wakes, kwakes)
	}
	var ms float64
	for _, row := range oc.Report.Tasks {
		if row.Comm == "rcu_preempt" || row.Comm == "kworker/0:2" {
			t.Errorf("kernel thread %s in the task table", row.Comm)
		}
		ms += row.RuntimeMS
	}
	if ms >= 1000 {
		t.Errorf("the table's tasks ran %.3f ms of 1000: the kernel threads' time is in it", ms)
	}
	if !strings.Contains(strings.Join(oc.Report.Warnings, "\n"), "2 task(s) of the simulated machine") {
		t.Errorf("warnings %q do not count the kernel threads", oc.Report.Warnings)
	}
}

type sinkFunc func(*trace.Event)

func (f sinkFunc) Event(e *trace.Event) { f(e) }

// With Started the first runs of the tasks the run starts with are not
// samples (a recording that began after they were forked has none), but
// a forked thread's first run and every later wakeup still are: on a
// spawner that forks a child every 10 ms, exactly one sample fewer per
// initial task.
func TestStartedLeavesOutTheInitialFirstRuns(t *testing.T) {
	spec, err := workload.Parse("spawn.json", []byte(`{"tasks": {"hog": {"run": 100000},
		"spawner": {"timer": {"ref": "s", "period": 10000}, "run": 20, "fork": "child"},
		"child": {"instance": 0, "loop": 1, "run": 100}}}`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(started bool) []int64 {
		oc, err := Simulate(Request{Spec: spec, Name: "spawn.json", Policy: "cfs-6.1", Duration: 100 * time.Millisecond, Seed: 1,
			Started: started, Keep: Keep{Samples: true}})
		if err != nil {
			t.Fatal(err)
		}
		return oc.Wakeup
	}
	all, started := run(false), run(true)
	if len(started) != len(all)-2 || len(all) < 20 {
		t.Fatalf("%d samples with Started, %d without: want the 2 initial tasks' first runs fewer", len(started), len(all))
	}
}
