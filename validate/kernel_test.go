package validate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"schedlab/lab"
	"schedlab/sim"
	"schedlab/vm"
	"schedlab/workload"
)

func TestPolicyFor(t *testing.T) {
	for _, c := range []struct{ release, want string }{
		{"5.10.0-46-cloud-amd64", "cfs-5.10"}, // the kernel's own profile
		{"5.19.17", "cfs-5.10"},
		{"5.9.16", "cfs-2.6.36"},
		{"6.1.0-57-cloud-amd64", "cfs-6.1"}, // the kernel's own profile
		{"6.5.13", "cfs-6.1"},
		{"6.6.0", "eevdf-6.6"},
		{"6.11.2", "eevdf-6.6"},
		{"6.12.95+deb12-cloud-amd64", "eevdf-6.12"},
		{"6.18.44", "eevdf-6.18"},
		{"7.1.9", "eevdf-6.18"},
		{"7.2.13+deb14-cloud-amd64", "eevdf-7.2"},
		{"7.4.1", "eevdf-7.2"},
		{"2.6.36", "cfs-2.6.36"},
		{"2.6.35.2", "cfs-2.6.35"},
		{"2.6.24-rc1", "cfs-2.6.24"},
	} {
		got, why, err := PolicyFor(c.release)
		if err != nil || got != c.want || why == "" {
			t.Errorf("PolicyFor(%q) = %q, %q, %v; want %q", c.release, got, why, err, c.want)
		}
	}
	for _, bad := range []string{"", "linux", "2.6.22", "x.y"} {
		if p, _, err := PolicyFor(bad); err == nil {
			t.Errorf("PolicyFor(%q) = %q, want an error", bad, p)
		}
	}
}

// Each kernel generation with a row of its own in vmCostsByKernel is
// simulated with that row's costs, whatever its patch level; the others
// with debian-6.1's constants. Only the costs traced per kernel change.
func TestVMCostsPerKernel(t *testing.T) {
	for _, c := range []struct {
		release              string
		ctx, fork, busy, idl int64
	}{
		{"6.1.0-57-cloud-amd64", VMContextSwitch, VMFork, VMResched, VMIdleResched},
		{"5.10.0-46-cloud-amd64", VMContextSwitch, VMFork, VMResched, VMIdleResched},
		{"6.12.95+deb12-cloud-amd64", 3600, 16400, 6200, 6000},
		{"6.12.117", 3600, 16400, 6200, 6000},
		{"7.2.13+deb14-cloud-amd64", 5100, 16700, 6700, 5700},
		{"7.20.1", VMContextSwitch, VMFork, VMResched, VMIdleResched}, // not 7.2
	} {
		m, err := modelForVM(&vm.Kernel{Name: "k"}, nil, c.release, 250)
		if err != nil {
			t.Fatalf("%s: %v", c.release, err)
		}
		for k, want := range map[string]int64{sim.ParamCtxSwitch: c.ctx, sim.ParamFork: c.fork, sim.ParamResched: c.busy,
			sim.ParamIdleResched: c.idl, sim.ParamBlock: VMBlock, sim.ParamExec: VMExec,
			sim.ParamNoiseResch: VMNoiseResched, sim.ParamNoiseTimer: VMNoiseTimer} {
			if m.tunables[k] != want {
				t.Errorf("%s: %s = %d, want %d", c.release, k, m.tunables[k], want)
			}
		}
	}
}

// The simulation of a VM's runs takes the kernel's features where the
// model has them, its tunables as values already scaled (not scaled
// again for the CPU count), its CONFIG_HZ, and the VM's costs.
func TestModelForVM(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "vmlinuz-6.1.0-test")
	os.WriteFile(img, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "config-6.1.0-test"), []byte("# comment\nCONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"), 0o644)
	res := &vm.Result{Kernel: &vm.Kernel{Name: "test", Image: img, Release: "6.1.0-test"}, VCPUs: 2,
		Sched: &vm.Sched{Features: []string{"GENTLE_FAIR_SLEEPERS", "NO_START_DEBIT", "SIS_AVG_CPU", "LAST_BUDDY"},
			Tunables: map[string]int64{"sched_latency_ns": 12000000, "sched_min_granularity_ns": 1500000,
				"sched_wakeup_granularity_ns": 2000000, "sched_tunable_scaling": 1, "sched_nr_migrate": 32}}}
	m, err := modelForVM(res.Kernel, res.Sched, "6.1.0-test", 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.policy != "cfs-6.1" {
		t.Errorf("policy %s", m.policy)
	}
	if want := []string{"GENTLE_FAIR_SLEEPERS", "NO_START_DEBIT", "LAST_BUDDY"}; !slices.Equal(m.features, want) {
		t.Errorf("features %q, want %q (SIS_AVG_CPU, of 5.x, is not the model's)", m.features, want)
	}
	for k, want := range map[string]int64{sim.ParamHZ: 1000, sim.ParamCtxSwitch: VMContextSwitch, sim.ParamFork: VMFork,
		sim.ParamResched: VMResched, sim.ParamIdleResched: VMIdleResched, sim.ParamNoiseResch: VMNoiseResched, sim.ParamNoiseTimer: VMNoiseTimer, sim.ParamBlock: VMBlock,
		"sched_latency_ns": 12000000, "sched_min_granularity_ns": 1500000} {
		if m.tunables[k] != want {
			t.Errorf("%s = %d, want %d", k, m.tunables[k], want)
		}
	}
	if _, ok := m.tunables["sched_tunable_scaling"]; ok {
		t.Errorf("the scaling rule was taken: the values are scaled already")
	}
	// On 2 CPUs the simulation runs with the kernel's values as they are.
	spec, err := workload.Parse("t.json", []byte(`{"tasks": {"a": {"loop": 1, "run": 1000}}, "global": {"duration": 0.01}}`))
	if err != nil {
		t.Fatal(err)
	}
	oc, err := lab.Simulate(lab.Request{Spec: spec, Name: "t", Policy: m.policy, Features: m.features, CPUs: 2,
		Duration: 10e6, Seed: 1, Tunables: m.tunables})
	if err != nil {
		t.Fatal(err)
	}
	if got := oc.Report.Tunables["sched_latency_ns"]; got != 12000000 {
		t.Errorf("simulated sched_latency_ns %d, want the kernel's 12000000 unscaled", got)
	}
	if oc.Report.Features["START_DEBIT"] {
		t.Errorf("START_DEBIT is on in the simulation; the kernel had it off")
	}

	// No configuration beside the image: Debian's HZ, said so.
	os.Remove(filepath.Join(dir, "config-6.1.0-test"))
	if hz, why := kernelHZ(res.Kernel); hz != DefaultHZ || why == "" {
		t.Errorf("kernelHZ without a config = %d, %q", hz, why)
	}
}

// A VM validation re-simulated without its kernel's image gives the same
// simulation and verdicts from what it recorded (HZ included).
func TestResimulate(t *testing.T) {
	data := `{"global": {"duration": 0.2}, "tasks": {"tick": {"timer": {"ref": "t", "period": 10000}, "run": 200}, "hog": {"run": 5000, "sleep": 1000}}}`
	spec, err := workload.Parse("tick.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Scenario: "tick.json", Runs: 2, DurationNS: 2e8, CPUs: 1, Seed: 5, Workload: data,
		VM: &VMFacts{Facts: vm.Facts{Kernel: &vm.Kernel{Name: "gone", Image: "/nonexistent/vmlinuz", Release: "6.1.0-x"}, VCPUs: 1,
			Sched: &vm.Sched{Features: []string{"NO_START_DEBIT"}}}, Release: "6.1.0-x", HZ: 1000}}
	if err := res.simulate(spec); err != nil {
		t.Fatal(err)
	}
	res.Host = res.Sim // the "kernel" agrees exactly with the model
	res.Figures = compare(res.Host, res.Sim, res.real())
	first := res.Sim
	if err := Resimulate(res); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(first, res.Sim, func(a, b RunStats) bool { return a.Timer == b.Timer && a.Wakeup == b.Wakeup }) {
		t.Errorf("re-simulation differs:\n%+v\n%+v", first, res.Sim)
	}
	if in, n := tally(res.Figures); in != n || n == 0 {
		t.Errorf("%d of %d inside; a model against itself is inside everywhere", in, n)
	}
	if res.Policy != "cfs-6.1" || !strings.Contains(strings.Join(res.Model, "\n"), "HZ 1000") {
		t.Errorf("policy %s, model %q", res.Policy, res.Model)
	}
	if err := Resimulate(&Result{Scenario: "host"}); err == nil {
		t.Errorf("a host validation was re-simulated")
	}
}

// A SIGEV_THREAD helper's own run is glibc's on a real machine: the
// simulation of a real run drops it, and only it, from a copy.
func TestWithoutHelperWork(t *testing.T) {
	spec, _, err := workload.Load("wakeup-latency-calibrated-make-j10", nil)
	if err != nil {
		t.Fatal(err)
	}
	runs := func(s *workload.Spec, name string) int {
		n := 0
		for _, task := range s.Tasks {
			if task.Name == name {
				for _, ph := range task.Phases {
					for _, e := range ph.Events {
						if e.Kind == workload.Run {
							n++
						}
					}
				}
			}
		}
		return n
	}
	out := WithoutHelperWork(spec)
	if runs(spec, "sigev-helper") == 0 || runs(out, "sigev-helper") != 0 {
		t.Errorf("helper runs: %d in the file, %d after", runs(spec, "sigev-helper"), runs(out, "sigev-helper"))
	}
	for _, name := range []string{"callback", "cc1", "make"} {
		if runs(out, name) != runs(spec, name) || runs(spec, name) == 0 {
			t.Errorf("%s: %d runs after, %d in the file", name, runs(out, name), runs(spec, name))
		}
	}
}
