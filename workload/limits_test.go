package workload

import (
	"fmt"
	"strings"
	"testing"
)

// wantError parses js and checks that the error names the file and a
// position and says each of want.
func wantError(t *testing.T, js string, want ...string) {
	t.Helper()
	_, err := Parse("w.json", []byte(js))
	if err == nil {
		t.Errorf("%.120s: no error", js)
		return
	}
	if !strings.HasPrefix(err.Error(), "w.json:") {
		t.Errorf("%.120s: error %q does not name the file", js, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%.120s: error %q lacks %q", js, err, w)
		}
	}
}

// A task-group path becomes directories below the run's cgroup on the
// host: a component that is not a plain cgroup name must be refused
// where it is written, whichever key writes it.
func TestGroupPathsArePlainCgroupNames(t *testing.T) {
	for _, bad := range []string{
		"/..", "/a/..", "/../../etc", "/a/../b", "/.", "/a/./b", "/a//b", "/a/", "//a",
		"/.hidden", "/a b", "/a\nb", "/a\\b", "/é", "/a/cgroup.procs", "/cpu.shares", "/tasks",
		"/memory.max", "/" + strings.Repeat("x", 256), "/" + strings.Repeat("a/", MaxGroupDepth) + "a",
	} {
		for _, js := range []string{
			fmt.Sprintf(`{"tasks": {"a": {"taskgroup": %q, "run": 1}}}`, bad),
			fmt.Sprintf(`{"global": {"taskgroups": {%q: {"shares": 2}}}, "tasks": {"a": {"run": 1}}}`, bad),
		} {
			wantError(t, js, "task group path", "w.json:1:")
		}
	}
	s := mustParse(t, `{"global": {"taskgroups": {"/user.slice/x-1_2": {"shares": 2}}},
		"tasks": {"a": {"taskgroup": "/user@1000.service/a:b+c", "run": 1},
		"b": {"taskgroup": "/`+strings.Repeat("a/", MaxGroupDepth-1)+`a", "run": 1}}}`)
	if len(s.Groups) != 4+MaxGroupDepth {
		t.Errorf("%d groups", len(s.Groups))
	}
}
