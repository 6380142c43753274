package host

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A run's tracefs instance and cgroups live in file systems that every PID
// namespace on the machine shares, so neither a PID in their name nor a
// check that the PID lives can tell whose they are: two containers both
// have a PID 1, and a live run in one looks dead from the other. So:
//
//   - names are schedlab-<pid>-<random>: unique across namespaces, and the
//     PID still says to a person which process it was;
//   - a run holds an exclusive flock on each directory it made for as long
//     as it lives. The kernel drops the lock when the process dies, however
//     it dies, in whatever namespace; tracefs and cgroupfs take the VFS's
//     generic locks, and a lock does not keep a directory from removal.
//
// A directory whose lock can be taken has no living owner, unless it was
// made a moment ago and its owner has yet to lock it; stale cleanup leaves
// those alone (staleAge).

// runName is a new run's name.
func runName() string {
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("schedlab-%d-%s", os.Getpid(), hex.EncodeToString(b[:]))
}

// ownerLock marks dir as this process's: an exclusive flock held on it
// until the returned file is closed (or the process ends).
func ownerLock(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return f, nil
}

// staleAge is how old a directory must be before stale cleanup may take it:
// between its mkdir and its lock a live run holds no lock for a few
// microseconds.
const staleAge = 10 * time.Second

// takeStale locks dir if it is a stale run's: no process holds its lock,
// it is older than staleAge, and, for the names of schedlab before run
// names had a random part (schedlab-<pid>), no process of that PID lives
// here. The caller removes dir and then closes the file.
func takeStale(dir string, now time.Time) (*os.File, bool) {
	name := strings.TrimPrefix(filepath.Base(dir), "schedlab-")
	pidText, _, hasSuffix := strings.Cut(name, "-")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return nil, false // not a name schedlab makes
	}
	if !hasSuffix && syscall.Kill(pid, 0) == nil {
		return nil, false
	}
	fi, err := os.Stat(dir)
	if err != nil || now.Sub(fi.ModTime()) < staleAge {
		return nil, false
	}
	f, err := ownerLock(dir)
	if err != nil {
		return nil, false // its owner lives (EWOULDBLOCK), or it is gone
	}
	return f, true
}

// removeStale removes the tracefs instances and cgroups of earlier runs
// whose runner and janitor both died without cleaning up (the janitor,
// worker.c, normally removes them when the runner is killed).
func removeStale(tracefs string) []string {
	dirs, _ := filepath.Glob(filepath.Join(tracefs, "instances", "schedlab-*"))
	var cgroups []string
	seen := map[string]bool{}
	for _, name := range []string{"cpu", "pids", "memory"} {
		if c, err := findController(name); err == nil && !seen[c.dir] {
			seen[c.dir] = true
			cg, _ := filepath.Glob(filepath.Join(c.dir, "schedlab-*"))
			cgroups = append(cgroups, cg...)
		}
	}
	now := time.Now()
	var done []string
	for _, d := range append(dirs, cgroups...) {
		lock, ok := takeStale(d, now)
		if !ok {
			continue
		}
		// A cgroup's task groups go first, deepest first; an instance's
		// subdirectories belong to tracefs and go with it.
		var kids []string
		if !strings.HasPrefix(d, tracefs) {
			filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
				if err == nil && e.IsDir() && p != d {
					kids = append(kids, p)
				}
				return nil
			})
		}
		for i := len(kids) - 1; i >= 0; i-- {
			os.Remove(kids[i])
		}
		err := os.Remove(d)
		lock.Close()
		if err == nil || errors.Is(err, os.ErrNotExist) {
			done = append(done, "removed stale "+d+" (no run holds it)")
		}
	}
	return done
}
