package vm_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"schedlab/internal/hosttest"
	"schedlab/lab"
	"schedlab/vm"
	"schedlab/workload"
)

// TestMain makes this test binary a guest's init when the launcher boots
// it (the VM test passes it as Init): it then runs the request and powers
// the machine off instead of running tests.
func TestMain(m *testing.M) { hosttest.Main(m) }

// vmWorkload is a 10 ms rt-app timer beside a busy loop, and a task that
// forks a process every 100 ms: timers, wakeups, thread and process
// forks, each in countable numbers.
const vmWorkload = `{"global": {"duration": 2}, "tasks": {
	"tick": {"timer": {"ref": "t", "period": 10000}, "run": 200},
	"hog": {"run": 5000, "sleep": 1000},
	"spawner": {"sleep": 100000, "fork": "child"},
	"child": {"instance": 0, "process": true, "loop": 1, "run": 1000}
}}`

// A 2 s workload in Debian's 6.1 (CFS) under QEMU, with NO_START_DEBIT:
// the feature reaches the kernel, and the recording comes back whole and
// consistent, as a host run's (host_test.go's TestRunOnHost). Never a
// latency threshold.
func TestMeasureInVM(t *testing.T) {
	k := hosttest.Kernel(t, "debian-6.1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := workload.Parse("vm.json", []byte(vmWorkload))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := vm.Measure(ctx, vm.Options{Kernel: k, VCPUs: 1, Name: "vm.json", Workload: []byte(vmWorkload),
		Duration: 2 * time.Second, Seed: 1, Warmup: 200 * time.Millisecond, Init: exe, Log: &log,
		Features: []string{"NO_START_DEBIT"}, Runs: 2})
	t.Logf("%s", log.String())
	if err != nil {
		t.Fatal(err)
	}
	// One boot, two runs, each with its own seed; the guest's scheduler
	// settings and costs came back.
	if len(res.Recordings) != 2 || res.Recordings[0].Seed != 1 || res.Recordings[1].Seed != 2 {
		t.Fatalf("%d recordings (seeds %v), want 2 with seeds 1 and 2", len(res.Recordings), seeds(res))
	}
	if res.Sched == nil || !slices.Contains(res.Sched.Features, "NO_START_DEBIT") || res.Sched.Tunables["sched_latency_ns"] <= 0 {
		t.Errorf("the guest's scheduler settings: %+v", res.Sched)
	}
	if c := res.Costs; c == nil || c.ContextSwitchNS <= 0 || c.CloneNS <= 0 || c.ForkExecNS <= c.CloneNS || c.TimerNS <= 0 {
		t.Errorf("the guest's costs: %+v", res.Costs)
	}
	if len(res.Recordings[1].Trace) == 0 {
		t.Errorf("the second run has no trace")
	}
	rec := res.Recordings[0]
	rec.Spec = spec
	// The feature reached the kernel's features file, read back after.
	set := false
	for _, n := range res.Guest {
		if strings.HasPrefix(n, "sched features set") && strings.Contains(n+" ", " NO_START_DEBIT ") {
			set = true
		}
	}
	if !set {
		t.Errorf("NO_START_DEBIT is not in the guest's features file; init's notes: %q", res.Guest)
	}
	if len(rec.WorkerErrors) > 0 {
		t.Errorf("worker errors: %q", rec.WorkerErrors)
	}
	if !strings.HasPrefix(rec.Facts.Kernel, "6.1.") || res.Kernel.Sched() != "CFS" {
		t.Errorf("guest kernel %q (%s), want 6.1 CFS", rec.Facts.Kernel, res.Kernel.Sched())
	}
	oc, err := lab.AnalyzeVM(res, 0, "vm.json", lab.Keep{})
	if err != nil {
		t.Fatal(err)
	}
	r := oc.Report
	for _, want := range []string{"kernel debian-6.1", "1 vCPU(s)", "virtual time: icount"} {
		if !strings.Contains(r.Headline, want) {
			t.Errorf("headline lacks %q:\n%s", want, r.Headline)
		}
	}
	t.Logf("boot %.1f s, wall %.1f s; timer %+v; wakeup %+v", res.Boot.Seconds(), res.Wall.Seconds(), r.TimerLatency, r.WakeupLatency)

	w := hosttest.Follow(t, rec.Trace, rec.RootPID, rec.End)
	comms, forks := w.Comms, w.Forks
	for _, c := range []string{"tick", "hog", "spawner", "child"} {
		if comms[c] == 0 {
			t.Errorf("no switch-out of a task named %q; seen %v", c, comms)
		}
	}
	// 2 s of a 10 ms timer: about 200 expiries, each a sample or missed.
	expiries := r.TimerLatency.Count
	if r.TimerLatency.Missed != nil {
		expiries += *r.TimerLatency.Missed
	}
	if expiries < 180 || expiries > 202 {
		t.Errorf("%d timer samples + missed, want about 200", expiries)
	}
	for _, s := range oc.Timer {
		if s < 0 {
			t.Errorf("negative timer sample %d ns", s)
		}
	}
	for _, s := range oc.Wakeup {
		if s < 0 {
			t.Errorf("negative wakeup sample %d ns", s)
		}
	}
	if r.WakeupLatency.Count == 0 {
		t.Errorf("no wakeup samples")
	}
	// The spawner forks a process every 100 ms: about 20, and the
	// workload's own threads.
	if comms["child"] < 15 || forks < 15+3 {
		t.Errorf("%d child switch-outs, %d forks; want about 20 children", comms["child"], forks)
	}
	if rec.Overrun != 0 || rec.Dropped != 0 {
		t.Errorf("events lost: overrun %d dropped %d", rec.Overrun, rec.Dropped)
	}
}

func seeds(res *vm.Result) []uint64 {
	var out []uint64
	for _, r := range res.Recordings {
		out = append(out, r.Seed)
	}
	return out
}
