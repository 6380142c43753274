package workload

import (
	"fmt"
	"math"
	"strings"

	"schedlab/workload/jsonc"
)

// The limits of the language. A workload file is data a user may have
// been handed, so what it can ask of the machine is bounded: every value
// that becomes a count, a length of time or a path is checked here, and a
// file over a limit is refused with its position, never run as something
// else (a number that wraps, a path that climbs out of its cgroup).
const (
	// MaxMicros is the longest time a file may write, in µs: 10⁷ s, the
	// cap lab.ParseDuration puts on a --duration in seconds. Its ns fit
	// an int64 900 times over, so the engine's sums of a time and a
	// length (now + sleep, a timer's grid + period) cannot wrap, and
	// every timestamp a trace gets is one analyze reads back.
	MaxMicros = 10_000_000_000_000
	// MaxNS is MaxMicros in ns: also the longest simulation (sim) and
	// the longest draw of a random duration.
	MaxNS = MaxMicros * 1000

	// MaxLoop is the most repetitions a loop may count: rt-app and the
	// host worker read a loop as a C int, so a larger count would run a
	// different number of times there than in the simulator
	// (4294967296 was 0 on the host).
	MaxLoop = math.MaxInt32

	// MaxFileSize bounds a workload file. Reading one costs up to some
	// 75 bytes of memory per byte (the ordered tree, then the programs),
	// so the worst file takes about 300 MB (a 100 MB file took 5.5 GB and
	// 45 s); the built-in scenarios are a few kB.
	MaxFileSize = 4 << 20
	// MaxEvents bounds the events of all task definitions together
	// (after repeated keys collapse): each costs the parser and the
	// runners a few hundred bytes.
	MaxEvents = 1 << 18
	// MaxThreads bounds the threads a workload has at once: the initial
	// ones (the sum of "instance") here, and the live ones, forks
	// included, in the simulator, as --pids-max bounds a host run. Each
	// costs the simulator about a kB (1,000,000 running and sleeping
	// threads took 1.1–1.2 GB of heap, BENCHMARKS.md);
	// calibrated-make-j100000, the largest built-in, has some 10⁵ live.
	MaxThreads = 1 << 20
	// MaxInstances bounds one task's "instance": a million threads from
	// one definition run (issue 16); ten million would take some 10 GB.
	MaxInstances = 1_000_000
	// MaxCPUList bounds the length of a "cpus" list: lab.MaxCPUs, the
	// most CPUs a simulation has (the host runner has fewer).
	MaxCPUList = 4096

	// MaxGroupDepth bounds the nesting of a task-group path: the
	// simulator walks a task's groups at every enqueue and dequeue.
	MaxGroupDepth = 64
	// maxGroupName is NAME_MAX, the longest name a cgroup directory
	// can have.
	maxGroupName = 255
)

// usRange says what a microsecond value may be, for error messages.
var usRange = fmt.Sprintf("a non-negative integer of microseconds up to %d (10⁷ s)", int64(MaxMicros))

// microsToNS converts a number of microseconds to ns; ok is false unless
// v is an integer in [0, MaxMicros].
func microsToNS(v *jsonc.Value) (ns int64, ok bool) {
	n, ok := v.Int()
	if !ok || n < 0 || n > MaxMicros {
		return 0, false
	}
	return n * 1000, true
}

// loopRange says what a loop may be, for error messages.
var loopRange = fmt.Sprintf("-1 (forever) or a positive integer up to %d (rt-app and the host worker read it as a C int)", MaxLoop)

// loopCount reads a loop; ok is false unless it is -1 or in [1, MaxLoop].
func loopCount(v *jsonc.Value) (n int, ok bool) {
	l, ok := v.Int()
	if !ok || l != -1 && (l < 1 || l > MaxLoop) {
		return 0, false
	}
	return int(l), true
}

// groupControllers are the prefixes of the kernel's cgroup interface
// files ("cpu.shares", "cgroup.procs", "memory.max"): a group named like
// one would collide with a file of its parent's directory on the host.
var groupControllers = []string{"cgroup", "cpu", "cpuacct", "cpuset", "io", "blkio", "memory", "devices", "freezer",
	"net_cls", "net_prio", "perf_event", "hugetlb", "pids", "rdma", "misc"}

// groupFiles are v1 interface files without a controller prefix.
var groupFiles = map[string]bool{"tasks": true, "notify_on_release": true, "release_agent": true}

// groupPathShape says what a task-group path may be, for error messages.
const groupPathShape = "a path is /name or /a/b, each name letters, digits and -_.@:+, not starting with '.'"

// checkGroupPath accepts a task-group path "/a/b": components that are
// plain cgroup names. The host runner makes each component a directory
// under the run's own cgroup, so "..", "." or an empty component would
// name another directory than the one meant, or one outside the run's.
func checkGroupPath(s string) error {
	if !strings.HasPrefix(s, "/") || s == "/" {
		return fmt.Errorf("task group path %q: %s", s, groupPathShape)
	}
	parts := strings.Split(s[1:], "/")
	if len(parts) > MaxGroupDepth {
		return fmt.Errorf("task group path %.40q… nests %d groups: at most %d", s, len(parts), MaxGroupDepth)
	}
	for _, c := range parts {
		if err := checkGroupName(c); err != nil {
			return fmt.Errorf("task group path %.300q: %v (%s)", s, err, groupPathShape)
		}
	}
	return nil
}

// checkGroupName accepts a plain cgroup name: letters, digits and
// "-_.@:+" (systemd's "user@1000.service" among them), not starting with
// a dot, at most NAME_MAX bytes, and not the name of an interface file.
func checkGroupName(c string) error {
	switch {
	case c == "":
		return fmt.Errorf("an empty name")
	case c == "." || c == "..":
		return fmt.Errorf("%q is not a group's name", c)
	case c[0] == '.':
		return fmt.Errorf("%q starts with '.'", c)
	case len(c) > maxGroupName:
		return fmt.Errorf("a name of %d bytes, over NAME_MAX (%d)", len(c), maxGroupName)
	}
	for _, r := range c {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_.@:+", r)) {
			return fmt.Errorf("%q has the character %q", c, r)
		}
	}
	if groupFiles[c] {
		return fmt.Errorf("%q is the name of a cgroup interface file", c)
	}
	if prefix, _, ok := strings.Cut(c, "."); ok {
		for _, ctl := range groupControllers {
			if prefix == ctl {
				return fmt.Errorf("%q is named like the %s controller's interface files (%s.*)", c, ctl, ctl)
			}
		}
	}
	return nil
}
