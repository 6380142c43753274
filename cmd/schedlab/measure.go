package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"schedlab/host"
	"schedlab/internal/outfile"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/trace/perfetto"
	"schedlab/vm"
	"schedlab/workload"
)

// hostFlags are the options measure and validate share.
type hostFlags struct {
	cpus, duration, timeout string
	pidsMax, memoryMax      string
	params                  []string
	seed                    uint64
	bufferKB                int
	workgen                 bool
}

func (h *hostFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&h.cpus, "cpus", "", "CPUs the workload may use, a list such as 0 or 0-1 (default: all online; 0 makes the seeds' uniprocessor runs)")
	f.StringVar(&h.duration, "duration", "", "length of a run, e.g. 10s (default: the file's, else 10s)")
	f.StringVar(&h.timeout, "timeout", "", "stop and clean up if a run has not ended after this long (default: duration + 1m)")
	f.StringArrayVar(&h.params, "param", nil, "set a parameter of a parametric built-in scenario: NAME=VALUE (repeatable)")
	f.Uint64Var(&h.seed, "seed", 1, "seed of the workload's random durations")
	f.IntVar(&h.bufferKB, "buffer-kb", 0, "tracefs ring buffer per CPU in KiB (default: sized from the duration)")
	f.BoolVar(&h.workgen, "workgen", false, "read the file as rt-app's workgen script prepares it: repeated keys are renamed run, run1, … and all kept (rt-app itself, through json-c, keeps the last value at the first key's place)")
	f.StringVar(&h.pidsMax, "pids-max", "", fmt.Sprintf("most processes and threads the workload may have at once, or max for no limit (default %d; the run fails when it is reached)", host.DefaultPidsMax))
	f.StringVar(&h.memoryMax, "memory-max", "", "most memory the workload may use, e.g. 512M or 2G, or max for no limit (default: half of the machine's; the run fails when it is reached)")
}

// parseLimit reads a limit flag: a count (or, with suffixes, a size in
// K, M, G or T, powers of 1024), or "max" for none (-1). "" is the default (0).
func parseLimit(flag, v string, sizes bool) (int64, error) {
	if v == "" {
		return 0, nil
	}
	if v == "max" {
		return -1, nil
	}
	mult := int64(1)
	if sizes && len(v) > 1 {
		if i := strings.IndexByte("KMGT", v[len(v)-1]&^0x20); i >= 0 {
			mult = 1 << (10 * (i + 1))
			v = v[:len(v)-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		want := "a positive count"
		if sizes {
			want = "a positive size such as 512M or 2G"
		}
		return 0, &lab.InputError{Err: fmt.Errorf("--%s %s: want %s, or max for no limit", flag, v, want)}
	}
	return n * mult, nil
}

// resolve loads the workload and turns the flags into host options.
func (h *hostFlags) resolve(arg string) (host.Options, string, time.Duration, error) {
	var o host.Options
	params, err := parseParams(h.params)
	if err != nil {
		return o, "", 0, err
	}
	spec, name, err := workload.LoadWith(arg, params, workload.ReadOptions{Workgen: h.workgen})
	if err != nil {
		return o, "", 0, &lab.InputError{Err: err}
	}
	// A recording's report has its own warnings; the file's (ignored
	// keys, repeated ones) are said here.
	for _, w := range spec.Warnings {
		fmt.Fprintf(os.Stderr, "schedlab: warning: %s\n", report.Printable(w))
	}
	o.Spec, o.Seed, o.BufferKB = spec, h.seed, h.bufferKB
	if o.Limits.Pids, err = parseLimit("pids-max", h.pidsMax, false); err != nil {
		return o, "", 0, err
	}
	if o.Limits.Memory, err = parseLimit("memory-max", h.memoryMax, true); err != nil {
		return o, "", 0, err
	}
	if h.cpus != "" {
		if o.CPUs, err = host.ParseCPUs(h.cpus); err != nil {
			return o, "", 0, &lab.InputError{Err: fmt.Errorf("--cpus: %w", err)}
		}
	}
	o.Duration = 10 * time.Second
	if spec.Duration > 0 {
		o.Duration = time.Duration(spec.Duration)
	}
	if h.duration != "" {
		if o.Duration, err = lab.ParseDuration(h.duration); err != nil {
			return o, "", 0, &lab.InputError{Err: fmt.Errorf("--duration: %w", err)}
		}
	}
	timeout := o.Duration + time.Minute
	if h.timeout != "" {
		if timeout, err = lab.ParseDuration(h.timeout); err != nil {
			return o, "", 0, &lab.InputError{Err: fmt.Errorf("--timeout: %w", err)}
		}
	}
	return o, name, timeout, nil
}

// hostContext ends on SIGINT, SIGTERM, SIGHUP (the terminal or the ssh
// session went away), SIGQUIT or the timeout, so a run stops and cleans up.
func hostContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("timeout after %v", timeout))
	return ctx, func() { cancel(); stop() }
}

// hostError makes what a user can fix an input error (exit status 2).
func hostError(err error) error {
	var pe *host.PreflightError
	var ue *host.UnsupportedError
	if errors.As(err, &pe) || errors.As(err, &ue) {
		return &lab.InputError{Err: err}
	}
	return err
}

// writeRecording keeps the recording's text at path, or its conversion for
// a Perfetto file name.
func writeRecording(path string, rec *host.Recording) error {
	if !perfetto.IsPath(path) {
		return outfile.Write(path, rec.Trace)
	}
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	o := perfetto.Options{Release: rec.Facts.Kernel, Version: "schedlab measure"}
	if _, err := perfetto.Convert(f, bytes.NewReader(rec.Trace), o); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

func measureCmd() *cobra.Command {
	var h hostFlags
	var asJSON, hist, pids bool
	var tasks int
	var tracePath, rtappLog string
	var out outputs
	var v vmFlags
	cmd := &cobra.Command{
		Use:   "measure SCENARIO|FILE.json",
		Short: "Run a workload on the host kernel and report its latencies as run does",
		Long: `Run a workload file on the host kernel, as real threads and processes,
record it through a private tracefs instance, and print the same report as
run, from the same analysis.

Needs root and tracefs. The workload runs in a cgroup of its own
(schedlab-<pid>, one level below the root, as a session's autogroup would),
with its task groups below it. SIGINT, SIGTERM and --timeout stop the run;
every process it started, its cgroups and its tracefs instance are removed
then as at the end, and it says so on stderr.

--kernel NAME|PATH runs it instead inside that kernel in a virtual machine
(QEMU, TCG with -icount shift=0,sleep=off: guest time is counted in
instructions, so runs repeat whatever the machine's load), with schedlab
itself as the guest's init; no root is needed on the machine. NAME is one
of schedlab kernels list, fetched first.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o, name, timeout, err := h.resolve(a[0])
			if err != nil {
				return err
			}
			o.Log = os.Stderr
			keep, err := out.keep(nil, 0) // the HTML report, if asked for
			if err != nil {
				return err
			}
			if tracePath != "" {
				if err := outfile.Check(tracePath); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--trace: %w", err)}
				}
			}
			if rtappLog != "" {
				if v.kernel != "" {
					return &lab.InputError{Err: errors.New("--rtapp-log is for a host run: a virtual machine's threads write in the guest")}
				}
				dir, err := filepath.Abs(rtappLog)
				if err == nil {
					err = os.MkdirAll(dir, 0o755)
				}
				if err != nil {
					return &lab.InputError{Err: fmt.Errorf("--rtapp-log: %w", err)}
				}
				o.RtappLogDir = dir
			}
			if v.kernel != "" {
				vo, err := v.options(a[0], h.params, o, 1)
				if err != nil {
					return err
				}
				if !cmd.Flags().Changed("timeout") {
					timeout = vo.timeout
				}
				ctx, cancel := hostContext(timeout)
				defer cancel()
				res, err := vm.Measure(ctx, vo.Options)
				if err != nil {
					return kernelError(err)
				}
				res.Recordings[0].Spec = o.Spec
				oc, err := lab.AnalyzeVM(res, 0, name, keep)
				if err != nil {
					return err
				}
				return printMeasured(oc, a[0], tracePath, &out, asJSON, report.TextOptions{Hist: hist, MaxTasks: tasks, PIDs: pids})
			}
			if err := v.hostOnly(cmd); err != nil {
				return err
			}
			ctx, cancel := hostContext(timeout)
			defer cancel()
			rec, err := host.Run(ctx, o)
			var ie *host.InterruptedError
			if errors.As(err, &ie) && len(rec.Trace) > 0 {
				// Report what was recorded until the signal, marked, and
				// still fail: the run did not end as asked.
				if oc, aerr := lab.AnalyzeRecording(rec, name, lab.Keep{}); aerr == nil {
					oc.Report.Warnings = append([]string{fmt.Sprintf("interrupted (%v) after %.3f s of %v: this covers what was recorded until then",
						ie.Cause, float64(oc.Report.SimNS)/1e9, o.Duration)}, oc.Report.Warnings...)
					oc.Report.WriteText(os.Stdout, report.TextOptions{Hist: hist, MaxTasks: tasks, PIDs: pids})
				}
			}
			if err != nil {
				return hostError(err)
			}
			oc, err := lab.AnalyzeRecording(rec, name, keep)
			if err != nil {
				return err
			}
			return printMeasured(oc, a[0], tracePath, &out, asJSON, report.TextOptions{Hist: hist, MaxTasks: tasks, PIDs: pids})
		},
	}
	h.add(cmd)
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print one JSON object (run's keys, and \"host\" with the host's facts)")
	f.BoolVar(&hist, "hist", false, "print log2 latency histograms")
	f.IntVar(&tasks, "tasks", 20, "rows of the per-task table in text output")
	f.BoolVar(&pids, "pids", false, "a row per task (perf sched latency -p) instead of one per comm, in text and --json")
	f.StringVar(&tracePath, "trace", "", "keep the raw ftrace text of the recording in `FILE`, or convert it to a Perfetto trace (protobuf) if FILE ends in .perfetto-trace or .pftrace")
	f.StringVar(&rtappLog, "rtapp-log", "", "have the workload's threads write rt-app's per-thread logs (BASENAME-THREAD-N.log) into `DIR`, as rt-app does (host runs only)")
	out.flags(cmd, false)
	v.add(cmd, true)
	return cmd
}

// printMeasured writes a real kernel's outcome: the trace and HTML files
// asked for, then the report.
func printMeasured(oc *lab.Outcome, arg, tracePath string, out *outputs, asJSON bool, to report.TextOptions) error {
	rec := oc.Source.Host.Recording
	if tracePath != "" {
		if err := writeRecording(tracePath, rec); err != nil {
			return &lab.InputError{Err: fmt.Errorf("--trace: %w", err)}
		}
	}
	if err := out.writeHTML("schedlab measure "+arg, oc); err != nil {
		return err
	}
	if to.PIDs {
		oc.Report.Tasks = oc.Report.PerTask
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*report.Run
			Host host.Facts `json:"host"`
			VM   *vm.Facts  `json:"vm,omitempty"`
		}{oc.Report, oc.Source.Host.Facts, oc.Source.Host.VM.Facts()})
	}
	return oc.Report.WriteText(os.Stdout, to)
}
