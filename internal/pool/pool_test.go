package pool

import (
	"sync/atomic"
	"testing"
)

func TestRunEveryJobOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		const n = 50
		var calls [n]atomic.Int32
		var last int
		var progressCalls int
		Run(n, workers, func(i int) { calls[i].Add(1) }, func(done, total int) {
			// Serialised: a plain int suffices, and done counts up by one.
			progressCalls++
			if done != last+1 || total != n {
				t.Errorf("progress(%d, %d) after %d", done, total, last)
			}
			last = done
		})
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("workers %d: job %d ran %d times", workers, i, c)
			}
		}
		if progressCalls != n {
			t.Errorf("workers %d: %d progress calls, want %d", workers, progressCalls, n)
		}
	}
	Run(0, 4, func(int) { t.Error("a job of none ran") }, nil)
}
