package analyze_test

import (
	"syscall"
	"testing"

	"schedlab/analyze"
	"schedlab/internal/simtest"
	_ "schedlab/sched/cfs" // the policy, and the classes the scenario uses
	_ "schedlab/sched/dl"
	_ "schedlab/sched/rt"
	"schedlab/sim"
	"schedlab/trace"
	"schedlab/workload"
)

// BenchmarkAnalyzerReplay is the analysis alone on the stream of issue
// 16's scenario: wakeup-latency-calibrated-make-j10 on 1 CPU (cfs-2.6.35), 30
// simulated seconds recorded once, then fed to a new Analyzer per op
// (Finish included). It reports CPU ns (user+sys, the collector's work
// included) and wall ns per event.
func BenchmarkAnalyzerReplay(b *testing.B) {
	sp, _, err := workload.Load("wakeup-latency-calibrated-make-j10", nil)
	if err != nil {
		b.Fatal(err)
	}
	var rec trace.Recorder
	e, err := sim.New(sim.Config{Spec: sp, Sched: simtest.Config(b, "cfs-2.6.35", 1, nil, nil), Params: sim.DefaultParams(),
		Duration: 30e9, Sink: &rec})
	if err != nil {
		b.Fatal(err)
	}
	end, err := e.Run()
	if err != nil {
		b.Fatal(err)
	}
	events := rec.Events
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNS(b)
	for b.Loop() {
		a := analyze.New()
		for i := range events {
			a.Event(&events[i])
		}
		a.Finish(end)
	}
	cpu := cpuNS(b) - cpu0
	n := float64(b.N) * float64(len(events))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(cpu)/n, "cpu-ns/event")
	b.ReportMetric(float64(len(events)), "events/op")
}

func cpuNS(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
