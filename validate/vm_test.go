package validate

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"schedlab/host"
	"schedlab/internal/hosttest"
	"schedlab/vm"
	"schedlab/workload"
)

// TestMain makes this test binary a guest's init when TestValidateInVM
// boots it.
func TestMain(m *testing.M) { hosttest.Main(m) }

// One validation in Debian's 6.1 under QEMU: one boot, two runs with the
// guest's settings, the simulation of its policy configured from them, and
// a verdict on every figure. No latency is asserted.
func TestValidateInVM(t *testing.T) {
	k := hosttest.Kernel(t, "debian-6.1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"global": {"duration": 1}, "tasks": {
		"tick": {"timer": {"ref": "t", "period": 10000}, "run": 200},
		"hog": {"run": 5000, "sleep": 1000}}}`)
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w, err := workload.Parse("tick-hog.json", data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, Options{Host: host.Options{Spec: w, Duration: time.Second, Seed: 3}, Scenario: "tick-hog", Runs: 2,
		VM: &vm.Options{Kernel: k, Name: "tick-hog", Workload: data, Warmup: 100 * time.Millisecond, Init: exe, Log: &log,
			Features: []string{"NO_START_DEBIT"}, Set: [][2]string{{"sched_wakeup_granularity_ns", "2000000"}}}})
	t.Logf("%s", log.String())
	if err != nil {
		t.Fatal(err)
	}
	if res.VM == nil || res.VM.Costs == nil || res.VM.Sched == nil {
		t.Fatalf("VM facts %+v", res.VM)
	}
	if want, _, _ := PolicyFor(res.VM.Release); res.Policy != want {
		t.Errorf("simulated as %s, want %s", res.Policy, want)
	}
	if len(res.Host) != 2 || len(res.Sim) != 2 || len(res.Figures) != 10 {
		t.Fatalf("runs %d/%d, figures %d", len(res.Host), len(res.Sim), len(res.Figures))
	}
	text := b0(res)
	// The guest's feature and tunable reached the simulation, through
	// what the kernel said of itself.
	for _, want := range []string{"kernel debian-6.1", "kernel median", "NO_START_DEBIT", "sched_wakeup_granularity_ns=2000000", "guest costs", "compared figures inside the kernel's"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	for i, r := range res.Host {
		if r.Timer.Count < 80 {
			t.Errorf("kernel run %d: %d timer samples of about 100", i, r.Timer.Count)
		}
	}
}
