package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// maxHostileRSS bounds what a refused input may cost: refusing must not
// take the machine's memory first.
const maxHostileRSS = 512 << 20

// Every file of testdata/hostile is refused: exit status 2, nothing on
// standard output, one error on standard error that names the file (and,
// where FILE.want lists them, what in it is wrong), in bounded memory. A
// workload (.json) is given to run, a trace (.trace) to analyze.
func TestHostileInputs(t *testing.T) {
	files, err := filepath.Glob("testdata/hostile/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile inputs: %v", err)
	}
	for _, f := range files {
		var args []string
		switch filepath.Ext(f) {
		case ".json":
			args = []string{"run", f, "--duration", "100ms"}
		case ".trace":
			args = []string{"analyze", f}
		default:
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			cmd := exec.Command(bin, args...)
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Errorf("exit: %v, want status 2", err)
			}
			if o.Len() != 0 {
				t.Errorf("stdout: %.200q", o.String())
			}
			msg := e.String()
			want := []string{filepath.Base(f)}
			if b, err := os.ReadFile(strings.TrimSuffix(f, filepath.Ext(f)) + ".want"); err == nil {
				want = append(want, strings.Fields(strings.TrimSpace(string(b)))...)
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr lacks %q: %s", w, msg)
				}
			}
			if n := strings.Count(strings.TrimSpace(msg), "\n"); n > 0 {
				t.Errorf("stderr has %d lines, want one error:\n%s", n+1, msg)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > maxHostileRSS {
				t.Errorf("refusing it took %d MB", ru.Maxrss/1024)
			}
		})
	}
}
