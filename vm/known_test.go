package vm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cached kernel's first report makes later runs refuse, before booting,
// a feature or tunable it lacks; a kernel outside the cache gets nothing
// written beside it.
func TestKnownSched(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "debian-6.1")
	os.MkdirAll(dir, 0o755)
	k := &Kernel{Name: "debian-6.1", Image: filepath.Join(dir, "vmlinuz-6.1.0-x"), Release: "6.1.0-x"}
	if err := checkKnown(k, []string{"NO_NOPE"}, nil); err != nil {
		t.Fatalf("nothing known yet, but %v", err)
	}
	rememberSched(k, &Sched{Features: []string{"START_DEBIT", "NO_NEXT_BUDDY"}, Tunables: map[string]int64{"sched_latency_ns": 6000000}})
	for _, c := range []struct {
		feats []string
		set   [][2]string
		want  string
	}{
		{[]string{"NO_START_DEBIT", "NEXT_BUDDY"}, [][2]string{{"sched_latency_ns", "1"}, {"latency_ns", "2"}}, ""},
		{[]string{"PLACE_LAG"}, nil, "has no sched feature PLACE_LAG (it has: START_DEBIT NO_NEXT_BUDDY)"},
		{nil, [][2]string{{"sched_base_slice_ns", "1"}}, "has no such tunable (it has: sched_latency_ns)"},
	} {
		err := checkKnown(k, c.feats, c.set)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("checkKnown(%q, %q) = %v, want %q", c.feats, c.set, err, c.want)
		}
	}
	own := &Kernel{Name: "/tmp/bzImage", Image: filepath.Join(t.TempDir(), "bzImage"), Release: "6.9.0"}
	rememberSched(own, &Sched{Features: []string{"X"}})
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(own.Image), "sched-*")); len(m) > 0 {
		t.Errorf("wrote %v beside a user's image", m)
	}
}
