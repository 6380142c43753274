// Package pool runs independent jobs on a fixed number of goroutines: the
// one worker pool that reproduce, sweep and validate share.
//
// Jobs are numbered; a job writes its result into the caller's slot of
// its number, so what a run of many jobs produces never depends on which
// goroutine ran which job or in what order they finished.
package pool

import (
	"runtime"
	"sync"
)

// Size is how many goroutines Run uses for n jobs when asked for workers
// (0 or less: one per CPU): never more than the jobs, at least one.
func Size(workers, n int) int {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	return max(1, min(workers, n))
}

// Run calls do(i) for every i in [0, n) on workers goroutines (0 or less:
// one per CPU) and returns when every call has returned. do must be safe
// to call concurrently for distinct i. After each job, progress (if not
// nil) is called with the number of jobs finished and n; its calls are
// serialised, so it needs no lock of its own.
func Run(n, workers int, do func(i int), progress func(done, total int)) {
	workers = Size(workers, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
