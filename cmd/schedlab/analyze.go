package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"schedlab/analyze"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/trace"
)

func analyzeCmd() *cobra.Command {
	var asJSON, hist bool
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
			res, r, err := analyzeTrace(a[0], cmd.InOrStdin(), &out)
			if err != nil {
				return err
			}
			r.Engine = report.Engine{Events: uint64(res.Report.Events), TraceEvents: uint64(res.Parse.SchedEvents + res.Parse.Marks),
				WallMS: float64(time.Since(start).Microseconds()) / 1000}
			if err := out.writeHTML("schedlab analyze "+filepath.Base(a[0]), r); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					*report.Run
					Trace analyze.Counts `json:"trace"`
				}{r, res.Counts()})
			}
			var b bytes.Buffer
			if err := r.WriteText(&b, report.TextOptions{Hist: hist, MaxTasks: tasks}); err != nil {
				return err
			}
			// The first line says what was simulated; say what was read.
			_, rest, _ := strings.Cut(b.String(), "\n")
			_, err = fmt.Fprintf(w, "%s\n%s", traceHeadline(a[0], res, r), rest)
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print one JSON object (run's keys, and \"trace\" with what was read and repaired)")
	f.BoolVar(&hist, "hist", false, "print log2 latency histograms")
	f.IntVar(&tasks, "tasks", 20, "rows of the per-task table in text output")
	out.flags(cmd, false)
	return cmd
}

// analyzeTrace reads and analyses the trace at path ("-": stdin) into a
// run report. Bad input is a *lab.InputError.
func analyzeTrace(path string, stdin io.Reader, out *outputs) (*analyze.TraceResult, *report.Run, error) {
	in := stdin
	name := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, &lab.InputError{Err: err}
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, nil, &lab.InputError{Err: fmt.Errorf("%s is a directory, not a trace", path)}
		}
		in, name = f, path
	}
	var extra trace.Sink
	if out.htmlPath != "" {
		var err error
		if extra, err = out.open(nil, 0); err != nil {
			return nil, nil, err
		}
	}
	res, err := analyze.ReadTrace(in, extra)
	if err != nil {
		var fe *trace.FormatError
		if errors.As(err, &fe) {
			return nil, nil, &lab.InputError{Err: fmt.Errorf("%s %s", name, fe.Msg)}
		}
		return nil, nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if err := out.close(res.End, nil); err != nil {
		return nil, nil, err
	}
	out.timer, out.wakeup = res.Timer, res.Wakeup
	st := res.Parse
	r := &report.Run{
		Scenario: filepath.Base(path),
		Policy:   "recorded",
		CPUs:     max(st.HeaderCPUs, st.CPUs),
		Features: map[string]bool{},
		Tunables: map[string]int64{},
		SimNS:    res.End - res.Start,
		Warnings: res.Notes(),
	}
	if path == "-" {
		r.Scenario = "stdin"
	}
	// A trace schedlab wrote says what it simulated.
	if v := st.Meta["scenario"]; v != "" {
		r.Scenario = v
	}
	if v := st.Meta["policy"]; v != "" {
		r.Policy = v
	}
	if v, err := strconv.ParseUint(st.Meta["seed"], 10, 64); err == nil {
		r.Seed = v
	}
	r.FromAnalysis(res.Report)
	r.WastedCapacityMS = float64(res.Report.Wasted) / 1e6
	return res, r, nil
}

func traceHeadline(path string, res *analyze.TraceResult, r *report.Run) string {
	s := fmt.Sprintf("trace %s: %s; %d CPU(s), %.3f s recorded (%.6f to %.6f s), %d events",
		path, res.Parse.Format, r.CPUs, float64(r.SimNS)/1e9, float64(res.Start)/1e9, float64(res.End)/1e9, res.Report.Events)
	if _, ok := res.Parse.Meta["end_ns"]; ok && res.Parse.Meta["scenario"] != "" {
		s += fmt.Sprintf("\nwritten by schedlab run: scenario %s, policy %s, seed %d", r.Scenario, r.Policy, r.Seed)
	}
	return s
}

// outputs are the optional files of run and analyze: --trace writes the
// event stream as ftrace text (run only), --html a self-contained report
// with the latency CDFs, histograms and a timeline of the first moments.
type outputs struct {
	tracePath, htmlPath, window string

	file *os.File
	tw   *trace.Writer
	an   *analyze.Analyzer
	tl   *analyze.TimelineRecorder
	end  int64
	// Samples when there is no second analyzer (analyze has its own).
	timer, wakeup []int64
}

func (o *outputs) flags(cmd *cobra.Command, withTrace bool) {
	f := cmd.Flags()
	if withTrace {
		f.StringVar(&o.tracePath, "trace", "", "write the events as ftrace text (6.x tracefs layout, nanosecond timestamps) to FILE, for analyze or the Perfetto UI")
	}
	f.StringVar(&o.htmlPath, "html", "", "write a self-contained HTML report (CDFs, histograms, per-CPU timeline) to FILE")
	f.StringVar(&o.window, "timeline", "100ms", "length of the per-CPU timeline in the HTML report")
}

// open creates the files asked for and returns the sink to attach to the
// event stream (nil when there is none).
func (o *outputs) open(meta [][2]string, cpus int) (trace.Sink, error) {
	var sinks trace.Tee
	if o.htmlPath != "" {
		d, err := lab.ParseDuration(o.window)
		if err != nil {
			return nil, &lab.InputError{Err: fmt.Errorf("--timeline: %w", err)}
		}
		o.tl = analyze.NewTimelineRecorder(int64(d))
		sinks = append(sinks, o.tl)
		if meta != nil { // run: the samples come from a second analyzer
			o.an = analyze.New()
			sinks = append(sinks, o.an)
		}
	}
	if o.tracePath != "" {
		f, err := os.Create(o.tracePath)
		if err != nil {
			return nil, &lab.InputError{Err: fmt.Errorf("--trace: %w", err)}
		}
		o.file = f
		o.tw = trace.NewWriter(f, trace.WriterOptions{CPUs: max(cpus, 1), Meta: meta})
		sinks = append(sinks, o.tw)
	}
	switch len(sinks) {
	case 0:
		return nil, nil
	case 1:
		return sinks[0], nil
	}
	return sinks, nil
}

// close finishes the trace file; after a failed run it removes it.
func (o *outputs) close(end int64, runErr error) error {
	o.end = end
	if o.tw == nil {
		return nil
	}
	err := o.tw.Close(end)
	if cerr := o.file.Close(); err == nil {
		err = cerr
	}
	if runErr != nil {
		os.Remove(o.tracePath)
		return nil
	}
	if err != nil {
		return fmt.Errorf("--trace %s: %w", o.tracePath, err)
	}
	return nil
}

// writeHTML writes the report of one run, if --html was given.
func (o *outputs) writeHTML(title string, r *report.Run) error {
	if o.htmlPath == "" {
		return nil
	}
	figs := report.RunFigures{Timer: o.timer, Wakeup: o.wakeup}
	if o.an != nil {
		figs.Timer, figs.Wakeup = o.an.Samples()
	}
	if o.tl != nil {
		figs.Timeline = o.tl.Timeline(o.end)
	}
	sub := fmt.Sprintf("policy %s, %d CPU(s), seed %d, %s", r.Policy, r.CPUs, r.Seed, report.FormatUS(float64(r.SimNS)/1e3))
	page := &report.Page{Title: title, Subtitle: sub, Sections: []report.Section{report.RunSection(r.Scenario, r, figs)}}
	return writeHTMLFile(o.htmlPath, page)
}

func writeHTMLFile(path string, page *report.Page) error {
	var b bytes.Buffer
	if err := report.WriteHTML(&b, page); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return &lab.InputError{Err: fmt.Errorf("--html: %w", err)}
	}
	return nil
}

// runMeta is what a trace written by run says about the run.
func runMeta(workload string, o lab.Options) [][2]string {
	policy := o.Policy
	if policy == "" {
		policy = lab.DefaultPolicy
	}
	m := [][2]string{{"scenario", workload}, {"policy", policy}, {"cpus", strconv.Itoa(max(o.CPUs, 1))}, {"seed", strconv.FormatUint(o.Seed, 10)}}
	if o.Features != "" {
		m = append(m, [2]string{"features", o.Features})
	}
	if len(o.Set) > 0 {
		m = append(m, [2]string{"set", strings.Join(o.Set, ",")})
	}
	return m
}
