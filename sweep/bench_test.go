package sweep

import (
	"fmt"
	"syscall"
	"testing"
)

// cpuSeconds is the process's CPU time so far (user + sys, every thread).
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkSweepWorkers measures sweep throughput (runs per second) with 1
// and 2 workers on the same grid: on this 2-core machine the ratio is the
// speed-up from parallel runs; runs/cpu-s is the cost of a run whatever
// else the machine is doing.
func BenchmarkSweepWorkers(b *testing.B) {
	g, err := ParseGrid("bench", []byte(`{"scenarios": ["wakeup-latency-calibrated-make-j10"], "seeds": [1,2,3,4,5,6,7,8], "duration": "60s"}`))
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			runs := 0
			cpu0 := cpuSeconds(b)
			for i := 0; i < b.N; i++ {
				sum, err := Run(g, Options{Out: b.TempDir(), Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				runs += sum.Ran
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(float64(runs)/(cpuSeconds(b)-cpu0), "runs/cpu-s")
		})
	}
}
