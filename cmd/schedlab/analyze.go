package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"schedlab/analyze"
	"schedlab/internal/outfile"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/trace"
	"schedlab/trace/perfetto"
)

func analyzeCmd() *cobra.Command {
	var asJSON, hist, pids bool
	var tasks int
	var out outputs
	cmd := &cobra.Command{
		Use:   "analyze TRACE",
		Short: "Read a recorded trace (ftrace text) and report its latencies as run does",
		Long: `Read a trace and print the same report as run: timer latency (where the
trace has schedlab's timer marks), wakeup latency (sched_waking or
sched_wakeup_new to switch-in), and a per-task table in the shape of
perf sched latency.

TRACE is ftrace text: a tracefs trace or trace_pipe file of any kernel since
2.6.27, ` + "`trace-cmd report`" + ` output, ` + "`perf script`" + ` output of the sched
tracepoints, or a trace written by run --trace; "-" reads standard input.
What a real trace lacks (lost events, CPU buffers that start late, a
truncated last line, lines that cannot be read) is repaired as
docs/trace-format.md says and counted in the report's notes (and under
"trace" in --json).`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			start := time.Now()
			keep, err := out.keep(nil, 0)
			if err != nil {
				return err
			}
			oc, err := lab.AnalyzeTrace(a[0], cmd.InOrStdin(), keep)
			if err != nil {
				return err
			}
			r := oc.Report
			r.Engine.WallMS = float64(time.Since(start).Microseconds()) / 1000
			if err := out.writeHTML("schedlab analyze "+filepath.Base(a[0]), oc); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if pids {
				r.Tasks = r.PerTask
			}
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					*report.Run
					Trace analyze.Counts `json:"trace"`
				}{r, oc.Source.Trace.Trace.Counts()})
			}
			return r.WriteText(w, report.TextOptions{Hist: hist, MaxTasks: tasks, PIDs: pids})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print one JSON object (run's keys, and \"trace\" with what was read and repaired)")
	f.BoolVar(&hist, "hist", false, "print log2 latency histograms")
	f.IntVar(&tasks, "tasks", 20, "rows of the per-task table in text output")
	f.BoolVar(&pids, "pids", false, "a row per task (perf sched latency -p) instead of one per comm, in text and --json")
	out.flags(cmd, false)
	return cmd
}

// outputs are the optional files of run, analyze and measure: --trace
// writes the event stream (run only) as ftrace text or, for a file named
// .perfetto-trace or .pftrace, as a Perfetto trace; --html a
// self-contained report with the latency tail plots, histograms and a timeline
// of the first moments.
type outputs struct {
	tracePath, htmlPath, window string

	file *outfile.File
	tw   traceWriter
}

// traceWriter is a trace being written: trace.Writer or perfetto.Writer.
type traceWriter interface {
	trace.Sink
	Close(end int64) error
}

func (o *outputs) flags(cmd *cobra.Command, withTrace bool) {
	f := cmd.Flags()
	if withTrace {
		f.StringVar(&o.tracePath, "trace", "", "write the events to `FILE`: a Perfetto trace (protobuf, every task under its process) if it ends in .perfetto-trace or .pftrace, else ftrace text (6.x tracefs layout, nanosecond timestamps) for analyze or the Perfetto UI; - for text on standard output, the report then going to standard error")
	}
	f.StringVar(&o.htmlPath, "html", "", "write a self-contained HTML report (latency tail plots, histograms, per-CPU timeline) to `FILE`")
	f.StringVar(&o.window, "timeline", "100ms", "length of the per-CPU timeline in the HTML report")
}

// keep opens the trace file asked for and says what the run must keep for
// the outputs: the samples and a timeline for --html, the trace writer for
// --trace (meta and cpus head the trace).
func (o *outputs) keep(meta [][2]string, cpus int) (lab.Keep, error) {
	var k lab.Keep
	if o.htmlPath != "" {
		d, err := lab.ParseDuration(o.window)
		if err != nil {
			return k, &lab.InputError{Err: fmt.Errorf("--timeline: %w", err)}
		}
		if err := outfile.Check(o.htmlPath); err != nil {
			return k, &lab.InputError{Err: fmt.Errorf("--html: %w", err)}
		}
		k.Samples, k.Timeline = true, d
	}
	switch o.tracePath {
	case "":
	case "-":
		o.tw = trace.NewWriter(os.Stdout, trace.WriterOptions{CPUs: max(cpus, 1), Meta: meta, TGID: true})
		k.Sink = o.tw
	default:
		pf := perfetto.IsPath(o.tracePath)
		if pf && cpus > perfetto.MaxCPUs {
			return k, &lab.InputError{Err: fmt.Errorf("--trace %s: Perfetto reads at most %d CPUs, this run has %d (write ftrace text instead)", o.tracePath, perfetto.MaxCPUs, cpus)}
		}
		f, err := outfile.Create(o.tracePath)
		if err != nil {
			return k, &lab.InputError{Err: fmt.Errorf("--trace: %w", err)}
		}
		o.file = f
		if pf {
			o.tw = perfetto.NewWriter(f, perfetto.Options{CPUs: max(cpus, 1), Version: metaText(meta)})
		} else {
			o.tw = trace.NewWriter(f, trace.WriterOptions{CPUs: max(cpus, 1), Meta: meta, TGID: true})
		}
		k.Sink = o.tw
	}
	return k, nil
}

// metaText is a run's meta as the text's "# schedlab:" comment says it,
// for a Perfetto trace's uname version (its metadata's one free text).
func metaText(meta [][2]string) string {
	b := []byte("schedlab run")
	for _, kv := range meta {
		b = append(b, ' ')
		b = append(b, kv[0]...)
		b = append(b, '=')
		b = append(b, kv[1]...)
	}
	return string(b)
}

// close finishes the trace file; after a failed run it leaves none.
func (o *outputs) close(end int64, runErr error) error {
	if o.tw == nil {
		return nil
	}
	err := o.tw.Close(end)
	switch {
	case o.file == nil: // standard output
	case runErr != nil || err != nil:
		o.file.Abort()
	default:
		err = o.file.Commit()
	}
	if runErr == nil && err != nil {
		return fmt.Errorf("--trace %s: %w", o.tracePath, err)
	}
	return nil
}

// reportTo is where the text or JSON report goes: standard output, unless
// the trace does.
func (o *outputs) reportTo() *os.File {
	if o.tracePath == "-" {
		return os.Stderr
	}
	return os.Stdout
}

// writeHTML writes the report of one run, if --html was given.
func (o *outputs) writeHTML(title string, oc *lab.Outcome) error {
	if o.htmlPath == "" {
		return nil
	}
	r := oc.Report
	figs := report.RunFigures{Timer: oc.Timer, Wakeup: oc.Wakeup, Timeline: oc.Timeline}
	sub := fmt.Sprintf("policy %s, %d CPU(s), seed %d, %s", r.Policy, r.CPUs, r.Seed, report.FormatUS(float64(r.SimNS)/1e3))
	page := &report.Page{Title: title, Subtitle: sub, Sections: []report.Section{report.RunSection(r.Scenario, r, figs)}}
	return writeHTMLFile(o.htmlPath, page)
}

func writeHTMLFile(path string, page *report.Page) error {
	var b bytes.Buffer
	if err := report.WriteHTML(&b, page); err != nil {
		return err
	}
	if err := outfile.Write(path, b.Bytes()); err != nil {
		return &lab.InputError{Err: fmt.Errorf("--html: %w", err)}
	}
	return nil
}
