package host

import (
	"slices"
	"testing"
)

func TestCPUList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-1": {0, 1}, "3,0-1": {0, 1, 3}, " 1,1 ": {1}, "0-1\n": {0, 1}} {
		got, err := ParseCPUs(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCPUs(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "2-1", "-1", "0,,1", "9999"} {
		if _, err := ParseCPUs(bad); err == nil {
			t.Errorf("ParseCPUs(%q) accepted", bad)
		}
	}
	if got := FormatCPUs([]int{0, 1, 2, 5, 7, 8}); got != "0-2,5,7-8" {
		t.Errorf("FormatCPUs = %q", got)
	}
}

// cpu.weight from cpu.shares as the kernel relates them.
func TestSharesToWeight(t *testing.T) {
	for shares, want := range map[uint64]uint64{1024: 100, 2: 1, 2048: 200, 512: 50, 262144: 10000, 100: 10} {
		if got := sharesToWeight(shares); got != want {
			t.Errorf("sharesToWeight(%d) = %d, want %d", shares, got, want)
		}
	}
}
