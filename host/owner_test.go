package host

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Stale cleanup takes a directory only when no process holds its lock, it
// is old enough, and its name is one schedlab makes.
func TestTakeStale(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	mk := func(name string, age time.Duration) string {
		d := filepath.Join(root, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	old := 2 * staleAge
	dead := mk("schedlab-123-0a1b2c3d", old)
	held := mk("schedlab-124-0a1b2c3d", old)
	young := mk("schedlab-125-0a1b2c3d", staleAge/2)
	// The old naming: its PID is this process's, alive.
	oldNameAlive := mk("schedlab-"+strconv.Itoa(os.Getpid()), old)
	foreign := mk("schedlab-notes", old)

	lock, err := ownerLock(held)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	for _, c := range []struct {
		dir  string
		want bool
	}{{dead, true}, {held, false}, {young, false}, {oldNameAlive, false}, {foreign, false}} {
		f, ok := takeStale(c.dir, now)
		if ok != c.want {
			t.Errorf("%s: taken %v, want %v", filepath.Base(c.dir), ok, c.want)
		}
		if f != nil {
			f.Close()
		}
	}
	// Once its owner lets go, the held one is stale too.
	lock.Close()
	if f, ok := takeStale(held, now); !ok {
		t.Errorf("%s: not taken after its owner closed its lock", held)
	} else {
		f.Close()
	}
}

func TestRunNameUnique(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		n := runName()
		if seen[n] {
			t.Fatalf("%s made twice", n)
		}
		seen[n] = true
	}
}
