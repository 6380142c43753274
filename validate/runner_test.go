package validate

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"schedlab/lab"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/vm"
	"schedlab/workload"
)

type forkLog []trace.Event

func (f *forkLog) Event(e *trace.Event) {
	if e.Kind == trace.Fork {
		*f = append(*f, *e)
	}
}

// The runner's start: its root busy VMRunnerStart, then its watch thread
// and the initial threads, by delay and in file order, forked
// VMRunnerSpawn apart by the root, with the comms the engine gives
// initial threads; the file's spec is left as it was.
func TestWithRunner(t *testing.T) {
	data := `{"global": {"duration": 0.2}, "tasks": {
		"late": {"delay": 50000, "run": 100, "sleep": 1000},
		"hog": {"instance": 2, "run": 5000},
		"tick": {"timer": {"ref": "t", "period": 10000}, "run": 200}}}`
	spec, err := workload.Parse("runner.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	const fork = 13800
	out := WithRunner(spec, fork, VMRunnerStart)
	if len(spec.Tasks) != 3 || spec.Tasks[1].Instances != 2 {
		t.Fatalf("the file's spec changed: %d tasks", len(spec.Tasks))
	}
	var forks forkLog
	_, err = lab.Simulate(lab.Request{Spec: out, Name: "runner", Policy: "cfs-6.1", CPUs: 1, Duration: 2e8, Seed: 1,
		Tunables: map[string]int64{sim.ParamFork: fork}, Keep: lab.Keep{Sink: &forks}})
	if err != nil {
		t.Fatal(err)
	}
	var comms []string
	var at []int64
	for _, f := range forks {
		if f.Comm == RunnerComm {
			comms, at = append(comms, f.ChildComm), append(at, f.TS)
		}
	}
	if want := []string{RunnerComm, "hog-0", "hog-1", "tick", "late"}; !slices.Equal(comms, want) {
		t.Fatalf("the root forked %q, want %q", comms, want)
	}
	// The root runs alone until its first fork: one CPU, nothing else
	// but its switch-in.
	if want := sim.DefaultParams().CostContextSwitch + VMRunnerStart + fork; at[0] != want {
		t.Errorf("watch thread forked at %d, want %d", at[0], want)
	}
	for i := 1; i < 4; i++ {
		if d := at[i] - at[i-1]; d < VMRunnerSpawn {
			t.Errorf("fork %d came %d ns after the one before, want at least %d", i, d, VMRunnerSpawn)
		}
	}
	if at[4] < at[3]+50_000_000 {
		t.Errorf("the delayed thread was forked at %d, before its delay after the others (%d)", at[4], at[3])
	}
}

// A VM run's simulation includes the runner: its comm has a share, and
// the same seed gives the same bytes.
func TestRunnerInVMSimulation(t *testing.T) {
	data := `{"global": {"duration": 0.3}, "tasks": {"tick": {"timer": {"ref": "t", "period": 10000}, "run": 200}, "hog": {"run": 5000}}}`
	spec, err := workload.Parse("tick.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	run := func() *Result {
		res := &Result{Scenario: "tick.json", Runs: 2, DurationNS: 3e8, CPUs: 1, Seed: 5, Workload: data,
			VM: &VMFacts{Facts: vm.Facts{Kernel: &vm.Kernel{Name: "gone", Image: "/nonexistent/vmlinuz", Release: "6.1.0-x"}, VCPUs: 1,
				Sched: &vm.Sched{}}, Release: "6.1.0-x", HZ: 250}}
		if err := res.simulate(spec); err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	ja, _ := json.Marshal(a.Sim)
	jb, _ := json.Marshal(b.Sim)
	if !bytes.Equal(ja, jb) {
		t.Errorf("same seed, different simulations:\n%s\n%s", ja, jb)
	}
	share := a.Sim[0].Shares[RunnerComm]
	// 20 ms of calibration in 300 ms, beside a busy loop's 280.
	if share < 0.06 || share > 0.08 {
		t.Errorf("the runner's share is %.3f, want about %.3f; shares %v", share, float64(VMRunnerStart)/3e8, a.Sim[0].Shares)
	}
}

// A resume that falls back to a definition of several instances falls
// back to its first instance's copy, as it fell back to the first
// instance; the file's events are left as they were.
func TestWithRunnerResume(t *testing.T) {
	data := `{"global": {"duration": 0.1}, "tasks": {
		"sleeper": {"instance": 2, "suspend": "sleeper", "run": 100},
		"waker": {"run": 1000, "resume": "sleeper", "sleep": 5000}}}`
	spec, err := workload.Parse("resume.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	target := func(s *workload.Spec) (string, int) {
		for _, task := range s.Tasks {
			for _, ph := range task.Phases {
				for _, e := range ph.Events {
					if e.Kind == workload.Resume && task.Name == "waker" {
						return s.Tasks[e.TargetDef].Name, e.TargetDef
					}
				}
			}
		}
		return "", -1
	}
	out := WithRunner(spec, 13800, VMRunnerStart)
	if name, _ := target(out); name != "sleeper-0" {
		t.Errorf("the resume falls back to %q, want sleeper-0", name)
	}
	if name, i := target(spec); name != "sleeper" || i != 0 {
		t.Errorf("the file's resume changed: %q (%d)", name, i)
	}
	if _, err := lab.Simulate(lab.Request{Spec: out, Name: "resume", Policy: "cfs-6.1", CPUs: 1, Duration: 1e8, Seed: 1}); err != nil {
		t.Fatal(err)
	}
}

// Only the first SIGEV_THREAD callback pays for its new stack: the first
// timer sample is VMColdCallback later, the others are as they were, and
// a helper that loops a finite number of times still fires that many.
func TestWithColdCallback(t *testing.T) {
	spec, _, err := workload.Load("wakeup-latency", nil)
	if err != nil {
		t.Fatal(err)
	}
	samples := func(s *workload.Spec) []int64 {
		o, err := lab.Simulate(lab.Request{Spec: s, Name: "wakeup-latency", Policy: "cfs-6.1", CPUs: 1, Duration: 2e8, Seed: 1, Keep: lab.Keep{Samples: true}})
		if err != nil {
			t.Fatal(err)
		}
		return o.Timer
	}
	warm, cold := samples(spec), samples(WithColdCallback(spec, VMColdCallback))
	if len(warm) < 10 || len(cold) != len(warm) {
		t.Fatalf("%d samples warm, %d cold", len(warm), len(cold))
	}
	if d := cold[0] - warm[0]; d != VMColdCallback {
		t.Errorf("the first callback is %d ns later, want %d", d, VMColdCallback)
	}
	if !slices.Equal(cold[1:], warm[1:]) {
		t.Errorf("later callbacks moved:\n%v\n%v", warm[1:6], cold[1:6])
	}
	if n := len(spec.Tasks[0].Phases); n != 1 {
		t.Errorf("the file's helper has %d phases now", n)
	}
	data := `{"global": {"duration": 0.2}, "tasks": {
		"sigev-helper": {"loop": 5, "timer": {"ref": "t", "period": 10000, "notify": "thread"}, "fork": "callback"},
		"callback": {"instance": 0, "loop": 1, "run": 20}}}`
	five, err := workload.Parse("five.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(samples(WithColdCallback(five, VMColdCallback))); n != 5 {
		t.Errorf("a helper of 5 loops fired %d callbacks", n)
	}
}

// With the guest's kernel threads on, a VM run's simulation runs them
// (its model says so) but leaves them out of the shares, and the same
// seed gives the same figures.
func TestGuestKernelThreadsLeftOutOfShares(t *testing.T) {
	b, err := os.ReadFile("../validation/fidelity/debian-6.12/sigev-thread.json")
	if err != nil {
		t.Skip(err)
	}
	load := func() *Result {
		var res Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		return &res
	}
	defer func(was bool) { GuestKernelThreads = was }(GuestKernelThreads)
	GuestKernelThreads = true
	a, c := load(), load()
	if err := Resimulate(a); err != nil {
		t.Fatal(err)
	}
	if err := Resimulate(c); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(a.Model, func(s string) bool { return strings.Contains(s, "kernel threads") }) {
		t.Errorf("model %q does not name the kernel threads", a.Model)
	}
	for _, r := range a.Sim {
		for comm := range r.Shares {
			if comm == "rcu_preempt" || strings.HasPrefix(comm, "kworker") || comm == "kcompactd0" {
				t.Errorf("kernel thread %s has a share", comm)
			}
		}
	}
	ja, _ := json.Marshal(a.Sim)
	jc, _ := json.Marshal(c.Sim)
	if string(ja) != string(jc) {
		t.Error("the same case simulated twice gave different figures")
	}
	GuestKernelThreads = false
	d := load()
	if err := Resimulate(d); err != nil {
		t.Fatal(err)
	}
	if jd, _ := json.Marshal(d.Sim); string(jd) == string(ja) {
		t.Error("the kernel threads changed nothing in sigev-thread's simulation (its callbacks exit every 10 ms)")
	}
}

// The kernels whose runs start at a fixed phase of the tick are 6.1's
// and 6.12's generations, whatever the patch level; their model sets it.
func TestRunnerTickPhase(t *testing.T) {
	for _, c := range []struct {
		release string
		aligned bool
	}{
		{"6.1.0-57-cloud-amd64", true}, {"6.1.192", true}, {"6.12.95+deb12-cloud-amd64", true},
		{"5.10.0-46-cloud-amd64", false}, {"7.2.13+deb14-cloud-amd64", false}, {"6.6.1", false}, {"6.11.2", false},
	} {
		ph, ok := runnerTickPhase(c.release)
		if ok != c.aligned || (ok && ph != VMRunnerTickPhase) {
			t.Errorf("runnerTickPhase(%q) = %d, %v; want aligned %v", c.release, ph, ok, c.aligned)
		}
		m, err := modelForVM(&vm.Kernel{Name: "k"}, nil, c.release, 250)
		if err != nil {
			t.Fatal(err)
		}
		if got, set := m.tunables[sim.ParamTickPhase]; set != c.aligned || (set && got != VMRunnerTickPhase) {
			t.Errorf("%s: the model's %s = %d (set %v), want set %v", c.release, sim.ParamTickPhase, got, set, c.aligned)
		}
	}
}

// On debian-6.12's two-hogs every traced run starts with the second hog
// waiting 3.6–3.7 ms behind the first until the tick (VMRunnerTickPhase):
// so does every simulated run at the kernel's phase, and not every one at
// a phase drawn from the seed.
func TestTickPhaseGivesTheTracedStart(t *testing.T) {
	b, err := os.ReadFile("../validation/fidelity/debian-6.12/two-hogs.json")
	if err != nil {
		t.Skip(err)
	}
	waits := func(set map[string]int64) (n int) {
		var res Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		res.SimSet = set
		if err := Resimulate(&res); err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Sim {
			if r.Wakeup.Max >= 3000 && r.Wakeup.Max < 4000 {
				n++
			}
		}
		if len(res.Sim) < 3 {
			t.Fatalf("%d simulated runs", len(res.Sim))
		}
		return n
	}
	if n := waits(nil); n != 3 {
		t.Errorf("%d of 3 runs at the kernel's phase have the start's wait, want 3", n)
	}
	if n := waits(map[string]int64{sim.ParamTickPhase: -1}); n == 3 {
		t.Errorf("every run at seeded phases has the start's wait: the test does not tell the phase")
	}
}

func TestRunnerTasksMarked(t *testing.T) {
	spec, _, err := workload.Load("wakeup-latency", nil)
	if err != nil {
		t.Fatal(err)
	}
	// In a VM run's simulation the runner's own tasks take no thread start.
	for _, d := range WithRunner(spec, VMFork, VMRunnerStart).Tasks {
		if d.Name == RunnerComm && !d.Runner {
			t.Errorf("a %s task is not marked Runner", RunnerComm)
		}
	}
}

// The launcher's stop: the launcher, outside the workload, wakes
// VMStopWake after the duration, walks VMStopWalk and kills: on two busy
// loops (6.1, HZ 250) the runner's root and watch thread, asleep since
// the start, are woken then, in PID order, and are two more wakeup
// samples, the root's the launcher's rest (VMStopAfter, which it is not
// preempted in: the root's session group is right of it) and its monitor
// thread's run, as the traced 23 µs; every thread exits, so the run ends
// before VMStopEnd. The launcher's own wakeup is no sample, nor is it in
// the table. A spec without the runner has no stop.
func TestWithRunnerStop(t *testing.T) {
	spec := load(t, "two-hogs")
	if _, n, ok := WithRunnerStop(spec, 2e9); ok || n != 2e9 {
		t.Errorf("a spec without the runner has a stop")
	}
	start := WithRunner(spec, VMFork, VMRunnerStart)
	l, n, ok := WithRunnerStop(start, 2e9)
	if !ok || n != 2e9+VMStopEnd || l.At != 2e9+VMStopWake || l.Walk != VMStopWalk {
		t.Fatalf("stop %+v, length %d", l, n)
	}
	const wakeup = 2000
	var kills []int64
	sink := sinkOf(func(e *trace.Event) {
		if e.Kind == trace.Waking && e.Comm == RunnerComm {
			kills = append(kills, e.TS)
		}
	})
	run := func(k *sim.KernelThreads, d int64, sk trace.Sink) *lab.Outcome {
		o, err := lab.Simulate(lab.Request{Spec: WithSession(start), Name: "two-hogs", Policy: "cfs-6.1", Duration: time.Duration(d), Seed: 1,
			Tunables: map[string]int64{sim.ParamHZ: 250, sim.ParamFork: VMFork, sim.ParamWakeup: wakeup}, Kernel: k, Started: true,
			Keep: lab.Keep{Samples: true, Sink: sk}})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	a := run(nil, 2e9, nil)
	b := run(&sim.KernelThreads{Launcher: l}, n, sink)
	if len(kills) != 2 || kills[0] < l.At+VMStopWalk || kills[1] != kills[0] {
		t.Fatalf("the runner's threads woken at %v, want both at once after %d", kills, l.At+VMStopWalk)
	}
	if end := b.Report.SimNS; end >= n || end < kills[0] {
		t.Errorf("the run ended at %d, want after the kill at %d and before %d", end, kills[0], n)
	}
	if len(b.Wakeup) != len(a.Wakeup)+2 {
		t.Fatalf("%d wakeups with the stop, %d without: want 2 more", len(b.Wakeup), len(a.Wakeup))
	}
	// The root waits for the walker's rest and the launcher's monitor
	// thread, woken during the walk, with its switch.
	if want := VMStopAfter + VMStopSpinRun + sim.DefaultParams().CostContextSwitch; !slices.Contains(b.Wakeup, want) {
		t.Errorf("no sample of %d ns (the root's kill) in %v", want, b.Wakeup)
	}
	for _, row := range b.Report.Tasks {
		if row.Comm == LauncherComm {
			t.Errorf("the launcher is in the task table")
		}
	}
}

type sinkOf func(*trace.Event)

func (f sinkOf) Event(e *trace.Event) { f(e) }

// A recording's phase is its root's first fork modulo the jiffy, the
// root's and no one else's; none without a fork of the root.
func TestRunnerForkPhase(t *testing.T) {
	text := `# tracer: nop
#
            init-1       [000] .....     3.873541: sched_process_fork: comm=init pid=1 parent_pid=1 child_comm=init child_pid=235 child_pid=235
   schedlab-root-235     [000] d..2.     3.900001: sched_switch: prev_comm=schedlab-root prev_pid=235 prev_prio=120 prev_state=R ==> next_comm=init next_pid=1 next_prio=120
            init-1       [000] d..2.     3.901001: sched_switch: prev_comm=init prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=schedlab-root next_pid=235 next_prio=120
   schedlab-root-235     [000] .....     3.904697: sched_process_fork: comm=schedlab-root pid=235 parent_pid=235 child_comm=schedlab-root child_pid=236 child_pid=236
   schedlab-root-235     [000] .....     3.904773: sched_process_fork: comm=schedlab-root pid=235 parent_pid=235 child_comm=schedlab-root child_pid=237 child_pid=237
`
	if ph, ok := runnerForkPhase([]byte(text), 235, 4e6); !ok || ph != 697_000 {
		t.Errorf("phase %d, %v; want 697000 (3.904697 s mod 4 ms)", ph, ok)
	}
	if ph, ok := runnerForkPhase([]byte(text), 235, 1e6); !ok || ph != 697_000 {
		t.Errorf("at HZ 1000: phase %d, %v; want 697000", ph, ok)
	}
	if _, ok := runnerForkPhase([]byte(text), 236, 4e6); ok {
		t.Error("a phase for a pid that never forked")
	}
	for _, c := range []struct{ phase, at, tick, want int64 }{
		{697_000, 20_027_867, 4e6, 669_133},
		{0, 4e6, 4e6, 0},
		{100, 3_999_900, 4e6, 200},
		{3_999_999, 1, 4e6, 3_999_998},
	} {
		if got := phaseFor(c.phase, c.at, c.tick); got != c.want {
			t.Errorf("phaseFor(%d, %d, %d) = %d, want %d", c.phase, c.at, c.tick, got, c.want)
		}
	}
}

// A kept kernel run's phase puts the simulated root's first fork at that
// phase of the engine's jiffy grid, whichever phase it is, at the time
// simForkAt says (it does not move with the phase), and every run's
// simulation is given its own kernel run's phase.
func TestSimulatedAtTheKernelRunsPhase(t *testing.T) {
	b, err := os.ReadFile("../validation/fidelity/debian-unstable/wakeup-chain.json")
	if err != nil {
		t.Skip(err)
	}
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	want := []int64{3_420_000, 1_500_000, 50_000}
	for i := range res.Host {
		res.Host[i].ForkPhaseNS = &want[i%len(want)]
	}
	if got := res.forkPhases(); !slices.Equal(got, want[:len(res.Host)]) {
		t.Fatalf("forkPhases %v, want %v", got, want)
	}
	spec, err := workload.Parse(res.Scenario, []byte(res.Workload))
	if err != nil {
		t.Fatal(err)
	}
	m, err := modelForVM(res.VM.Kernel, res.VM.Sched, res.VM.Release, res.VM.HZ)
	if err != nil {
		t.Fatal(err)
	}
	calib := runnerStart(res.VM.Release)
	req := lab.Request{Spec: WithSession(WithRunner(spec, m.tunables[sim.ParamFork], calib)), Name: res.Scenario, Policy: m.policy,
		Features: m.features, CPUs: 1, Duration: 1e8, Seed: 1, Tunables: m.tunables}
	at, ok := simForkAt(req, calib)
	if !ok {
		t.Fatal("no fork of the root")
	}
	tick := int64(1e9 / m.tunables[sim.ParamHZ])
	for _, k := range want {
		r := req
		r.Tunables = maps.Clone(req.Tunables)
		r.Tunables[sim.ParamTickPhase] = phaseFor(k, at, tick)
		f := &firstFork{at: -1}
		r.Keep = lab.Keep{Sink: &rootForks{f: f}}
		if _, err := lab.Simulate(r); err != nil {
			t.Fatal(err)
		}
		if f.at != at || (f.at+r.Tunables[sim.ParamTickPhase])%tick != k {
			t.Errorf("phase %d: the root forked at %d (simForkAt %d), %d after a tick", k, f.at, at, (f.at+r.Tunables[sim.ParamTickPhase])%tick)
		}
	}
	res.Runs = len(want)
	if err := res.simulate(spec); err != nil {
		t.Fatal(err)
	}
	// The chain's timer expires 20.65 ms after the fork. At a fork
	// 3.42 ms after a tick that is 70 µs after one, within the busy
	// loop's request renewed at that tick, and the chain's first wakeup
	// waits out the rest of it; at 1.5 ms it never waits.
	if a, c := res.Sim[0].Timer.Max, res.Sim[1].Timer.Max; a < 300 || c > 50 {
		t.Errorf("timer max %.1f µs at a fork 3.42 ms after a tick, %.1f at 1.5 ms: want the first most of a request, the second none", a, c)
	}
}
