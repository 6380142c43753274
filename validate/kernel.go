package validate

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"schedlab/host"
	"schedlab/sched"
	"schedlab/sim"
	"schedlab/vm"
)

// A kernel in a virtual machine (vm) is compared with the simulated policy
// closest to its scheduler, configured as the guest kernel reported itself
// before the runs: its features and tunables as read from its debugfs (or
// /proc/sys) files, its CONFIG_HZ, its vCPU count, and the VM's own costs
// (VMContextSwitch, VMFork). Nothing here is fitted to a latency.

// policyRule maps kernel releases from a version on to a simulated policy.
type policyRule struct {
	from   [3]int // the first release the rule takes
	policy string
	why    string
}

// policyRules, newest first. A kernel between two simulated generations
// takes the older one: what the simulator lacks of the newer code is said
// in why. The EEVDF profiles are the releases they are named for.
var policyRules = []policyRule{
	{[3]int{7, 2, 0}, "eevdf-7.2", "EEVDF of Debian's 7.2 (its newest simulated generation; what 7.3 and later changed is not simulated)"},
	{[3]int{6, 18, 0}, "eevdf-6.18", "EEVDF of 6.18 (what 6.19-7.1 changed is not simulated; eevdf-7.2's lazy preemption and hrtick may have come in any of them)"},
	{[3]int{6, 12, 0}, "eevdf-6.12", "EEVDF of 6.12"},
	{[3]int{6, 6, 0}, "eevdf-6.6", "EEVDF of 6.6"},
	{[3]int{6, 1, 0}, "cfs-6.1", "CFS of 6.1, the newest simulated CFS (what 6.2-6.5 changed in CFS is not simulated)"},
	{[3]int{5, 10, 0}, "cfs-5.10", "CFS of Debian's 5.10, read from its source (with ALT_PERIOD and BASE_SLICE, 5.13's, as Debian's 5.10.y has them; what 5.11-5.19 changed in CFS, 6.1's SCHED_IDLE rules included, is not simulated)"},
	{[3]int{2, 6, 36}, "cfs-2.6.36", "CFS of 2.6.36: the kernel's CFS changes up to 5.10 (2.6.38's check_preempt_tick delta < 0, the clock-skip rule, next-buddy preference, skip-buddy yield, PELT load, ...) are in cfs-5.10, not here; cfs-5.10's rules were not checked against this kernel's source"},
	{[3]int{2, 6, 35}, "cfs-2.6.35", "CFS of 2.6.35"},
	{[3]int{2, 6, 23}, "cfs-2.6.24", "CFS of 2.6.24"},
}

// PolicyFor is the simulated policy for a kernel release ("6.1.0-57-cloud-amd64"),
// with a sentence saying why.
func PolicyFor(release string) (policy, why string, err error) {
	v, ok := parseRelease(release)
	if !ok {
		return "", "", fmt.Errorf("kernel release %q: not a version schedlab can read", release)
	}
	for _, r := range policyRules {
		if !versionLess(v, r.from) {
			// A profile added later for the kernel itself (cfs-6.1, say)
			// is its own best model.
			own := fmt.Sprintf("cfs-%d.%d", v[0], v[1])
			if _, err := sched.Lookup(own); err == nil && strings.HasPrefix(r.policy, "cfs-") {
				return own, "the kernel's own profile", nil
			}
			return r.policy, fmt.Sprintf("Linux %d.%d is simulated as %s", v[0], v[1], r.why), nil
		}
	}
	return "", "", fmt.Errorf("kernel release %q: older than any simulated scheduler (2.6.23's CFS is the first)", release)
}

func parseRelease(s string) ([3]int, bool) {
	var v [3]int
	// "6.1.0-57-cloud-amd64", "6.12.95+deb12-cloud-amd64", "2.6.35.2"
	end := strings.IndexFunc(s, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if end >= 0 {
		s = s[:end]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return v, false
	}
	for i := 0; i < 3 && i < len(parts); i++ {
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func versionLess(a, b [3]int) bool { return slices.Compare(a[:], b[:]) < 0 }

// VMContextSwitch, VMFork and VMExec are the simulation's engine costs
// for a kernel in schedlab's VM (QEMU's TCG with icount, where guest time
// is counted in instructions, one per ns: a machine several times slower
// than a real core for kernel code, with real ticks and slices). Measured
// once, by the guest's cost probe (host.Probe) on debian-6.1 (Linux
// 6.1.0-57-cloud-amd64), one vCPU, after the warm-up, 2026-12-01, in two
// boots: context switch 3.2 and 3.0 µs, thread creation 13.8 and 13.9 µs,
// fork + exec + exit of the schedlab binary 2253 and 2021 µs, of which
// exec is what is left after the clone and the 10 µs exit: about 2 ms.
// Held fixed for every workload and for every kernel without a row of its
// own in vmCostsByKernel; each run's own probe is printed beside them. The timer path needs no cost of its own: the
// probe's timer to user code on an idle vCPU, 4.1 µs, is the engine's
// wakeup (2 µs) and a switch.
const (
	VMContextSwitch = 3200
	VMFork          = 13800
	VMExec          = 2000000
)

// The VM's wakeup path and noise, for the simulation of every VM run:
// measured once, from traced 4 s runs on debian-6.1 (Linux
// 6.1.0-57-cloud-amd64), one vCPU, TCG icount, 2026-12-01
// (`schedlab measure --kernel debian-6.1 SCENARIO --cpus 0 --duration 4s
// --trace`): wakeup-latency, whose timer wakes a helper on an idle vCPU
// (398 expiries, 431 wakeups of workload tasks), and sleeper-vs-hog, whose
// timer wakes the periodic task on a vCPU running the hog (398 expiries,
// 440 wakeups). The trace's clock has 1 µs resolution. Held fixed for
// every workload and for every kernel without a row in vmCostsByKernel. The paths are traced ones: each tracepoint
// costs the emulated CPU some µs, and so it does in every figure a
// measured run reports (the cost probe, untraced, gives an idle vCPU's
// timer 4.1 µs to user code; traced, sched_waking to sched_switch alone is
// 6 µs).
//
//   - Timer expiry → sched_waking: 0.94 µs (busy vCPU, 398 of 398) and
//     0.72 µs (idle vCPU, all but 2) at the trace's resolution, so about
//     1 µs on both, with no spread the 1 µs clock resolves: icount jumps
//     an idle vCPU to its timer, so there is no idle exit
//     (cost_idle_exit_ns stays 0). The engine's cost_wakeup_ns (2 µs)
//     stays: it also prices a waker's system call, which was not traced.
//     VMNoiseTimer is the mean excess of the sleeper's whole expiry →
//     callback path over its minimum, 0.15 µs, all put on the delivery.
//   - sched_waking → sched_switch on a busy vCPU (the hog preempted): 5 µs
//     in 430 of 440 (≤ 10 µs; the rest 4, 8, 10), mean 5.04 µs: VMResched
//   - VMNoiseResched.
//   - The same on an idle vCPU: 6 µs in 279 of 431, 7 in 125, 4–5 in 22,
//     8–10 in 4, mean 6.22 µs: VMIdleResched + VMNoiseResched. Its spread
//     (0.6 µs, of which two 1 µs truncations make 0.41) leaves about 0.44
//     µs of jitter; the busy path's is below what the clock resolves. One
//     exponential serves both: mean 0.3 µs, between the two.
//   - Context switches: the probe's 3.2 µs (VMContextSwitch) and no noise
//     (noise_switch_ns 0): TCG has no cache model, and the switch to the
//     periodic task's first mark takes 6 µs in all but 2 of 398 samples.
//   - A blocking call's way into schedule(), from a third traced run,
//     fidelity's wakeup-chain (a task wakes the next and then waits:
//     397 links): the waker's sched_waking of the wakee to its own
//     sched_switch away (prev_state S) to that wakee, 7 µs in 366 and
//     8 µs in 31, mean 7.08 µs. In the engine that is the blocking call
//     after the resume (cost_block_ns) and its noise: VMBlock 6.8 µs +
//     VMNoiseResched.
//   - cost_ipi_ns stays 0: under icount a second vCPU runs only when the
//     first's turn ends, which no IPI cost describes (docs/vm.md).
//
// Not modelled: the rare interrupt landing in the path (2 of 398 timer
// samples 10 µs late on each workload).
const (
	VMResched      = 4700
	VMIdleResched  = 5900
	VMNoiseResched = 300
	VMNoiseTimer   = 150
	VMBlock        = 6800
)

// VMThreadStart is the CPU time a workload thread of the host runner
// spends in the guest from its first switch-in to the clock read that
// anchors its timers (host/worker.c's run_thread: prctl, perf_event_open
// of its task clock, its start properties, sched_getaffinity), so its
// timers' grid starts that much after it first runs (cost_thread_start_ns).
// Measured once, 2026-12-01, from traces of four periodic threads on an
// idle vCPU (`schedlab measure FILE --kernel K --cpus 0 --duration 2s
// --trace`, one vCPU, TCG icount; the grid's start is the first expiry's
// expected_ns less a period), one slice each on every kernel: debian-5.10
// 57, 45, 38, 48 µs; debian-6.1 89, 65, 52, 68; debian-6.12 74, 61, 61,
// 49; debian-unstable (7.2) 78, 53, 49, 70; mean 59.8 µs, of which the
// engine charges the context switch (3.2–5.1 µs, 3.8 on average over the
// four) apart: 56 µs. The spread within a kernel (the first thread to run
// is usually the dearest: the code's pages fault in) is as wide as
// between kernels, so one constant serves all, held fixed.
//
// VMThreadStartCached is the same setup on a stack the process cached
// from an exited thread (glibc's stack cache; sim/threadstart.go), whose
// pages are mapped already: every SIGEV_THREAD callback after the first,
// every thread a loop forks after the one before has exited. Measured
// once, 2026-12-01, from traced runs of wakeup-latency (a 20 µs callback
// every 10 ms on an idle vCPU; `schedlab measure wakeup-latency --kernel K
// --cpus 0 --duration 2s --trace`): each callback's one slice, switch-in
// to exit, 69 µs (p10–p90 69–71, 397 callbacks) on debian-6.1 and 70 µs
// (70–72, 197) on debian-unstable (7.2); less the work (20), the exit
// (cost_exit_ns, 10) and each kernel's context switch (3.2 and 5.1 µs),
// 35.8 and 34.9 µs. Held fixed for every kernel.
const (
	VMThreadStart       = 56_000
	VMThreadStartCached = 35_000
)

// vmCosts is one kernel's row of the VM's engine costs: the cost probe's
// context switch and thread creation, and the traced wakeup paths above
// (VMResched, VMIdleResched) measured on that kernel by the same method.
// The noise, exec and the blocking call stay debian-6.1's.
type vmCosts struct {
	release                               string // the kernel generation (major.minor) the row is for
	ctxSwitch, fork, resched, idleResched int64
	// rcuGPTicks is how many ticks an RCU grace period takes on one vCPU
	// (VMKernelThreads): from the rcu_preempt wakeup that starts it to
	// the one that ends it.
	rcuGPTicks int64
}

// vmCostsByKernel are the kernels whose VM paths differ from debian-6.1's
// by more than the trace's 1 µs resolution: each measured once, by the
// method above, on 2026-12-01 (one vCPU, TCG icount; `schedlab measure
// --kernel K SCENARIO --cpus 0 --duration 4s --trace` of sleeper-vs-hog
// and wakeup-latency), and held fixed. A kernel not listed (5.10, 6.1)
// takes debian-6.1's constants.
//
//   - debian-6.12 (Linux 6.12.95+deb12-cloud-amd64): probe context switch
//     3.6 µs, thread creation 16.4 µs; the periodic task's sched_waking →
//     sched_switch with the hog preempted 6 µs in 132 and 7 in 162 of 297
//     (≤ 10 µs; 90 more waited for the hog's slice), mean 6.54; on an idle
//     vCPU 6 µs in 297 and 7 in 96 of 398, mean 6.28.
//   - debian-unstable (Linux 7.2.13+deb14-cloud-amd64): probe 5.1 µs and
//     16.7 µs; busy 7 µs in 393 of 396, mean 7.00; idle 6 µs in 384 of
//     395, mean 6.02.
//
// As for debian-6.1, VMNoiseResched (0.3 µs) is taken off each mean. 7.2's
// busy path is 2 µs longer than 6.1's and its context switch 1.9 µs. The
// blocking call (VMBlock) is not measured again: on both kernels a
// sched_waking of the wakee to the waker's own switch away to it takes 8 µs
// after a futex wake (fidelity's wakeup-chain: 233 of 242 on 6.12, 60 of 72
// on 7.2) but 4-5 µs after a clone (wakeup-latency's helper forking its
// callback, then waiting: 394 of 395 on both), and cost_block_ns is one
// number for every blocking call; 6.1's 6.8 µs lies between the two.
var vmCostsByKernel = []vmCosts{
	{release: "6.12", ctxSwitch: 3600, fork: 16400, resched: 6200, idleResched: 6000, rcuGPTicks: 1},
	{release: "7.2", ctxSwitch: 5100, fork: 16700, resched: 6700, idleResched: 5700, rcuGPTicks: 2},
}

// costsFor is the row of vmCostsByKernel for a release, or debian-6.1's
// constants.
func costsFor(release string) vmCosts {
	if v, ok := parseRelease(release); ok {
		for _, c := range vmCostsByKernel {
			if w, ok := parseRelease(c.release); ok && v[0] == w[0] && v[1] == w[1] {
				return c
			}
		}
	}
	return vmCosts{release: "6.1", ctxSwitch: VMContextSwitch, fork: VMFork, resched: VMResched, idleResched: VMIdleResched, rcuGPTicks: 1}
}

// DefaultHZ is what a kernel without a readable configuration is assumed
// to run at: Debian's CONFIG_HZ for amd64.
const DefaultHZ = 250

// vmModel is the simulation's configuration for a VM's runs.
type vmModel struct {
	policy string
	// kernel is the guest's kernel threads, kernelNote its line of the
	// model (taken only with GuestKernelThreads).
	kernel     *sim.KernelThreads
	kernelNote string
	features   []string
	tunables   map[string]int64
	notes      []string
}

// modelForVM configures the simulation as the guest kernel reported
// itself; set (--set) then changes the simulation's side.
func modelForVM(k *vm.Kernel, st *vm.Sched, release string, hz int64) (*vmModel, error) {
	policy, why, err := PolicyFor(release)
	if err != nil {
		return nil, err
	}
	prof, err := sched.Lookup(policy)
	if err != nil {
		return nil, err
	}
	c := costsFor(release)
	m := &vmModel{policy: policy, tunables: map[string]int64{
		sim.ParamCtxSwitch: c.ctxSwitch, sim.ParamFork: c.fork, sim.ParamExec: VMExec,
		sim.ParamResched: c.resched, sim.ParamIdleResched: c.idleResched,
		sim.ParamNoiseResch: VMNoiseResched, sim.ParamNoiseTimer: VMNoiseTimer, sim.ParamBlock: VMBlock,
		sim.ParamThreadStart: VMThreadStart, sim.ParamStartCached: VMThreadStartCached,
	}, kernel: VMKernelThreads(c.rcuGPTicks),
		kernelNote: fmt.Sprintf("the guest's kernel threads (validate.VMKernelThreads): rcu_preempt woken at the tick after a thread exit and at its grace period's end %d tick(s) later, kcompactd0 and kworkers every 512, 340 and 1000 ms, and the launcher's heartbeat (init, every %.2f ms at a phase drawn from the seed, %.0f µs); not in the samples or the table", c.rcuGPTicks, VMHeartbeatEach/1e6, VMHeartbeatRun/1e3),
		notes:      []string{why, "the VM's costs as measured on Linux " + c.release + " (validate.vmCostsByKernel, else VMContextSwitch and the rest)"}}
	hzWhy := fmt.Sprintf("HZ %d (the kernel's CONFIG_HZ when its run was recorded)", hz)
	if hz == 0 {
		hz, hzWhy = kernelHZ(k)
	}
	m.tunables[sim.ParamHZ] = hz
	m.notes = append(m.notes, hzWhy)
	if ph, ok := runnerTickPhase(release); ok && ph < 1e9/hz {
		m.tunables[sim.ParamTickPhase] = ph
		m.notes = append(m.notes, fmt.Sprintf("each run starts %.0f µs after a tick, as this kernel's runs do (validate.VMRunnerTickPhase)", float64(ph)/1e3))
	}
	if st == nil {
		m.notes = append(m.notes, "the guest did not report its features and tunables: the profile's defaults are simulated")
		return m, nil
	}
	// Features by the kernel's state where the profile has one of the
	// same name; the rest are the profile's defaults.
	var took, lacked []string
	for _, f := range st.Features {
		name := strings.TrimPrefix(f, "NO_")
		if prof.Feature(name) != nil {
			m.features = append(m.features, f)
			took = append(took, f)
		} else {
			lacked = append(lacked, name)
		}
	}
	if len(took) > 0 {
		m.notes = append(m.notes, "features as the kernel's: "+strings.Join(took, " "))
	}
	if len(lacked) > 0 {
		m.notes = append(m.notes, "kernel features the model does not have: "+strings.Join(lacked, " "))
	}
	took = nil
	for _, name := range slices.Sorted(maps.Keys(st.Tunables)) {
		v := st.Tunables[name]
		t := prof.Tunable(name)
		if t == nil || t.Derived || name == "sched_tunable_scaling" {
			continue
		}
		if t.Check(v) != nil {
			continue
		}
		// The kernel's files hold the values already scaled to its CPU
		// count; a value set is not scaled again (sched.Config.ScaleTunables).
		m.tunables[name] = v
		took = append(took, fmt.Sprintf("%s=%d", name, v))
	}
	if len(took) > 0 {
		m.notes = append(m.notes, "tunables as the kernel's: "+strings.Join(took, " "))
	}
	return m, nil
}

// kernelHZ reads CONFIG_HZ from the kernel's configuration file (Debian
// ships it beside the image), else assumes DefaultHZ.
func kernelHZ(k *vm.Kernel) (int64, string) {
	if v := k.Config("CONFIG_HZ"); v != "" {
		if hz, err := strconv.ParseInt(v, 10, 64); err == nil {
			return hz, fmt.Sprintf("HZ %d (the kernel's CONFIG_HZ)", hz)
		}
	}
	return DefaultHZ, fmt.Sprintf("HZ %d assumed (Debian's; the kernel's configuration was not found beside its image)", DefaultHZ)
}

// vmLine describes the VM side for the table's head.
func vmLine(res *vm.Result, f host.Facts) string {
	s := fmt.Sprintf("VM:         kernel %s (Linux %s, %s), %d vCPU(s), virtual time: %s, cgroup %s",
		res.Kernel.Name, f.Kernel, res.Kernel.Sched(), res.VCPUs, res.Clock, orNone(f.Cgroup))
	if len(res.Retries) > 0 {
		s += fmt.Sprintf("; %d failed boot(s) retried", len(res.Retries))
	}
	return s
}
