package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"schedlab/lab"
	"schedlab/report"
	"schedlab/sched"
	"schedlab/sim"
	"schedlab/workload"
)

// simFlags are the command line of a simulation.
type simFlags struct {
	policy, features, duration string
	set, params                []string
	cpus                       int
	seed                       uint64
	check, workgen             bool
}

func (s *simFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	// A back-quoted word in a usage string is pflag's name for the value.
	f.StringVar(&s.policy, "policy", lab.DefaultPolicy, "scheduling `policy`: "+strings.Join(sched.Profiles(), ", ")+" (schedlab features --policy P lists its features and tunables)")
	f.StringVar(&s.features, "features", "", "sched features to set, in the kernel's syntax: `LIST` such as NO_START_DEBIT,NEXT_BUDDY")
	f.StringArrayVar(&s.params, "param", nil, "set a parameter of a parametric built-in scenario: `NAME=VALUE` (repeatable; schedlab scenarios lists them)")
	f.StringArrayVar(&s.set, "set", nil, "set a tunable or engine parameter: `NAME=VALUE` (repeatable; the policy's, the real-time class's "+strings.Join(classTunableNames(), ", ")+", or the engine's)")
	f.IntVar(&s.cpus, "cpus", 1, "number of CPUs, 1 to 4096")
	f.StringVar(&s.duration, "duration", "", "simulated `time`, e.g. 10s or 250ms (default: the file's, else 10s)")
	f.Uint64Var(&s.seed, "seed", 1, "random seed for the workload's random durations")
	f.BoolVar(&s.check, "check", false, "verify the engine's and policy's invariants after every event")
	f.BoolVar(&s.workgen, "workgen", false, "read the file as rt-app's workgen script prepares it: repeated keys are renamed run, run1, … and all kept (rt-app itself, through json-c, keeps the last value at the first key's place)")
}

// request turns the flags into a typed request for the workload arg; what
// is wrong with them is an input error that names the flag.
func (s *simFlags) request(arg string) (lab.Request, error) {
	var req lab.Request
	params, err := parseParams(s.params)
	if err != nil {
		return req, err
	}
	spec, name, err := workload.LoadWith(arg, params, workload.ReadOptions{Workgen: s.workgen})
	if err != nil {
		return req, &lab.InputError{Err: err}
	}
	if s.cpus < 1 || s.cpus > lab.MaxCPUs {
		return req, &lab.InputError{Err: fmt.Errorf("--cpus %d: a simulation has 1 to %d CPUs", s.cpus, lab.MaxCPUs)}
	}
	req = lab.Request{Spec: spec, Name: name, Policy: s.policy, CPUs: s.cpus, Seed: s.seed, Check: s.check}
	if s.features != "" {
		req.Features = strings.Split(s.features, ",")
	}
	if req.Tunables, err = lab.ParseTunables(s.policy, s.set); err != nil {
		return req, &lab.InputError{Err: fmt.Errorf("--set %w", err)}
	}
	if s.duration != "" {
		if req.Duration, err = lab.ParseDuration(s.duration); err != nil {
			return req, &lab.InputError{Err: fmt.Errorf("--duration: %w", err)}
		}
	}
	return req, nil
}

// meta is what a trace written by run says about the run.
func (s *simFlags) meta(workload string) [][2]string {
	m := [][2]string{{"scenario", workload}, {"policy", s.policy}, {"cpus", strconv.Itoa(s.cpus)}, {"seed", strconv.FormatUint(s.seed, 10)}}
	if s.features != "" {
		m = append(m, [2]string{"features", s.features})
	}
	if len(s.set) > 0 {
		m = append(m, [2]string{"set", strings.Join(s.set, ",")})
	}
	return m
}

func runCmd() *cobra.Command {
	var s simFlags
	var asJSON, hist, pids bool
	var tasks int
	var rtappLog string
	var out outputs
	cmd := &cobra.Command{
		Use:   "run SCENARIO|FILE.json",
		Short: "Simulate a workload and report its latencies",
		Long: `Simulate a workload file (rt-app's JSON) or a built-in scenario under one
of the simulated kernels, and print its timer and wakeup latency,
perf-sched-style per-task table and the three lines of wakeup-latency.c.`,
		Example: `  schedlab run wakeup-latency-make-j10
  schedlab run wakeup-latency-make-j10 --features NO_START_DEBIT --set HZ=250
  schedlab run make-j10 --policy eevdf-6.18 --cpus 4 --json
  schedlab run my-workload.json --duration 30s --trace my.trace --html my.html`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			req, err := s.request(a[0])
			if err != nil {
				return err
			}
			if req.Keep, err = out.keep(s.meta(a[0]), s.cpus); err != nil {
				return err
			}
			req.Keep.PerTask = pids
			req.Keep.RtappLog = rtappLog != ""
			oc, err := lab.Simulate(req)
			var end int64
			if oc != nil {
				end = oc.End
			}
			if cerr := out.close(end, err); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if err := out.writeHTML("schedlab run "+a[0], oc); err != nil {
				return err
			}
			if rtappLog != "" {
				if err := writeRtappLogs(rtappLog, req.Spec.Global.LogBasename, oc.RtappLogs); err != nil {
					return err
				}
			}
			w := out.reportTo()
			if pids {
				oc.Report.Tasks = oc.Report.PerTask
			}
			if asJSON {
				// The text report prints the file's warnings (ignored
				// keys, collapsed duplicates); beside JSON they go to
				// stderr too, where a reader of the JSON sees them.
				for _, wm := range req.Spec.Warnings {
					fmt.Fprintf(os.Stderr, "schedlab: warning: %s\n", report.Printable(wm))
				}
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(oc.Report)
			}
			return oc.Report.WriteText(w, report.TextOptions{Hist: hist, MaxTasks: tasks, PIDs: pids})
		},
	}
	s.add(cmd)
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of text")
	f.BoolVar(&hist, "hist", false, "print log2 latency histograms")
	f.IntVar(&tasks, "tasks", 20, "rows of the per-task table in text output")
	f.BoolVar(&pids, "pids", false, "a row per task (perf sched latency -p) instead of one per comm, in text and --json (memory then grows with the tasks forked)")
	f.StringVar(&rtappLog, "rtapp-log", "", "write rt-app's per-thread logs (BASENAME-THREAD-N.log, BASENAME from global.log_basename) into `DIR`")
	out.flags(cmd, true)
	return cmd
}

// writeRtappLogs writes rt-app's per-thread logs into dir, named as rt-app
// names them: log_basename-thread.log.
func writeRtappLogs(dir, basename string, logs []*sim.RtappLog) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, l := range logs {
		path := filepath.Join(dir, basename+"-"+l.Name+".log")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		_, err = l.WriteTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--rtapp-log: %w", err)
		}
	}
	return nil
}
