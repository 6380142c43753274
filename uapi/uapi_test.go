package uapi

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"schedlab/internal/testskip"
)

var policies = []Policy{SchedNormal, SchedFIFO, SchedRR, SchedBatch, SchedIdle, SchedDeadline}

// The numbers are the kernel's: the host runner passes them to
// sched_setattr as they are, so a wrong one would run a workload under
// another policy without any error. The kernel's header, where the machine
// has it (the host worker's C needs it to build), is the judge.
func TestPoliciesMatchKernelHeader(t *testing.T) {
	const header = "/usr/include/linux/sched.h"
	src, err := os.ReadFile(header)
	if err != nil {
		testskip.Skip(t, "no kernel header to compare with: %v", err)
	}
	defined := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^#define\s+(SCHED_[A-Z]+)\s+(\d+)\s*$`).FindAllSubmatch(src, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		defined[string(m[1])] = n
	}
	for _, p := range policies {
		name := p.String()
		if p == SchedNormal {
			name = "SCHED_NORMAL" // the kernel's spelling of SCHED_OTHER
		}
		if n, ok := defined[name]; !ok || n != int(p) {
			t.Errorf("%s is %d here, %d (defined %v) in %s", name, p, n, ok, header)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range policies {
		if got, ok := ParsePolicy(p.String()); !ok || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p.String(), got, ok)
		}
	}
	if got, ok := ParsePolicy("SCHED_NORMAL"); !ok || got != SchedNormal {
		t.Errorf("ParsePolicy(SCHED_NORMAL) = %v, %v", got, ok)
	}
	for _, bad := range []string{"", "SCHED_ISO", "sched_other", "SCHED_OTHER "} {
		if p, ok := ParsePolicy(bad); ok {
			t.Errorf("ParsePolicy(%q) = %v, want refused", bad, p)
		}
	}
	if s := Policy(4).String(); s != "policy(4)" {
		t.Errorf("Policy(4) = %q", s)
	}
}
