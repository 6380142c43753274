package sweep

import (
	"fmt"
	"testing"
)

// BenchmarkSweepWorkers measures sweep throughput (runs per second) with 1
// and 2 workers on the same grid: on this 2-core machine the ratio is the
// speed-up from parallel runs.
func BenchmarkSweepWorkers(b *testing.B) {
	g, err := ParseGrid("bench", []byte(`{"scenarios": ["wakeup-latency-make-j10"], "seeds": [1,2,3,4,5,6,7,8], "duration": "60s"}`))
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			runs := 0
			for i := 0; i < b.N; i++ {
				sum, err := Run(g, Options{Out: b.TempDir(), Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				runs += sum.Ran
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
