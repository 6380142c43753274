package host

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FormatCPUs writes a CPU list as the kernel does ("0-1,4").
func FormatCPUs(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// maxCPUList bounds a CPU number in a list: the kernel's largest NR_CPUS.
const maxCPUList = 8192

// ParseCPUs reads a CPU list ("0", "0-1", "0,2-3") as the kernel writes
// them, sorted and without repeats.
func ParseCPUs(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 0 || a >= maxCPUList {
			return nil, fmt.Errorf("%q is not a CPU list such as 0, 0-1 or 0,2-3", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a || b >= maxCPUList {
				return nil, fmt.Errorf("%q is not a CPU list such as 0, 0-1 or 0,2-3", s)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
