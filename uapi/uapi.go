// Package uapi holds the numbers user space and the Linux kernel agree on
// for scheduling: the SCHED_* policies a thread asks for, and the range of
// nice values. They are the kernel's ABI, not any one scheduler's design,
// so the workload language, the simulated scheduling classes and the host
// runner all take them from here, and none of them depends on another for
// them.
//
// A policy's number is the one sched_setattr(2) and sched_setscheduler(2)
// take (include/uapi/linux/sched.h): a program may hand it to the kernel
// unchanged. A policy selects a scheduling class: SCHED_NORMAL, SCHED_BATCH
// and SCHED_IDLE are the fair class (CFS, later EEVDF), SCHED_FIFO and
// SCHED_RR the real-time class, SCHED_DEADLINE the deadline class. Number 4
// was reserved for SCHED_ISO, which was never merged, so a table indexed by
// policy has a hole there.
//
// Nice is the fair class's weight as user space sets it (setpriority(2),
// nice(2)): -20 is the heaviest, 19 the lightest, and the kernel clamps
// anything outside the range to its ends rather than refusing it.
package uapi

import "fmt"

// Policy is a thread's scheduling policy.
type Policy uint32

const (
	SchedNormal Policy = 0 // the default; called SCHED_OTHER in POSIX and glibc
	SchedFIFO   Policy = 1 // real time, runs until it blocks or yields
	SchedRR     Policy = 2 // real time, round robin among equal priorities
	// SchedBatch is fair, but a waking batch task never preempts the
	// running one: it is meant for throughput, not latency.
	SchedBatch Policy = 3
	// SchedIdle is fair with a fixed, tiny weight whatever its nice value,
	// so that it runs only when nothing else wants the CPU.
	SchedIdle     Policy = 5
	SchedDeadline Policy = 6 // earliest deadline first, with a runtime budget per period
)

// RealTime reports whether p is a policy of the real-time class.
func (p Policy) RealTime() bool { return p == SchedFIFO || p == SchedRR }

// The range of a real-time policy's sched_priority (sched_get_priority_min
// and _max of SCHED_FIFO and SCHED_RR on Linux).
const (
	MinRTPrio = 1
	MaxRTPrio = 99
)

// policyNames spells SCHED_NORMAL as user space does: workload files (and
// rt-app, chrt, ps) say SCHED_OTHER.
var policyNames = map[Policy]string{
	SchedNormal: "SCHED_OTHER", SchedFIFO: "SCHED_FIFO", SchedRR: "SCHED_RR",
	SchedBatch: "SCHED_BATCH", SchedIdle: "SCHED_IDLE", SchedDeadline: "SCHED_DEADLINE",
}

func (p Policy) String() string {
	if s, ok := policyNames[p]; ok {
		return s
	}
	return fmt.Sprintf("policy(%d)", uint32(p))
}

// ParsePolicy reads a policy's name as String writes it, and also the
// kernel's own spelling SCHED_NORMAL, which rt-app accepts beside
// SCHED_OTHER. Which policies a caller can use is its own business, so an
// unknown name is only reported, not explained.
func ParsePolicy(name string) (Policy, bool) {
	if name == "SCHED_NORMAL" {
		return SchedNormal, true
	}
	for p, s := range policyNames {
		if s == name {
			return p, true
		}
	}
	return 0, false
}

// The range of nice values (MIN_NICE and MAX_NICE in the kernel).
const (
	MinNice = -20
	MaxNice = 19
)
