//go:build cgo

package host

import (
	"cmp"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"schedlab/workload"
)

// workerEnums reads the enumerators of worker.h as C numbers them: from 0,
// or the value written, then one more than the one before.
func workerEnums(t *testing.T) map[string]int {
	t.Helper()
	src, err := os.ReadFile("worker.h")
	if err != nil {
		t.Fatal(err)
	}
	src = regexp.MustCompile(`//.*`).ReplaceAll(src, nil)
	enums := map[string]int{}
	for _, body := range regexp.MustCompile(`(?s)enum\s+\w+\s*\{(.*?)\}`).FindAllSubmatch(src, -1) {
		next := 0
		for _, item := range strings.Split(string(body[1]), ",") {
			name, value, explicit := strings.Cut(strings.TrimSpace(item), "=")
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if explicit {
				if next, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
					t.Fatalf("worker.h: enumerator %s = %q: %v", name, value, err)
				}
			}
			enums[name] = next
			next++
		}
	}
	return enums
}

// checkCodes holds a table of worker.go to worker.h: the code of each kind
// the workload language has is the enumerator named after the kind, and
// every enumerator of the family is some kind's code, so that C and Go
// know the same kinds and mean the same by each.
func checkCodes[K comparable](t *testing.T, enums map[string]int, family string, kinds []K, name func(K) string, table map[K]int) {
	t.Helper()
	used := map[string]bool{}
	for _, k := range kinds {
		want := family + strings.ToUpper(name(k))
		c, ok := enums[want]
		switch {
		case !ok:
			t.Errorf("%q: worker.h has no %s", name(k), want)
		case table[k] != c:
			t.Errorf("%q: worker.go writes %d, but %s is %d", name(k), table[k], want, c)
		}
		used[want] = true
	}
	if len(table) != len(kinds) {
		t.Errorf("worker.go has %d codes for the %d kinds of %s", len(table), len(kinds), family)
	}
	for e := range enums {
		if strings.HasPrefix(e, family) && !used[e] {
			t.Errorf("worker.h has %s, which no kind of the workload language is", e)
		}
	}
}

// every lists the values of a workload enum: those it has a name for.
func every[K ~uint8](name func(K) string) []K {
	var out []K
	for k := range K(255) {
		if s := name(k); s != "" && s != "?" {
			out = append(out, k)
		}
	}
	return out
}

func TestWorkerCodes(t *testing.T) {
	enums := workerEnums(t)
	checkCodes(t, enums, "SL_EV_", every(workload.EventKind.String), workload.EventKind.String, eventCode)
	checkCodes(t, enums, "SL_DIST_", every(workload.DistKind.String), workload.DistKind.String, distCode)
	// The notify values are strings in a workload.Spec; each must be one
	// the language takes.
	notifies := []string{"", "signal", "thread", "input"}
	for _, n := range notifies[1:] {
		if _, err := workload.Parse("n.json", []byte(`{"tasks": {"w": {"timer": {"ref": "t", "period": 1000, "notify": "`+n+`"}, "run": 1}}}`)); err != nil {
			t.Errorf("notify %q: %v", n, err)
		}
	}
	checkCodes(t, enums, "SL_NOTIFY_", notifies, func(n string) string { return cmp.Or(n, "none") }, notifyCode)
}
