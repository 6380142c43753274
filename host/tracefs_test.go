package host

import "testing"

func TestTracefsIn(t *testing.T) {
	for _, c := range []struct {
		mounts, tracefs, debugfs string
	}{
		{"sysfs /sys sysfs rw 0 0\nproc /proc proc rw 0 0\n", "", ""},
		{"tracefs /sys/kernel/tracing tracefs rw,nosuid 0 0\n", "/sys/kernel/tracing", ""},
		// Automounted under debugfs first, then at its own point: the
		// standard point wins.
		{"debugfs /sys/kernel/debug debugfs rw 0 0\ntracefs /sys/kernel/debug/tracing tracefs rw 0 0\ntracefs /sys/kernel/tracing tracefs rw 0 0\n",
			"/sys/kernel/tracing", "/sys/kernel/debug"},
		{"debugfs /sys/kernel/debug debugfs rw 0 0\n", "", "/sys/kernel/debug"},
		{"nodev /mnt/my\\040trace tracefs rw 0 0\n", "/mnt/my trace", ""},
		{"short line\n\n", "", ""},
	} {
		tfs, dfs := tracefsIn(c.mounts)
		if tfs != c.tracefs || dfs != c.debugfs {
			t.Errorf("%q: got %q, %q; want %q, %q", c.mounts, tfs, dfs, c.tracefs, c.debugfs)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`:    "/a b",
		`/tab\011x`:  "/tab\tx",
		`/back\134s`: `/back\s`,
		`/end\04`:    `/end\04`, // cut short: kept as it is
		`/plain`:     "/plain",
		`/bad\999`:   `/bad\999`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCgroupV1Mount(t *testing.T) {
	mounts := `tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,relatime,cpu,cpuacct 0 0
cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
`
	for name, want := range map[string]string{"cpu": "/sys/fs/cgroup/cpu,cpuacct", "cpuacct": "/sys/fs/cgroup/cpu,cpuacct", "pids": "/sys/fs/cgroup/pids", "memory": ""} {
		if got := cgroupV1Mount(mounts, name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}
