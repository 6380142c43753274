// The cost probe (probe.c): what this machine's kernel paths cost, for the
// simulator's engine parameters.

#ifndef SCHEDLAB_PROBE_H
#define SCHEDLAB_PROBE_H

#include <stdint.h>

// The environment variable that makes an exec of this binary exit at once
// (the fork + exec probe's child).
#define SL_PROBE_ENV "SCHEDLAB_PROBE_CHILD"

// Medians, ns; -1 where a step failed.
struct sl_probe {
	int64_t ctxsw_ns;    // a thread-to-thread switch on one CPU, pipe work taken off
	int64_t pipe_ns;     // the pipe write + read taken off
	int64_t clone_ns;    // the parent's CPU time in pthread_create
	int64_t forkexec_ns; // fork + exec of this binary + exit + wait, wall time
	int64_t timer_ns;    // an hrtimer sleep's end to user code, on an idle CPU
};

// sl_probe measures on CPU cpu; it returns 0 or an errno of the pinning.
int sl_probe(int cpu, struct sl_probe *out);

#endif
