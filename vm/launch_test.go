package vm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeQEMU puts a script named qemu-system-x86_64 first in PATH and
// returns a kernel file for Measure to hand it.
func fakeQEMU(t *testing.T, script string) *Kernel {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, QEMU), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	t.Setenv("TMPDIR", t.TempDir())
	img := filepath.Join(t.TempDir(), "vmlinuz")
	os.WriteFile(img, []byte("not booted"), 0o644)
	t.Cleanup(func() {
		left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "schedlab-vm-*"))
		if len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	})
	return &Kernel{Name: "fake", Image: img, Release: "0.0"}
}

func fakeOptions(k *Kernel) Options {
	exe, _ := os.Executable()
	return Options{Kernel: k, Init: exe, Name: "w", Workload: []byte(`{}`), Duration: time.Second, BootTimeout: time.Second, Silence: time.Second}
}

// A kernel that panics before init: retried twice, then an error that
// quotes the console, at once.
func TestBootPanics(t *testing.T) {
	k := fakeQEMU(t, "echo 'Kernel panic - not syncing: VFS: Unable to mount root fs'\necho '---[ end Kernel panic ]---'\nexit 0\n")
	t0 := time.Now()
	_, err := Measure(context.Background(), fakeOptions(k))
	var be *BootError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "did not reach init") || !strings.Contains(err.Error(), "Unable to mount root fs") {
		t.Fatalf("got %v, want a BootError quoting the panic", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// A kernel that hangs: the boot deadline ends QEMU, three times.
func TestBootHangs(t *testing.T) {
	k := fakeQEMU(t, "echo 'x86: Booting SMP configuration:'\nexec sleep 1000\n")
	t0 := time.Now()
	var log strings.Builder
	o := fakeOptions(k)
	o.Log = &log
	_, err := Measure(context.Background(), o)
	if !strings.Contains(err.Error(), "did not reach init within 1s") || !strings.Contains(err.Error(), "Booting SMP") {
		t.Fatalf("got %v", err)
	}
	if n := strings.Count(log.String(), "booting again"); n != 2 {
		t.Errorf("%d retries, want 2:\n%s", n, log.String())
	}
	if d := time.Since(t0); d > 15*time.Second {
		t.Errorf("took %v", d)
	}
}

// A signal (the context's end) stops QEMU at once.
func TestMeasureCancelled(t *testing.T) {
	k := fakeQEMU(t, "exec sleep 1000\n")
	ctx, cancel := context.WithTimeoutCause(context.Background(), 300*time.Millisecond, errors.New("timeout after 300ms"))
	defer cancel()
	o := fakeOptions(k)
	o.BootTimeout = time.Minute
	_, err := Measure(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "timeout after 300ms") {
		t.Fatalf("got %v", err)
	}
}

// A missing QEMU is an error before anything starts.
func TestNoQEMU(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := Check(&Options{Kernel: &Kernel{Image: "/dev/null"}})
	if err == nil || !strings.Contains(err.Error(), "qemu-system-x86") {
		t.Errorf("got %v", err)
	}
}
