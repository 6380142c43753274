// Package buildinfo says which build of schedlab is running: for people
// (Version) and for results that must not mix across builds (ID).
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// Version says which build this is: the module version (or "devel"), the
// commit it was built from and whether the tree had changes, and the Go
// release. go build stamps the commit from the checkout; go run does not.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	rev, at, dirty := vcs(bi)
	switch {
	case rev == "":
		v += ", commit unknown (built without VCS information, e.g. by go run)"
	default:
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += ", commit " + rev
		if at != "" {
			v += " (" + at + ")"
		}
		if dirty {
			v += ", with uncommitted changes"
		}
	}
	return v + ", " + bi.GoVersion
}

// vcs is what go build stamped from the checkout: the commit, its time,
// and whether the tree had uncommitted changes.
func vcs(bi *debug.BuildInfo) (rev, at string, dirty bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, at, dirty
}

var (
	idOnce sync.Once
	id     string
)

// ID names this build for keys of stored results: the commit it was built
// from, or, for a build with uncommitted changes or without VCS
// information (go run, -buildvcs=false), a hash of the executable, so that
// a changed binary never reuses an older one's results.
func ID() string {
	idOnce.Do(func() {
		if bi, ok := debug.ReadBuildInfo(); ok {
			rev, _, dirty := vcs(bi)
			if rev != "" && !dirty {
				id = rev[:min(12, len(rev))]
				return
			}
		}
		id = "exe-" + exeHash()
	})
	return id
}

// exeHash is the first 12 hex digits of the running executable's SHA-256.
func exeHash() string {
	p, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	f, err := os.Open(p)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
