package sched

import "schedlab/uapi"

// NiceZeroLoad is the weight of a nice-0 task (SCHED_LOAD_SCALE, 1 << 10).
const NiceZeroLoad = 1024

// prioToWeight maps nice −20…19 (index nice+20) to a load weight. Each step is
// about ×1.25, so a task one nice level lower gets ≈ 10 % more CPU than one at
// the level above it. The table is the same in 2.6.24, 2.6.35 and 6.x.
var prioToWeight = [40]uint64{
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
}

// prioToWmult holds 2^32/weight for each entry of prioToWeight, so that a
// division by a task's weight becomes a multiply and a shift.
var prioToWmult = [40]uint64{
	48388, 59856, 76040, 92818, 118348,
	147320, 184698, 229616, 287308, 360437,
	449829, 563644, 704093, 875809, 1099582,
	1376151, 1717300, 2157191, 2708050, 3363326,
	4194304, 5237765, 6557202, 8165337, 10153587,
	12820798, 15790321, 19976592, 24970740, 31350126,
	39045157, 49367440, 61356676, 76695844, 95443717,
	119304647, 148102320, 186737708, 238609294, 286331153,
}

// SCHED_IDLE tasks run with a tiny fixed weight whatever their nice value.
const (
	IdleWeight  = 3
	IdleWmult   = 1431655765
	DefaultPrio = 120 // kernel priority of a nice-0 fair task
	// MaxRTPrio is the kernel's MAX_RT_PRIO: priorities 0 to 99 are the
	// real-time ones (0 is rt_priority 99; 99 is no real-time task's).
	MaxRTPrio = 100
)

// LoadWeight is a weight with its cached inverse (the kernel's struct
// load_weight). Inv == 0 means "not computed yet".
type LoadWeight struct {
	Weight uint64
	Inv    uint64
}

// NiceWeight returns the table weight and inverse of a nice level for the
// given policy (SCHED_IDLE ignores nice). Nice is clamped to [−20, 19].
func NiceWeight(nice int, p uapi.Policy) LoadWeight {
	if p == uapi.SchedIdle {
		return LoadWeight{IdleWeight, IdleWmult}
	}
	i := clampNice(nice) + 20
	return LoadWeight{prioToWeight[i], prioToWmult[i]}
}

func clampNice(n int) int {
	return min(max(n, uapi.MinNice), uapi.MaxNice)
}

// Arch selects the word size whose fixed-point rules the arithmetic follows.
// The seeds' 2010 machine, a Pentium M, was 32-bit; the host is 64-bit.
type Arch int

const (
	Arch64 Arch = 64
	Arch32 Arch = 32
)

// wmultConst is WMULT_CONST: 2^32 on 64-bit, 2^32−1 on 32-bit kernels
// (where ~0UL is 32 bits wide).
func (a Arch) wmultConst() uint64 {
	if a == Arch32 {
		return 1<<32 - 1
	}
	return 1 << 32
}

// longMax is LONG_MAX, the clamp applied to calc_delta_mine's result.
func (a Arch) longMax() uint64 {
	if a == Arch32 {
		return 1<<31 - 1
	}
	return 1<<63 - 1
}

// Ulong truncates v to the width of an unsigned long.
func (a Arch) Ulong(v uint64) uint64 {
	if a == Arch32 {
		return uint64(uint32(v))
	}
	return v
}

// srr is SRR(x, y): shift right with rounding to nearest.
func srr(x uint64, y uint) uint64 { return (x + 1<<(y-1)) >> y }

// CalcDeltaMine returns ≈ delta×weight/lw.Weight with the kernel's 2.6-era
// fixed point (calc_delta_mine). A zero lw.Inv is computed lazily as the
// kernel does, including its division by Weight+1, and cached in lw, so a
// queue's slice comes out a few hundred ns short of the exact quotient:
// tests compare against those kernel values, not exact ones.
func (a Arch) CalcDeltaMine(delta, weight uint64, lw *LoadWeight) uint64 {
	delta = a.Ulong(delta)
	wc := a.wmultConst()
	if lw.Inv == 0 {
		if a == Arch64 && lw.Weight >= wc {
			lw.Inv = 1
		} else {
			lw.Inv = 1 + (wc-lw.Weight/2)/(lw.Weight+1)
		}
	}
	tmp := delta * weight
	// Two half-shifts keep the product inside 64 bits once delta×weight
	// no longer fits in 32.
	if tmp > wc {
		tmp = srr(srr(tmp, 16)*lw.Inv, 16)
	} else {
		tmp = srr(tmp*lw.Inv, 32)
	}
	return a.Ulong(min(tmp, a.longMax()))
}

// CalcDeltaFair converts wall time into the virtual time of an entity of
// weight lw (calc_delta_fair): nice-0 time passes unchanged, heavier
// entities' virtual time runs slower, lighter ones' faster.
func (a Arch) CalcDeltaFair(delta uint64, lw *LoadWeight) uint64 {
	if lw.Weight != NiceZeroLoad {
		return a.CalcDeltaMine(delta, NiceZeroLoad, lw)
	}
	return delta
}

// Before reports whether virtual time a lies before b, wrap-safely: the
// timeline is a u64 that may wrap, and only differences are meaningful.
func Before(a, b uint64) bool { return int64(a-b) < 0 }

// MaxVruntime returns the later of two virtual times (wrap-safe).
func MaxVruntime(a, b uint64) uint64 {
	if int64(b-a) > 0 {
		return b
	}
	return a
}

// MinVruntime returns the earlier of two virtual times (wrap-safe).
func MinVruntime(a, b uint64) uint64 {
	if int64(b-a) < 0 {
		return b
	}
	return a
}
