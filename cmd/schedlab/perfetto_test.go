package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"schedlab/host"
)

// perfettoPackets checks that b is a Trace message (nothing but its
// repeated packet field 1) and returns the packets.
func perfettoPackets(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var packets [][]byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			t.Fatalf("not a Perfetto Trace: field %d type %d (%d)", num, typ, n)
		}
		p, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			t.Fatalf("truncated packet: %v", protowire.ParseError(m))
		}
		packets = append(packets, p)
		b = b[n+m:]
	}
	return packets
}

// TestRunPerfettoTrace: run --trace FILE.perfetto-trace (or .pftrace)
// writes a Perfetto trace, and the report is the one run prints without it.
func TestRunPerfettoTrace(t *testing.T) {
	args := []string{"run", "wakeup-latency-calibrated-make-j5", "--cpus", "2", "--duration", "1s", "--json"}
	plain, stderr, code := schedlab(t, args...)
	if code != 0 {
		t.Fatal(stderr)
	}
	report := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "engine") // its wall time differs from run to run
		return m
	}
	for _, name := range []string{"t.perfetto-trace", "t.pftrace"} {
		p := filepath.Join(t.TempDir(), name)
		out, stderr, code := schedlab(t, append(args, "--trace", p)...)
		if code != 0 {
			t.Fatalf("%s: %s", name, stderr)
		}
		if !reflect.DeepEqual(report(out), report(plain)) {
			t.Errorf("%s: the report differs from run's without --trace", name)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		packets := perfettoPackets(t, b)
		// SystemInfo first; then bundles, one per CPU at least; the tree.
		if len(packets) < 4 || !bytes.HasPrefix(packets[0], protowire.AppendTag(nil, 45, protowire.BytesType)) {
			t.Errorf("%s: %d packets, the first %x", name, len(packets), packets[0][:min(8, len(packets[0]))])
		}
		if !bytes.Contains(b, []byte("schedlab run scenario=wakeup-latency-calibrated-make-j5 policy=cfs-2.6.35 cpus=2 seed=1")) ||
			!bytes.Contains(b, []byte("|callback_start timer=")) || bytes.Contains(b, []byte("# tracer")) {
			t.Errorf("%s: not the run's events as Perfetto's protobuf", name)
		}
	}
}

// TestPerfettoTraceRefused: a Perfetto trace that cannot be written is
// refused before the run (a year of simulation would take minutes).
func TestPerfettoTraceRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", filepath.Join(dir, "no", "such", "t.perfetto-trace")}, "--trace"},
		{[]string{"--trace", filepath.Join(dir, "t.pftrace"), "--cpus", "1025"}, "at most 1024 CPUs"},
	} {
		start := time.Now()
		out, stderr, code := schedlab(t, append([]string{"run", "wakeup-latency-calibrated-make-j5", "--duration", "8760h"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || out != "" || time.Since(start) > 10*time.Second {
			t.Errorf("%v: exit %d after %v, %q, stdout %q", c.args, code, time.Since(start), stderr, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "t.pftrace")); err == nil {
		t.Error("a refused trace left its file")
	}
}

// TestMeasureTraceFile: measure --trace keeps the recording's text, or
// converts it for a Perfetto name (the recording here is a host trace
// fixture, so that no root is needed).
func TestMeasureTraceFile(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "trace", "testdata", "host-6.18-trace.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &host.Recording{Trace: text, Facts: host.Facts{Kernel: "6.18.44-test"}}
	dir := t.TempDir()
	txt, pf := filepath.Join(dir, "t.txt"), filepath.Join(dir, "t.perfetto-trace")
	for _, p := range []string{txt, pf} {
		if err := writeRecording(p, rec); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(txt); !bytes.Equal(b, text) {
		t.Error("the text is not kept as recorded")
	}
	b, _ := os.ReadFile(pf)
	if packets := perfettoPackets(t, b); len(packets) < 2 || !bytes.Contains(packets[0], []byte("6.18.44-test")) || !bytes.Contains(b, []byte("|callback_start timer=")) {
		t.Errorf("the conversion: %d packets", len(packets))
	}
	if err := writeRecording(filepath.Join(dir, "empty.pftrace"), &host.Recording{}); err == nil {
		t.Error("an empty recording converted")
	}
	if _, err := os.Stat(filepath.Join(dir, "empty.pftrace")); err == nil {
		t.Error("a failed conversion left its file")
	}
}
