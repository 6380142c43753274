package vm

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"schedlab/host"
)

// The guest talks to the launcher over its second serial port in frames:
// a line "SLF1 KIND LENGTH CRC32\n" and LENGTH bytes. The port is a raw
// tty, so nothing is translated, and the checksum catches what would be.
const frameMagic = "SLF1"

// Frame kinds, in the order a guest sends them.
const (
	kindHello  = "hello"  // init runs: the guest's uname -r
	kindAlive  = "alive"  // a heartbeat, with a progress line
	kindSched  = "sched"  // the kernel's scheduler settings before the runs (JSON of Sched)
	kindCosts  = "costs"  // the cost probe's figures (JSON of host.Costs)
	kindResult = "result" // a run's recording's facts (JSON of wireRecording)
	kindTrace  = "trace"  // that recording's ftrace text; result and trace repeat per run
	kindError  = "error"  // the guest's run failed: why
	kindDone   = "done"   // nothing follows; the guest powers off
)

// request is what the launcher asks of the guest (requestPath).
type request struct {
	Name     string        `json:"name"`     // the workload's name in reports
	Workload []byte        `json:"workload"` // its rt-app JSON
	Duration time.Duration `json:"duration_ns"`
	Warmup   time.Duration `json:"warmup_ns"`
	Seed     uint64        `json:"seed"`
	CPUs     []int         `json:"cpus,omitempty"`
	BufferKB int           `json:"buffer_kb,omitempty"`
	Limits   host.Limits   `json:"limits"`
	VCPUs    int           `json:"vcpus"`
	// Features and Set are written to the kernel's sched debugfs files
	// before the runs: sched_features syntax, and simulator tunable names
	// with their values.
	Features []string    `json:"features,omitempty"`
	Set      [][2]string `json:"set,omitempty"`
	// Runs is how many measured runs follow the warm-up, each with the
	// next seed (0 means 1).
	Runs int `json:"runs,omitempty"`
	// Probe runs the cost probe (host.Probe) after the warm-up.
	Probe bool `json:"probe,omitempty"`
	// MakeJobs > 0 runs a real make -jN beside every run (build.go).
	MakeJobs int `json:"make_jobs,omitempty"`
}

// Sched is the guest kernel's scheduler as the runs met it: its
// sched_features file and its fair-class tunables, read after the
// launcher's features and tunables were written.
type Sched struct {
	// Features are the words of the features file (NO_ for a cleared one).
	Features []string `json:"features,omitempty"`
	// Tunables are by the simulator's names (sched_latency_ns, ...).
	Tunables map[string]int64 `json:"tunables,omitempty"`
}

// inputPrefix marks a guest's error as the user's to fix (a feature or
// tunable the kernel lacks).
const inputPrefix = "input: "

// wireRecording is a host.Recording without its trace (a frame of its
// own) and its spec (the launcher has it).
type wireRecording struct {
	RootPID      int        `json:"root_pid"`
	Start        int64      `json:"start_ns"`
	End          int64      `json:"end_ns"`
	CPUs         []int      `json:"cpus,omitempty"`
	Seed         uint64     `json:"seed"`
	Overrun      int64      `json:"overrun"`
	Dropped      int64      `json:"dropped"`
	Facts        host.Facts `json:"facts"`
	WorkerErrors []string   `json:"worker_errors,omitempty"`
	Cleanup      []string   `json:"cleanup,omitempty"`
	// Error is the run's failure, if it failed after recording.
	Error string `json:"error,omitempty"`
	// Guest is what init did besides the run (CPUs brought online, the
	// warm-up, the kernel's tunables).
	Guest []string `json:"guest,omitempty"`
}

func toWire(r *host.Recording) wireRecording {
	return wireRecording{RootPID: r.RootPID, Start: r.Start, End: r.End, CPUs: r.CPUs, Seed: r.Seed,
		Overrun: r.Overrun, Dropped: r.Dropped, Facts: r.Facts, WorkerErrors: r.WorkerErrors, Cleanup: r.Cleanup}
}

func (w wireRecording) recording(trace []byte) *host.Recording {
	return &host.Recording{Trace: trace, RootPID: w.RootPID, Start: w.Start, End: w.End, CPUs: w.CPUs, Seed: w.Seed,
		Overrun: w.Overrun, Dropped: w.Dropped, Facts: w.Facts, WorkerErrors: w.WorkerErrors, Cleanup: w.Cleanup}
}

// frameWriter sends frames; the guest's heartbeat and its main line share
// it.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (f *frameWriter) send(kind string, payload []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	hdr := fmt.Sprintf("%s %s %d %08x\n", frameMagic, kind, len(payload), crc32.ChecksumIEEE(payload))
	if _, err := io.WriteString(f.w, hdr); err != nil {
		return err
	}
	_, err := f.w.Write(payload)
	return err
}

// maxFrame bounds a frame the launcher accepts (a trace of a long busy
// run is a few hundred MB at most).
const maxFrame = 2 << 30

// readFrame reads the next frame, skipping anything before a header line
// (a port's noise before init opened it).
func readFrame(r *bufio.Reader) (kind string, payload []byte, err error) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", nil, err
		}
		i := strings.Index(line, frameMagic+" ")
		if i < 0 {
			continue
		}
		f := strings.Fields(line[i:])
		if len(f) != 4 {
			continue
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || n < 0 || n > maxFrame {
			return "", nil, fmt.Errorf("bad frame header %q", strings.TrimSpace(line[i:]))
		}
		want, err := strconv.ParseUint(f[3], 16, 32)
		if err != nil {
			return "", nil, fmt.Errorf("bad frame header %q", strings.TrimSpace(line[i:]))
		}
		payload = make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return "", nil, fmt.Errorf("frame %s cut short after part of its %d bytes: %w", f[1], n, err)
		}
		if got := crc32.ChecksumIEEE(payload); got != uint32(want) {
			return "", nil, fmt.Errorf("frame %s of %d bytes arrived damaged (crc32 %08x, want %08x)", f[1], n, got, want)
		}
		return f[1], payload, nil
	}
}
