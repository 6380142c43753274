// Package testskip makes a test's skip visible in CI's output.
//
// A skipped test prints its reason only under -v, so a CI log of `go test
// ./...` would not show that, say, the host tests did not run. When
// SCHEDLAB_SKIP_LOG names a file, every skip through Skip appends a line
// to it, which .ci/run prints after the tests. Reading the variable also
// makes it part of go test's cache key: CI names a new file each run, so
// these tests' results never come from a warm cache, where a test that
// depends on the machine (tracefs mounted or not) would hide a failure.
package testskip

import (
	"fmt"
	"os"
	"testing"
)

// LogEnv names the file that skips are appended to.
const LogEnv = "SCHEDLAB_SKIP_LOG"

// Skip skips t with the reason, and appends "TestName: reason" to the
// file LogEnv names, if any.
func Skip(t testing.TB, format string, a ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, a...)
	if p := os.Getenv(LogEnv); p != "" {
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintf(f, "%s: %s\n", t.Name(), reason)
			f.Close()
		}
	}
	t.Skip(reason)
}

// Uncached makes the calling test's result depend on LogEnv, so that CI
// never takes it from the cache even when it does not skip.
func Uncached() { os.Getenv(LogEnv) }
