package lab

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"schedlab/analyze"
	"schedlab/host"
	"schedlab/report"
	"schedlab/trace"
	"schedlab/vm"
)

// AnalyzeTrace reads the trace at path ("-": stdin) and reports it as run
// reports a simulation. Bad input is an *InputError naming the file.
func AnalyzeTrace(path string, stdin io.Reader, keep Keep) (*Outcome, error) {
	in := stdin
	name := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, inputErr(err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, inputErr(fmt.Errorf("%s is a directory, not a trace", path))
		}
		in, name = f, path
	}
	at := newAttach(keep)
	tr, err := analyze.ReadTrace(in, at.extra())
	if err != nil {
		var fe *trace.FormatError
		if errors.As(err, &fe) {
			return nil, inputErr(fmt.Errorf("%s %s", name, fe.Msg))
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	st := tr.Parse
	r := &report.Run{
		Scenario: filepath.Base(path),
		Policy:   "recorded",
		CPUs:     max(st.HeaderCPUs, st.CPUs),
		Features: map[string]bool{},
		Tunables: map[string]int64{},
		SimNS:    tr.End - tr.Start,
		Warnings: tr.Notes(),
		Engine:   report.Engine{Events: uint64(tr.Report.Events), TraceEvents: uint64(st.SchedEvents + st.Marks)},
	}
	if path == "-" {
		r.Scenario = "stdin"
	}
	if st.Marks == 0 {
		r.NoTimer = "no timer marks in this trace"
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
	r.Headline = fmt.Sprintf("trace %s: %s; %d CPU(s), %.3f s recorded (%.6f to %.6f s), %d events",
		path, st.Format, r.CPUs, float64(r.SimNS)/1e9, float64(tr.Start)/1e9, float64(tr.End)/1e9, tr.Report.Events)
	if _, ok := st.Meta["end_ns"]; ok && st.Meta["scenario"] != "" {
		r.Headline += fmt.Sprintf("\nwritten by schedlab run: scenario %s, policy %s, seed %d", r.Scenario, r.Policy, r.Seed)
	}
	o := outcome(r, tr.Report, tr.Timer, tr.Wakeup, at.tl, tr.End)
	o.Source = Source{Origin: TraceFile, Trace: &Traced{Path: path, Trace: tr}}
	return o, nil
}

// AnalyzeRecording reports what the host runner recorded on a real kernel
// as run reports a simulation: the same analysis, with the statistics of
// the workload's tasks; the machine's other tasks run and preempt, but
// their wakeups are no samples and their rows are summed in a note. name
// names the workload in the report.
func AnalyzeRecording(rec *host.Recording, name string, keep Keep) (*Outcome, error) {
	return analyzeRecording(rec, name, keep, false)
}

// analyzeRecording is AnalyzeRecording of a host's or (guest) a VM's
// recording, whose other tasks are the guest's kernel threads and init.
func analyzeRecording(rec *host.Recording, name string, keep Keep, guest bool) (*Outcome, error) {
	at := newAttach(keep)
	dm := analyze.NewDeliveryMeter()
	extra := trace.Tee{dm}
	if x := at.extra(); x != nil {
		extra = append(extra, x)
	}
	var f *analyze.WorkloadFilter
	tr, err := analyze.ReadTraceFiltered(bytes.NewReader(rec.Trace), func(next trace.Sink) trace.Sink {
		f = analyze.NewWorkloadFilter(rec.RootPID, next)
		return f
	}, extra)
	if err != nil {
		return nil, fmt.Errorf("reading the recording: %w", err)
	}
	m := &Measured{Recording: rec, Facts: rec.Facts, TimerDelivery: dm.Stats(), Trace: tr}
	m.Facts.TimerDeliveryUS = float64(m.TimerDelivery.P50) / 1e3
	m.Facts.TimerDeliveryN = m.TimerDelivery.Count
	r := &report.Run{
		Scenario: name,
		Policy:   "host " + rec.Facts.Kernel,
		CPUs:     max(tr.Parse.HeaderCPUs, tr.Parse.CPUs),
		Features: map[string]bool{},
		Tunables: map[string]int64{},
		Seed:     rec.Seed,
		SimNS:    rec.End - rec.Start,
		Warnings: tr.Notes(),
	}
	if rec.Spec != nil && !rec.Spec.HasTimer() {
		r.NoTimer = "no timer in this workload"
	}
	// The table shows the workload; the machine's other tasks are summed.
	rep := tr.Report
	var rows []analyze.TaskRow
	var others int
	var otherNS int64
	for _, row := range rep.Tasks {
		if f.Has(row.PID) {
			rows = append(rows, row)
		} else {
			others++
			otherNS += row.Runtime
		}
	}
	rep.Tasks, rep.ByComm = rows, analyze.ByComm(rows)
	if others > 0 {
		if guest {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d other guest task(s) (kernel threads, init, a build beside the workload) were on a CPU for %.1f ms by the trace's switches (not in the table; their wakeups are not samples)", others, float64(otherNS)/1e6))
		} else {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d other host task(s) were on a CPU for %.1f ms by the trace's switches (not in the table; their wakeups are not samples; a task whose switch-outs the trace lacks, such as this host's sandbox agent, shows too much)", others, float64(otherNS)/1e6))
		}
	}
	if rec.Overrun > 0 || rec.Dropped > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the ring buffer lost events (overrun %d, dropped %d): rerun with a bigger --buffer-kb", rec.Overrun, rec.Dropped))
	}
	if rec.Facts.StealPct > 1 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("steal time was %.1f%% of the run (docs/host.md §Noise advises discarding runs above 1%%)", rec.Facts.StealPct))
	}
	fa := m.Facts
	r.Headline = fmt.Sprintf("measured %s on the host: Linux %s, CPUs %s (online %s), %.3f s, seed %d, cgroup %s",
		name, fa.Kernel, cpuText(rec.CPUs), fa.CPUs, float64(r.SimNS)/1e9, rec.Seed, orNone(fa.Cgroup))
	r.Headline += deliveryLine(fa)
	o := outcome(r, rep, tr.Timer, tr.Wakeup, at.tl, tr.End)
	o.Source = Source{Origin: HostKernel, Host: m}
	return o, nil
}

// deliveryLine is the headline's line on how late the kernel delivered the
// workload's timers ("" without samples).
func deliveryLine(fa host.Facts) string {
	if fa.TimerDeliveryN == 0 {
		return ""
	}
	return fmt.Sprintf("\ntimer delivery (expected expiry to the waiter's sched_waking): median %.1f µs of %d", fa.TimerDeliveryUS, fa.TimerDeliveryN)
}

func cpuText(cpus []int) string {
	if cpus == nil {
		return "all"
	}
	return host.FormatCPUs(cpus)
}

func orNone(s string) string {
	if s == "" {
		return "none (autogroup)"
	}
	return s
}

// AnalyzeVM reports a run in a virtual machine as AnalyzeRecording reports
// a host run; the headline says which kernel, how many vCPUs and how the
// guest's time passed, and what init did besides the run is in the
// warnings.
func AnalyzeVM(res *vm.Result, run int, name string, keep Keep) (*Outcome, error) {
	if run < 0 || run >= len(res.Recordings) {
		return nil, fmt.Errorf("run %d of a VM result with %d", run, len(res.Recordings))
	}
	rec := res.Recordings[run]
	o, err := analyzeRecording(rec, name, keep, true)
	if err != nil {
		return nil, err
	}
	r := o.Report
	fa := o.Source.Host.Facts
	r.Policy = "vm " + fa.Kernel
	r.Headline = fmt.Sprintf("measured %s in a VM: kernel %s (Linux %s, %s), %d vCPU(s), virtual time: %s; CPUs %s (online %s), %.3f s, seed %d, cgroup %s",
		name, res.Kernel.Name, fa.Kernel, res.Kernel.Sched(), res.VCPUs, res.Clock, cpuText(rec.CPUs), fa.CPUs, float64(r.SimNS)/1e9, rec.Seed, orNone(fa.Cgroup))
	r.Headline += fmt.Sprintf("\nboot to init %.1f s, whole run %.1f s of wall time", res.Boot.Seconds(), res.Wall.Seconds())
	if len(res.Retries) > 0 {
		r.Headline += fmt.Sprintf(" (%d failed boot(s) retried)", len(res.Retries))
	}
	r.Headline += deliveryLine(fa)
	if c := res.Costs; c != nil {
		r.Headline += "\n" + CostsLine(c)
	}
	r.Warnings = append(append(append([]string(nil), res.Guest...), res.Retries...), r.Warnings...)
	if res.VCPUs > 1 && res.Clock == "icount" {
		r.Warnings = append([]string{vm.RoundRobinNote}, r.Warnings...)
	}
	o.Source.Origin = VMKernel
	o.Source.Host.VM = res
	return o, nil
}

// CostsLine says what a cost probe measured, with the engine parameter
// each figure is the counterpart of.
func CostsLine(c *host.Costs) string {
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	return fmt.Sprintf("guest costs (probe, medians): context switch %.1f µs (cost_context_switch_ns), thread creation %.1f µs (cost_fork_ns), fork+exec+exit %.0f µs, timer to user code on an idle CPU %.1f µs",
		us(c.ContextSwitchNS), us(c.CloneNS), us(c.ForkExecNS), us(c.TimerNS))
}
