package analyze_test

import (
	"reflect"
	"testing"

	"schedlab/analyze"
	"schedlab/internal/simtest"
	_ "schedlab/sched/eevdf"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// TestFastPathIsEvent runs simulations twice: once with the analyzer as
// the engine's sink, so that the engine calls its trace.FastSink methods,
// and once recorded (the Recorder takes Event, so the engine builds every
// event) and the recording fed to another analyzer's Event. The reports
// and samples must be the same: the two paths are one analysis.
func TestFastPathIsEvent(t *testing.T) {
	all := map[trace.Kind]int{}
	for _, c := range []struct {
		scenario, policy string
		ncpu             int
	}{
		{"wakeup-latency-calibrated-make-j10", "cfs-2.6.35", 1},
		{"wakeup-latency-calibrated-make-j10", "eevdf-6.12", 4}, // migrations
		{"sigev-thread", "cfs-2.6.24", 2},                       // forks and timer marks
		{"fair-user-sched", "cfs-2.6.24", 2},
	} {
		sp, _, err := workload.Load(c.scenario, nil)
		if err != nil {
			t.Fatal(err)
		}
		run := func(sink trace.Sink) int64 {
			e, err := sim.New(sim.Config{Spec: sp, Sched: simtest.Config(t, c.policy, c.ncpu, nil, nil), Params: sim.DefaultParams(),
				Duration: 3e9, Seed: 7, Sink: sink})
			if err != nil {
				t.Fatal(err)
			}
			end, err := e.Run()
			if err != nil {
				t.Fatal(err)
			}
			return end
		}
		opt := analyze.Options{Samples: true, PerTask: true}
		fast := analyze.NewWith(opt)
		if trace.AsFast(fast) != trace.FastSink(fast) {
			t.Fatal("the analyzer is not its own FastSink")
		}
		end := run(fast)
		var rec trace.Recorder
		if end2 := run(&rec); end2 != end {
			t.Fatalf("%s: the runs ended at %d and %d", c.scenario, end, end2)
		}
		slow := analyze.NewWith(opt)
		kinds := map[trace.Kind]int{}
		for i := range rec.Events {
			kinds[rec.Events[i].Kind]++
			slow.Event(&rec.Events[i])
		}
		got, want := fast.Finish(end), slow.Finish(end)
		if got.Events != len(rec.Events)-1 { // all but Begin
			t.Errorf("%s: the fast path saw %d events, the recording has %d", c.scenario, got.Events, len(rec.Events)-1)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s on %d CPUs: the fast path's report\n%+v\nEvent's\n%+v", c.scenario, c.ncpu, got, want)
		}
		gt, gw := fast.Samples()
		wt, ww := slow.Samples()
		if !reflect.DeepEqual(gt, wt) || !reflect.DeepEqual(gw, ww) {
			t.Errorf("%s: the samples differ", c.scenario)
		}
		for k, n := range kinds {
			all[k] += n
		}
		t.Logf("%s on %d CPUs: %v, %d wakeup samples", c.scenario, c.ncpu, kinds, len(gw))
	}
	for _, k := range []trace.Kind{trace.Switch, trace.Waking, trace.Wakeup, trace.WakeupNew, trace.Fork, trace.Exit, trace.Mark, trace.Migrate} {
		if all[k] == 0 {
			t.Errorf("no run had a %v", k)
		}
	}
}
