package vm

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// The generated tree compiles with the machine's gcc -O2 (two of its
// files: every file has the same form).
func TestBuildTreeCompiles(t *testing.T) {
	if _, err := toolchain(); err != nil {
		t.Skipf("no toolchain: %v", err)
	}
	dir := t.TempDir()
	if err := writeBuildTree(dir, 2); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("make", "-s", "-j2", "-C", dir, "f00.o", "f39.o").CombinedOutput()
	if err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	if objs, _ := filepath.Glob(filepath.Join(dir, "*.o")); len(objs) != 2 {
		t.Errorf("objects %v, want f00.o and f39.o", objs)
	}
	tc, _ := toolchain()
	for _, p := range []string{"/usr/bin/make", "/usr/bin/gcc", "/usr/bin/as", "/bin/sh"} {
		if tc[p] == "" {
			t.Errorf("the toolchain lacks %s: %v", p, tc)
		}
	}
}
