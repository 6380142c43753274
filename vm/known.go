package vm

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A kernel's scheduler features and tunables are only known once it has
// booted. For a kernel in the cache, the first boot's report (Sched) is
// kept beside its image, so that a later run that names a feature or
// tunable the kernel lacks fails before booting rather than after.

// knownPath is where a cached kernel's Sched is kept ("" for a kernel
// outside the cache: nothing is written beside a user's own image).
func knownPath(k *Kernel) string {
	root, err := CacheDir()
	if err != nil {
		return ""
	}
	dir := filepath.Dir(k.Image)
	if rel, err := filepath.Rel(root, dir); err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.Join(dir, "sched-"+k.Release+".json")
}

func rememberSched(k *Kernel, s *Sched) {
	p := knownPath(k)
	if p == "" || s == nil || len(s.Features) == 0 {
		return
	}
	if b, err := json.Marshal(s); err == nil {
		tmp := p + ".tmp"
		if os.WriteFile(tmp, b, 0o644) == nil {
			os.Rename(tmp, p)
		}
	}
}

func knownSched(k *Kernel) *Sched {
	p := knownPath(k)
	if p == "" {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var s Sched
	if json.Unmarshal(b, &s) != nil || len(s.Features) == 0 {
		return nil
	}
	return &s
}

// checkKnown refuses features and tunables the kernel is known to lack,
// with the guest's own words (guest.go's applySched).
func checkKnown(k *Kernel, features []string, set [][2]string) error {
	s := knownSched(k)
	if s == nil {
		return nil
	}
	if msg := s.lacks(fmt.Sprintf("kernel %s (Linux %s)", k.Name, k.Release), features, set); msg != "" {
		return &InputError{Msg: msg}
	}
	return nil
}

// lacks says which of features and set (the launcher's, simulator names)
// the kernel s describes does not have, and what it has, naming the kernel
// as who; "" when it has them all. The guest asks it of the kernel it
// runs on, the launcher of a kernel's kept report.
func (s *Sched) lacks(who string, features []string, set [][2]string) string {
	for _, f := range features {
		name := strings.TrimPrefix(strings.TrimSpace(f), "NO_")
		if !slices.Contains(s.Features, name) && !slices.Contains(s.Features, "NO_"+name) {
			return fmt.Sprintf("--features: %s has no sched feature %s (it has: %s)", who, name, strings.Join(s.Features, " "))
		}
	}
	for _, kv := range set {
		name := "sched_" + strings.TrimPrefix(kv[0], "sched_")
		if _, ok := s.Tunables[name]; !ok {
			has := slices.Sorted(maps.Keys(s.Tunables))
			return fmt.Sprintf("--set %s: %s has no such tunable (it has: %s)", kv[0], who, strings.Join(has, ", "))
		}
	}
	return ""
}
