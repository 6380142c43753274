package sim

import "math/rand/v2"

// The noise model. A simulated machine is exact: without noise every
// sample of a simple workload is the same number of nanoseconds, p99 is the
// same over every seed, and a claim can hold only because two paths tie to
// the nanosecond. A real machine's paths jitter (an interrupt's entry, a
// cache refill, another interrupt landing in the path). Each noisy path
// gets an exponential extra delay, a mean per path and nothing else, drawn
// from a stream of its own seeded by the run's seed: the same seed gives
// the same bytes, and the workload's own random durations and the
// balancer's jitter (smp.go) draw exactly what they drew without noise.
//
// The noise is off by default (every mean 0): the seed experiments model
// 2008 and 2010 machines whose noise nobody measured, and a default of
// the right order would still be a guess; their claims are checked again
// with the VM's measured noise and ten times it instead
// (experiment.NoiseLevels; EXPERIMENTS.md, "Changes of the model").
// validate's VM profile turns it on with the means measured once on the
// VM (validate.VMNoiseTimer, VMNoiseResched).
//
// An exponential is the plainest law with a floor and a tail: the base
// cost is the path's fixed part (cost_wakeup_ns, cost_resched_ns,
// cost_idle_resched_ns, cost_block_ns, cost_context_switch_ns), the noise
// only adds.

// newNoiseRNG is the noise stream of a run: seeded by the seed alone, with
// constants of its own so that it shares no draws with the workload's or
// the balancer's streams.
func newNoiseRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0xbb67ae8584caa73b, seed^0x3c6ef372fe94f82b))
}

// noise draws one path's extra delay, of mean mean ns: at least 1 ns when
// the noise is on, so that a noisy path never takes exactly its base; 0,
// without a draw, when it is off.
func (e *Engine) noise(mean int64) int64 {
	if mean <= 0 {
		return 0
	}
	return max(1, int64(float64(mean)*e.noiseRNG.ExpFloat64()))
}
