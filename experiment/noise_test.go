package experiment

import (
	"flag"
	"testing"

	"schedlab/sim"
)

var noisy = flag.Bool("noise", false, "rerun every experiment with ten times the VM's noise and log every verdict (seconds)")

// TestNoiseTenfold reruns the seed experiments with ten times
// NoiseSettings' means, and a cache-refill noise of the same size on every
// context switch, and logs each claim's verdict beside the noise-free one:
// how far from the VM's noise (the second check of every claim) a verdict
// still stands. EXPERIMENTS.md ("Noise") records its output.
//
//	go test ./experiment -run TestNoiseTenfold -noise -v
func TestNoiseTenfold(t *testing.T) {
	if !*noisy {
		t.Skip("the tenfold noise check runs with -noise")
	}
	base, err := Run(All(), Options{NoNoiseCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	set := []Setting{{sim.ParamNoiseSwitch, 10 * NoiseSettings[0].Value}}
	for _, s := range NoiseSettings {
		set = append(set, Setting{s.Name, 10 * s.Value})
	}
	var exps []*Experiment
	for _, e := range All() {
		c := *e
		c.Set = append(append([]Setting{}, e.Set...), set...)
		exps = append(exps, &c)
	}
	res, err := Run(exps, Options{NoNoiseCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		for j, c := range r.Claims {
			b := base[i].Claims[j]
			t.Logf("%s: %q: without noise %v, tenfold noise %v [%s → %s]", r.ID, c.Text, b.Holds, c.Holds, b.Detail, c.Detail)
		}
	}
}
