// Package validate puts the host kernel and the simulation side by side on
// one workload: N runs on the host (package host), N simulated runs with
// the host's profile, and for each figure of timer and wakeup latency
// (p50, p90, p99, maximum) a verdict: inside the host's run-to-run spread,
// or off by how much.
//
// The host's profile (docs/host.md): policy eevdf-6.18 (the host runs 6.18),
// HZ 250, the host's CPU count (the base slice scales with it as the
// kernel's does: 0.70 ms × (1 + log2 ncpu), 1.4 ms on 2 CPUs), default
// features (debugfs is locked down, so the host's cannot be read or
// changed), and two calibrated costs of the virtual machine's timer path:
// its late timer interrupt (HostTimerIRQ) and a halted vCPU's wakeup
// (HostIdleExit). The host runner puts the whole workload in one
// cgroup below the root, as a session's autogroup would be; the simulation
// models that level as one task group, /session, of weight 1024, holding
// the workload's own groups.
package validate

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"schedlab/analyze"
	"schedlab/host"
	"schedlab/host/rtapp"
	"schedlab/internal/pool"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/sim"
	"schedlab/vm"
	"schedlab/workload"
)

// Policy is the simulated policy that matches the host.
const Policy = "eevdf-6.18"

// SessionGroup is the task group that models the host run's cgroup.
const SessionGroup = "/session"

// HostTimerIRQ is the host profile's cost_timer_irq_ns: how much later than
// the engine's 2 µs wakeup path this virtual machine delivers a timer to a
// busy vCPU. Calibrated once, on fair-user-sched (whose sleeper always wakes
// on a vCPU running a busy loop), as the median delay from expected expiry
// to the sleeper's sched_waking (Facts.TimerDeliveryUS): 39.6 and 38.6 µs in
// two 5 s runs on 2026-11-30, so 39 µs − 2 µs. It is held fixed for every
// scenario.
const HostTimerIRQ = 37000

// HostIdleExit is the host profile's cost_idle_exit_ns: how much later
// still a timer reaches a task whose vCPU is idle (halted) when it fires.
// Calibrated once, on sleeper-vs-hog (whose periodic task mostly has a vCPU
// to itself), as its median timer delivery minus fair-user-sched's: 109.6,
// 122.5 and 111.8 µs in three 5 s runs on 2026-11-30 (median 111.8) −
// 39.1 µs ≈ 73 µs. Held fixed for every scenario.
const HostIdleExit = 73000

// Options are one validation.
type Options struct {
	Host host.Options // Spec, CPUs, Duration, Seed, BufferKB, Log
	// VM, when set, measures in that virtual machine instead of on the
	// host: one boot makes all the runs (its Runs, Seed, Duration and
	// Workload are set from the rest of Options). The simulation is then
	// of the kernel's closest policy, configured as the guest reported
	// its kernel (PolicyFor, modelForVM).
	VM       *vm.Options
	Scenario string
	Runs     int
	// RTApp also runs the workload with rt-app, where rt-app can.
	RTApp bool
	// Set changes simulation tunables or engine parameters, to try a model
	// against the host; the default is the host's profile.
	Set map[string]int64
	// Progress receives a line per run (nil: none).
	Progress io.Writer
}

// Stats are the compared figures of one latency in one run, µs.
type Stats struct {
	Count int       `json:"count"`
	Avg   report.US `json:"avg_us"`
	P50   report.US `json:"p50_us"`
	P90   report.US `json:"p90_us"`
	P99   report.US `json:"p99_us"`
	Max   report.US `json:"max_us"`
}

func statsOf(l report.Latency) Stats {
	return Stats{Count: l.Count, Avg: l.Avg, P50: l.P50, P90: l.P90, P99: l.P99, Max: l.Max}
}

// RunStats are one run's figures.
type RunStats struct {
	Timer  Stats `json:"timer_latency"`
	Wakeup Stats `json:"wakeup_latency"`
	// Missed timer events.
	Missed int `json:"missed"`
	// TimerDeliveryUS is the host's median delay from a timer's expiry to
	// its waiter's sched_waking (µs; 0 without samples).
	TimerDeliveryUS float64 `json:"timer_delivery_p50_us,omitempty"`
	// MissedSwitchIns are switch-ins the host's trace lacked: their
	// wakeups are not samples (analyze.Report.MissedSwitchIn).
	MissedSwitchIns int `json:"missed_switch_ins,omitempty"`
	// Shares are each comm's part of the workload's CPU time (0 to 1), as
	// the per-task table merges tasks by comm.
	Shares map[string]float64 `json:"cpu_shares,omitempty"`
	// Notes are the run's warnings (lost events, steal time, ...).
	Notes []string `json:"notes,omitempty"`
	// ForkPhaseNS is, for a VM run, where in a jiffy the runner's root
	// first forked (ns after a tick; runner.go): the phase the run's
	// simulation is given. Absent in results measured before it was kept.
	ForkPhaseNS *int64 `json:"runner_fork_tick_phase_ns,omitempty"`
}

// Figure is one compared number.
type Figure struct {
	Latency string    `json:"latency"` // "timer" or "wakeup"
	Stat    string    `json:"stat"`    // "p50", "p90", "p99", "max"
	HostMed report.US `json:"host_median_us"`
	HostMin report.US `json:"host_min_us"`
	HostMax report.US `json:"host_max_us"`
	Sim     report.US `json:"sim_median_us"`
	SimMin  report.US `json:"sim_min_us"`
	SimMax  report.US `json:"sim_max_us"`
	// Compared is true when both sides had samples, so the figure has a
	// verdict on the model.
	Compared bool `json:"compared"`
	// Inside is true when the simulation's median lies within the host's
	// spread (minimum to maximum over the runs).
	Inside  bool   `json:"inside"`
	Verdict string `json:"verdict"`
}

// Result is a validation.
type Result struct {
	Scenario   string     `json:"scenario"`
	Runs       int        `json:"runs"`
	DurationNS int64      `json:"duration_ns"`
	CPUs       int        `json:"cpus"`
	HostFacts  host.Facts `json:"host"`
	Host       []RunStats `json:"host_runs"`
	Seed       uint64     `json:"seed"`
	Policy     string     `json:"policy"`
	// SimSet are the simulation's own settings (--set of an engine
	// parameter, or any --set on the host).
	SimSet map[string]int64 `json:"sim_set,omitempty"`
	// Workload is the rt-app text a VM ran (to re-simulate it).
	Workload string `json:"workload,omitempty"`
	// Machine describes the measured side for the table's head.
	Machine []string `json:"machine"`
	// VM is the virtual machine's facts when the runs were in one.
	VM      *VMFacts    `json:"vm,omitempty"`
	Model   []string    `json:"model"`
	Sim     []RunStats  `json:"sim_runs"`
	Figures []Figure    `json:"figures"`
	RTApp   *RTAppStats `json:"rt_app,omitempty"`

	hostSamples, simSamples *Samples
	// vmPhases are the VM runs' ForkPhaseNS while Run has not yet made
	// Host.
	vmPhases []*int64
}

// forkPhases are the kernel runs' measured tick phases (RunStats.ForkPhaseNS),
// if every run has one; nil otherwise.
func (res *Result) forkPhases() []int64 {
	ps := res.vmPhases
	if len(res.Host) > 0 {
		ps = nil
		for _, h := range res.Host {
			ps = append(ps, h.ForkPhaseNS)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	out := make([]int64, len(ps))
	for i, p := range ps {
		if p == nil {
			return nil
		}
		out[i] = *p
	}
	return out
}

// RTAppStats is rt-app's second opinion, or why there is none.
type RTAppStats struct {
	Ran     bool   `json:"ran"`
	Why     string `json:"why,omitempty"`
	Version string `json:"version,omitempty"`
	WuLat   Stats  `json:"wu_lat"`
}

// WithoutHelperWork returns spec with the run events of every SIGEV_THREAD
// helper's timer phase taken out. In a model, the helper's run stands for
// glibc's helper thread's own work before it creates the callback's
// thread; on a real kernel glibc does that work itself and the host
// runner executes none of the file's (host/worker.c's sigev_helper), so
// the machine's real cost is in the measured thread creation
// (cost_fork_ns) and a simulation of the real run must not add the
// file's on top. A copy: spec is shared.
func WithoutHelperWork(spec *workload.Spec) *workload.Spec {
	s := *spec
	s.Tasks = slices.Clone(spec.Tasks)
	for i, t := range spec.Tasks {
		var phases []*workload.Phase
		changed := false
		for _, ph := range t.Phases {
			helper := slices.ContainsFunc(ph.Events, func(e workload.Event) bool {
				return e.Kind == workload.Timer && spec.Timers[e.Timer].Notify == "thread"
			})
			if helper {
				c := *ph
				c.Events = slices.DeleteFunc(slices.Clone(ph.Events), func(e workload.Event) bool { return e.Kind == workload.Run })
				ph, changed = &c, true
			}
			phases = append(phases, ph)
		}
		if changed {
			c := *t
			c.Phases = phases
			s.Tasks[i] = &c
		}
	}
	return &s
}

// WithSession returns a copy of spec whose tasks all live in SessionGroup:
// its tasks without a group join it, and its groups move below it.
func WithSession(spec *workload.Spec) *workload.Spec {
	s := *spec
	s.Tasks = make([]*workload.Task, len(spec.Tasks))
	for i, t := range spec.Tasks {
		c := *t
		g := SessionGroup
		if t.Props.TaskGroup != nil {
			g = SessionGroup + *t.Props.TaskGroup
		}
		c.Props.TaskGroup = &g
		s.Tasks[i] = &c
	}
	s.Groups = []*workload.Group{{Path: SessionGroup, Shares: 1024}}
	for _, g := range spec.Groups {
		parent := SessionGroup
		if g.Parent != "" {
			parent = SessionGroup + g.Parent
		}
		s.Groups = append(s.Groups, &workload.Group{Path: SessionGroup + g.Path, Parent: parent, Shares: g.Shares})
	}
	return &s
}

// VMFacts are a VM validation's machine: the VM's facts, and what
// re-simulating its runs needs of the kernel (Resimulate).
type VMFacts struct {
	vm.Facts
	Release string `json:"release"`
	HZ      int64  `json:"hz"`
}

// Run measures and simulates.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Runs < 1 {
		return nil, fmt.Errorf("validate: need at least one run")
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	ncpu := len(o.Host.CPUs)
	if ncpu == 0 && o.VM == nil {
		online, err := host.OnlineCPUs()
		if err != nil {
			return nil, err
		}
		ncpu = len(online)
	}
	res := &Result{Scenario: o.Scenario, Runs: o.Runs, DurationNS: int64(o.Host.Duration), Seed: o.Host.Seed, Policy: Policy, SimSet: o.Set}
	res.hostSamples, res.simSamples = &Samples{}, &Samples{}
	var real []*lab.Outcome
	if o.VM != nil {
		// One boot makes every run; the simulation follows, configured by
		// what the guest said of its kernel.
		vo := *o.VM
		vo.Runs, vo.Seed, vo.Duration = o.Runs, o.Host.Seed, o.Host.Duration
		fmt.Fprintf(progress, "schedlab validate: %d run(s) of %v in a VM with %s\n", o.Runs, o.Host.Duration, vo.Kernel.Name)
		vr, err := vm.Measure(ctx, vo)
		if err != nil {
			return nil, err
		}
		hz, _ := kernelHZ(vr.Kernel)
		for i, rec := range vr.Recordings {
			rec.Spec = o.Host.Spec
			oc, err := lab.AnalyzeVM(vr, i, o.Scenario, lab.Keep{Samples: true})
			if err != nil {
				return nil, err
			}
			real = append(real, oc)
			var p *int64
			if ph, ok := runnerForkPhase(rec.Trace, rec.RootPID, 1e9/max(hz, 1)); ok && hz > 0 {
				p = &ph
			}
			res.vmPhases = append(res.vmPhases, p)
		}
		if ncpu == 0 {
			ncpu = vr.VCPUs
		}
		f := vr.Recordings[0].Facts
		res.Machine = []string{vmLine(vr, f)}
		if vr.Costs != nil {
			res.Machine = append(res.Machine, "            "+lab.CostsLine(vr.Costs))
		}
		if vr.VCPUs > 1 && vr.Clock == "icount" {
			res.Machine = append(res.Machine, "            note: "+vm.RoundRobinNote)
		}
		res.VM = &VMFacts{Facts: *vr.Facts(), Release: f.Kernel, HZ: hz}
		res.Workload = string(vo.Workload)
	}
	res.CPUs = ncpu
	// On the host, simulate before the host runs: it is quick, and a bad
	// workload fails before the host is touched.
	if err := res.simulate(o.Host.Spec); err != nil {
		return nil, err
	}
	for i := 0; o.VM == nil && i < o.Runs; i++ {
		fmt.Fprintf(progress, "schedlab validate: host run %d/%d (%v)\n", i+1, o.Runs, o.Host.Duration)
		ho := o.Host
		ho.Seed += uint64(i)
		rec, err := host.Run(ctx, ho)
		if err != nil {
			return nil, err
		}
		m, err := lab.AnalyzeRecording(rec, o.Scenario, lab.Keep{Samples: true})
		if err != nil {
			return nil, err
		}
		real = append(real, m)
	}
	for i, m := range real {
		h := m.Source.Host
		res.HostFacts = h.Facts
		rs := runStats(m.Report)
		if i < len(res.vmPhases) {
			rs.ForkPhaseNS = res.vmPhases[i]
		}
		rs.MissedSwitchIns = m.Analysis.MissedSwitchIn
		rs.TimerDeliveryUS = h.Facts.TimerDeliveryUS
		res.Host = append(res.Host, rs)
		res.hostSamples.Timer = append(res.hostSamples.Timer, m.Timer...)
		res.hostSamples.Wakeup = append(res.hostSamples.Wakeup, m.Wakeup...)
	}
	if o.VM == nil {
		f := res.HostFacts
		res.Machine = []string{fmt.Sprintf("host:       Linux %s, base slice %s ns, autogroup %s, cgroup %s, load before the last run %s",
			f.Kernel, f.BaseSlice, f.Autogroup, orNone(f.Cgroup), f.LoadAvg)}
	}
	if o.RTApp && o.VM == nil {
		res.RTApp = runRTApp(ctx, o, progress)
	}
	res.Figures = compare(res.Host, res.Sim, res.real())
	return res, nil
}

// simulate makes the result's simulated runs of spec: the host's profile,
// or for a VM the model of its kernel (modelForVM), with SimSet on top.
func (res *Result) simulate(spec *workload.Spec) error {
	var features []string
	// The host profile's calibrated costs, unless SimSet changes them.
	set := map[string]int64{sim.ParamTimerIRQ: HostTimerIRQ, sim.ParamIdleExit: HostIdleExit}
	res.Policy, res.Model = Policy, nil
	var notes []string
	var kernel *sim.KernelThreads
	length := res.DurationNS
	var start int64
	if v := res.VM; v != nil {
		m, err := modelForVM(v.Kernel, v.Sched, v.Release, v.HZ)
		if err != nil {
			return err
		}
		res.Policy, features, set, notes = m.policy, m.features, m.tunables, m.notes
		if GuestKernelThreads {
			kernel = m.kernel
			notes = append(notes, m.kernelNote)
		}
	}
	maps.Copy(set, res.SimSet)
	if res.VM != nil {
		// A VM run records the host runner's start too (runner.go).
		fork, ok := set[sim.ParamFork]
		if !ok {
			fork = sim.DefaultParams().CostFork
		}
		start = runnerStart(res.VM.Release)
		spec = WithRunner(spec, fork, start)
		notes = append(notes, fmt.Sprintf("the host runner's start (validate.WithRunner): its root %s busy %.2f ms, then its watch thread and the initial threads forked %.0f µs apart", RunnerComm, float64(start)/1e6, VMRunnerSpawn/1e3))
		// And the launcher's stop, after the duration (WithRunnerStop).
		if l, n, ok := WithRunnerStop(spec, length); ok {
			k := &sim.KernelThreads{}
			if kernel != nil {
				*k = *kernel
			}
			k.Launcher = l
			kernel, length = k, n
			notes = append(notes, fmt.Sprintf("the launcher's stop (validate.WithRunnerStop): %.0f µs after the duration its %s walks /proc for %.2f ms, then kills the workload (each thread woken if asleep, the runner's two among them, then exiting); the simulation ends with the last exit", VMStopWake/1e3, LauncherComm, VMStopWalk/1e6))
		}
	}
	simSpec := WithoutHelperWork(WithSession(spec))
	if res.VM != nil {
		simSpec = WithColdCallback(simSpec, VMColdCallback)
		notes = append(notes, fmt.Sprintf("a SIGEV_THREAD helper's first callback thread %.0f µs dearer to create (its new stack; validate.VMColdCallback)", VMColdCallback/1e3),
			fmt.Sprintf("each workload thread's setup in the runner before its first event, which anchors its timers: %.0f µs on a new stack, %.0f µs on one its process cached (validate.VMThreadStart, VMThreadStartCached)", VMThreadStart/1e3, VMThreadStartCached/1e3))
	}
	phases := res.forkPhases()
	if res.VM != nil && len(phases) > 0 {
		notes = append(notes, fmt.Sprintf("each run at its kernel run's tick phase: the runner's first fork %s µs after a tick (RunStats.ForkPhaseNS)", phaseList(phases)))
	}
	sims := make([]*lab.Outcome, res.Runs)
	errs := make([]error, res.Runs)
	pool.Run(res.Runs, 0, func(i int) {
		req := lab.Request{Spec: simSpec, Name: res.Scenario, Policy: res.Policy, Features: features, CPUs: res.CPUs,
			Duration: time.Duration(length), Seed: res.Seed + uint64(i), Tunables: set, Keep: lab.Keep{Samples: true}, Kernel: kernel, Started: res.VM != nil}
		if res.VM != nil && len(phases) > 0 {
			// The kernel's runs i and the simulation's pair up; a
			// simulation of more runs than the kernel made cycles
			// through its phases.
			req.Tunables = maps.Clone(set)
			at, ok := simForkAt(req, start)
			if !ok {
				errs[i] = fmt.Errorf("validate: %s: the simulated runner did not fork", res.Scenario)
				return
			}
			req.Tunables[sim.ParamTickPhase] = phaseFor(phases[i%len(phases)], at, 1e9/set[sim.ParamHZ])
		}
		sims[i], errs[i] = lab.Simulate(req)
	}, nil)
	res.Sim = nil
	res.simSamples = &Samples{}
	for i, oc := range sims {
		if errs[i] != nil {
			return errs[i]
		}
		res.simSamples.Timer = append(res.simSamples.Timer, oc.Timer...)
		res.simSamples.Wakeup = append(res.simSamples.Wakeup, oc.Wakeup...)
		if i == 0 {
			res.Model = append(modelOf(oc.Report, res.Policy, res.CPUs, res.VM != nil), notes...)
		}
		res.Sim = append(res.Sim, runStats(oc.Report))
	}
	return nil
}

// Resimulate judges a VM validation's kernel runs again against the
// simulation as it is now: the model of the kernel the result recorded
// (its release, features, tunables, HZ and vCPUs), on the workload it
// recorded. The kernel's figures are the result's; only the simulation
// and the verdicts change. So a model change is judged without booting.
func Resimulate(res *Result) error {
	if res.VM == nil || len(res.Workload) == 0 {
		return fmt.Errorf("validate: %s: only a VM validation records what re-simulating it needs", res.Scenario)
	}
	spec, err := workload.Parse(res.Scenario, []byte(res.Workload))
	if err != nil {
		return err
	}
	if err := res.simulate(spec); err != nil {
		return err
	}
	res.Figures = compare(res.Host, res.Sim, res.real())
	return nil
}

func runStats(r *report.Run) RunStats {
	s := RunStats{Timer: statsOf(r.TimerLatency), Wakeup: statsOf(r.WakeupLatency), Notes: r.Warnings}
	var total float64
	for _, t := range r.Tasks { // by comm
		total += t.RuntimeMS
	}
	if total > 0 {
		s.Shares = map[string]float64{}
		for _, t := range r.Tasks { // by comm
			s.Shares[t.Comm] = t.RuntimeMS / total
		}
	}
	if r.TimerLatency.Missed != nil {
		s.Missed = *r.TimerLatency.Missed
	}
	return s
}

// modelOf says what the simulation assumed, for the reader.
func modelOf(r *report.Run, policy string, ncpu int, inVM bool) []string {
	// The profile's settings, in this order, then any other tunable that
	// differs from the policy's default.
	profile := []string{"sched_base_slice_ns", "tick_nsec", sim.ParamTimerIRQ, sim.ParamIdleExit}
	var tun, changed []string
	for _, k := range profile {
		if v, ok := r.Tunables[k]; ok {
			tun = append(tun, fmt.Sprintf("%s=%d", k, v))
		}
	}
	for k, v := range r.Tunables {
		if d, ok := r.DefaultTunables[k]; ok && d != v && !slices.Contains(profile, k) {
			changed = append(changed, fmt.Sprintf("%s=%d (changed)", k, v))
		}
	}
	slices.Sort(changed)
	us := func(k string) float64 { return float64(r.Tunables[k]) / 1e3 }
	feats := "default features"
	if inVM {
		feats = "features and tunables as the kernel's (below)"
	}
	where := "the host run's cgroup"
	costs := fmt.Sprintf("engine costs: context switch %g µs, clone %g µs, wakeup %g µs, exit %g µs, and the virtual machine's timer path, %s %d and %s %d (each calibrated once, from the host's timer delivery: validate.HostTimerIRQ, HostIdleExit); no timer slack (the host runs with 1 ns)",
		us(sim.ParamCtxSwitch), us(sim.ParamFork), us(sim.ParamWakeup), us(sim.ParamExit),
		sim.ParamTimerIRQ, r.Tunables[sim.ParamTimerIRQ], sim.ParamIdleExit, r.Tunables[sim.ParamIdleExit])
	if inVM {
		where = "the guest run's cgroup"
		costs = fmt.Sprintf("engine costs: context switch %g µs, clone %g µs and a process's exec %g µs as the VM's cost probe measured them once (validate.VMContextSwitch, VMFork, VMExec, or the kernel's own row of vmCostsByKernel), wakeup %g µs, exit %g µs, timer path %s %d, %s %d; sched_waking to the switch %g µs on a busy and %g µs on an idle CPU, a blocking call %g µs, and noise (exponential, seeded) of mean %g µs on it and %g µs on a timer's delivery, as traced once on the VM (validate.VMResched, VMIdleResched, VMBlock, VMNoiseResched, VMNoiseTimer, or the kernel's row); no timer slack (the guest runs with 1 ns)",
			us(sim.ParamCtxSwitch), us(sim.ParamFork), us(sim.ParamExec), us(sim.ParamWakeup), us(sim.ParamExit),
			sim.ParamTimerIRQ, r.Tunables[sim.ParamTimerIRQ], sim.ParamIdleExit, r.Tunables[sim.ParamIdleExit],
			us(sim.ParamResched), us(sim.ParamIdleResched), us(sim.ParamBlock), us(sim.ParamNoiseResch), us(sim.ParamNoiseTimer))
	}
	return []string{
		fmt.Sprintf("policy %s, %d CPU(s), HZ %d, %s; %s", policy, ncpu, r.Tunables[sim.ParamHZ], feats, strings.Join(append(tun, changed...), " ")),
		"the workload in one task group " + SessionGroup + " (weight 1024) below the root, as " + where,
		costs,
	}
}

func runRTApp(ctx context.Context, o Options, progress io.Writer) *RTAppStats {
	st := &RTAppStats{}
	if err := rtapp.Check(o.Host.Spec); err != nil {
		st.Why = err.Error()
		return st
	}
	fmt.Fprintf(progress, "schedlab validate: rt-app run (%v)\n", o.Host.Duration)
	r, err := rtapp.Run(ctx, o.Host.Spec, rtapp.Options{Duration: o.Host.Duration, CPUs: o.Host.CPUs})
	if err != nil {
		st.Why = err.Error()
		return st
	}
	st.Ran, st.Version = true, r.Version
	st.WuLat = statsOf(report.NewLatency(analyze.Summarise(r.WakeupLatency)))
	return st
}

// compare makes the figures and their verdicts.
func compare(hostRuns, simRuns []RunStats, real string) []Figure {
	var out []Figure
	lats := []struct {
		name string
		get  func(RunStats) Stats
	}{
		{"timer", func(r RunStats) Stats { return r.Timer }},
		{"wakeup", func(r RunStats) Stats { return r.Wakeup }},
	}
	stats := []struct {
		name string
		get  func(Stats) report.US
	}{
		{"avg", func(s Stats) report.US { return s.Avg }},
		{"p50", func(s Stats) report.US { return s.P50 }},
		{"p90", func(s Stats) report.US { return s.P90 }},
		{"p99", func(s Stats) report.US { return s.P99 }},
		{"max", func(s Stats) report.US { return s.Max }},
	}
	for _, l := range lats {
		for _, s := range stats {
			var hv, sv []float64
			for _, r := range hostRuns {
				if st := l.get(r); st.Count > 0 {
					hv = append(hv, float64(s.get(st)))
				}
			}
			for _, r := range simRuns {
				if st := l.get(r); st.Count > 0 {
					sv = append(sv, float64(s.get(st)))
				}
			}
			f := Figure{Latency: l.name, Stat: s.name}
			switch {
			case len(hv) == 0 && len(sv) == 0:
				f.Verdict = "no samples on either side"
			case len(hv) == 0:
				f.Verdict = "no samples on the host"
			case len(sv) == 0:
				f.Verdict = "no samples in the simulation"
			default:
				hmed, hmin, hmax := medMinMax(hv)
				smed, smin, smax := medMinMax(sv)
				f.HostMed, f.HostMin, f.HostMax = report.US(hmed), report.US(hmin), report.US(hmax)
				f.Sim, f.SimMin, f.SimMax = report.US(smed), report.US(smin), report.US(smax)
				f.Compared = true
				f.Inside = smed >= hmin && smed <= hmax
				f.Verdict = verdict(smed, hmed, hmin, hmax, real)
			}
			out = append(out, f)
		}
	}
	return out
}

// tally counts the compared figures and those inside the host's spread.
func tally(figs []Figure) (inside, compared int) {
	for _, f := range figs {
		if f.Compared {
			compared++
			if f.Inside {
				inside++
			}
		}
	}
	return inside, compared
}

// verdict says where the simulation's median lies against the host's
// spread: inside it, or below or above it by how much (µs, and as a
// ratio to the host's median).
func verdict(sim, med, lo, hi float64, real string) string {
	if sim >= lo && sim <= hi {
		return "inside"
	}
	ratio := "∞"
	if med > 0 {
		ratio = fmt.Sprintf("%.2g×", sim/med)
	}
	if sim < lo {
		return fmt.Sprintf("low by %s (%s %s median)", report.FormatUS(lo-sim), ratio, real)
	}
	return fmt.Sprintf("high by %s (%s %s median)", report.FormatUS(sim-hi), ratio, real)
}

func medMinMax(v []float64) (med, lo, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}
