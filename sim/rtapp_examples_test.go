package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedlab/sim"
	"schedlab/workload"
)

// rtappExamples is where Debian's rt-app package puts rt-app's example
// files. They are GPL-2.0 and are read in place, not copied here.
const rtappExamples = "/usr/share/doc/rt-app/examples"

// TestRtappExamples runs every example file of rt-app (not merge/, which
// holds fragments for merge.py) through the parser and 2 s of simulation
// on 3 CPUs (tutorial example8 pins phases to CPUs 0, 1 and 2), with the
// engine's invariants checked: each must run.
func TestRtappExamples(t *testing.T) {
	var files []string
	filepath.WalkDir(rtappExamples, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "merge" {
			return filepath.SkipDir
		}
		if err == nil && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("no rt-app examples in %s (Debian's rt-app package installs them)", rtappExamples)
	}
	ran := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// As rt-app reads it, and as workgen (which the examples that
		// repeat keys are written for) prepares it.
		for _, wg := range []bool{false, true} {
			s, err := workload.ParseWith(f, data, workload.ReadOptions{Workgen: wg})
			if err != nil {
				t.Errorf("%s (workgen %v): %v", f, wg, err)
				continue
			}
			e, err := sim.New(sim.Config{Spec: s, Sched: schedConfig(t, "cfs-2.6.35", 3, nil, nil), Params: sim.DefaultParams(), Duration: 2e9, Seed: 1, Check: true})
			if err == nil {
				_, err = e.Run()
			}
			if err != nil {
				t.Errorf("%s (workgen %v): %v", f, wg, err)
			} else if !wg {
				ran++
			}
		}
	}
	t.Logf("%d of %d example files ran", ran, len(files))
	if ran < len(files) {
		t.Errorf("only %d of %d example files ran", ran, len(files))
	}
}
