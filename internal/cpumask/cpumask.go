// Package cpumask holds sets of CPUs as bitmaps, as the kernel keeps
// cpumasks (nohz.idle_cpus_mask, the overload masks of a root domain):
// the balancer asks for the first idle CPU, or the busiest, among a
// thousand without looking at each one.
package cpumask

import "math/bits"

// Mask is a set of CPUs numbered from 0.
type Mask []uint64

// New returns an empty mask for n CPUs.
func New(n int) Mask { return make(Mask, (n+63)/64) }

// Set adds cpu when on is true and removes it otherwise.
func (m Mask) Set(cpu int, on bool) {
	w, b := cpu>>6, uint64(1)<<(cpu&63)
	if on {
		m[w] |= b
	} else {
		m[w] &^= b
	}
}

// Has reports whether cpu is in m.
func (m Mask) Has(cpu int) bool { return m[cpu>>6]&(1<<(cpu&63)) != 0 }

// Next returns the lowest CPU of m in [from, to), or −1.
func (m Mask) Next(from, to int) int {
	if from >= to {
		return -1
	}
	w := from >> 6
	x := m[w] &^ (1<<(from&63) - 1)
	last := (to - 1) >> 6
	for {
		if x != 0 {
			if c := w<<6 + bits.TrailingZeros64(x); c < to {
				return c
			}
			return -1
		}
		if w++; w > last {
			return -1
		}
		x = m[w]
	}
}

// Levels files each CPU under a level (0: not filed), and finds the
// lowest-numbered CPU of the highest level (the busiest CPU by its count
// of tasks, lowest number on a tie, as a scan in CPU order would find
// it) and the CPUs of the lowest (the idlest). Moving a CPU between
// levels is O(1); a query looks at the top level's words (n/64) and, only
// when the CPU to leave out is alone there, at the levels below.
//
// The caller keeps each CPU's level and says where a CPU moves from
// (Move): the engine has it in the CPU's first cache line, which the
// change has just touched, where an array of levels here was one more
// line per move, and at a thousand CPUs, whose changes come in no order,
// nearly every read of it missed (cachegrind, 1,024 CPUs × 40 tasks: 1.1
// L1d misses an event). Level finds a CPU's level by its masks, for
// checks.
type Levels struct {
	n      int
	masks  []Mask // masks[k]: the CPUs at level k ≥ 1 (masks[0] unused)
	counts []int
	top    int // the highest level with a CPU, 0 when none
	bottom int // the lowest level ≥ 1 with a CPU, 0 when none
}

// NewLevels returns Levels for n CPUs, every one at level 0.
func NewLevels(n int) *Levels {
	return &Levels{n: n, masks: []Mask{nil}, counts: []int{0}}
}

// Move files cpu, which is at level from, at level to (levels ≥ 0).
func (l *Levels) Move(cpu, from, to int) {
	if from == to {
		return
	}
	if to > 0 {
		for len(l.masks) <= to {
			l.masks = append(l.masks, New(l.n))
			l.counts = append(l.counts, 0)
		}
		l.masks[to].Set(cpu, true)
		l.counts[to]++
		l.top = max(l.top, to)
		if l.bottom == 0 || to < l.bottom {
			l.bottom = to
		}
	}
	if from > 0 {
		l.masks[from].Set(cpu, false)
		// Only a level that empties can move the top or the bottom. A
		// CPU still filed keeps bottom ≥ 1 and a non-empty level at or
		// above it, where the search up stops.
		if l.counts[from]--; l.counts[from] == 0 {
			for l.top > 0 && l.counts[l.top] == 0 {
				l.top--
			}
			if l.top == 0 {
				l.bottom = 0
			}
			for l.bottom > 0 && l.counts[l.bottom] == 0 {
				l.bottom++
			}
		}
	}
}

// Bottom returns the lowest level any CPU is filed at (≥ 1), and the
// mask of the CPUs there; 0 and nil when none is filed.
func (l *Levels) Bottom() (int, Mask) {
	if l.bottom == 0 {
		return 0, nil
	}
	return l.bottom, l.masks[l.bottom]
}

// Level returns cpu's level, found in the masks (for checks), or −1 when
// cpu is filed at more than one level, as a Move from a wrong level would
// leave it.
func (l *Levels) Level(cpu int) int {
	k := 0
	for i := 1; i < len(l.masks); i++ {
		if l.masks[i].Has(cpu) {
			if k != 0 {
				return -1
			}
			k = i
		}
	}
	return k
}

// Top returns the lowest-numbered CPU other than except (−1 for none) at
// the highest level any such CPU has, or −1 when every CPU but except is
// at level 0.
func (l *Levels) Top(except int) int {
	for k := l.top; k > 0; k-- {
		if l.counts[k] == 0 {
			continue
		}
		m := l.masks[k]
		if c := m.Next(0, l.n); c != except {
			return c
		}
		if c := m.Next(except+1, l.n); c >= 0 {
			return c
		}
	}
	return -1
}
