package main

import (
	"encoding/json"
	"os"

	"github.com/spf13/cobra"

	"schedlab/lab"
	"schedlab/report"
)

func runCmd() *cobra.Command {
	var o lab.Options
	var asJSON, hist bool
	var tasks int
	var params []string
	var out outputs
	cmd := &cobra.Command{
		Use:   "run SCENARIO|FILE.json",
		Short: "Simulate a workload and report its latencies",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.Workload = a[0]
			var err error
			if o.Params, err = parseParams(params); err != nil {
				return err
			}
			if o.Sink, err = out.open(runMeta(a[0], o), o.CPUs); err != nil {
				return err
			}
			r, err := lab.Simulate(o)
			var end int64
			if r != nil {
				end = r.SimNS
			}
			if cerr := out.close(end, err); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if err := out.writeHTML("schedlab run "+a[0], r); err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			return r.WriteText(os.Stdout, report.TextOptions{Hist: hist, MaxTasks: tasks})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Policy, "policy", lab.DefaultPolicy, "scheduling policy (see `schedlab features`)")
	f.StringVar(&o.Features, "features", "", "sched features to set, kernel syntax: NO_START_DEBIT,NEXT_BUDDY")
	f.StringArrayVar(&params, "param", nil, "set a parameter of a parametric built-in scenario: NAME=VALUE (repeatable; see `schedlab scenarios`)")
	f.StringArrayVar(&o.Set, "set", nil, "set a tunable or engine parameter: NAME=VALUE (repeatable)")
	f.IntVar(&o.CPUs, "cpus", 1, "number of CPUs")
	f.StringVar(&o.Duration, "duration", "", "simulated time, e.g. 10s or 250ms (default: the file's, else 10s)")
	f.Uint64Var(&o.Seed, "seed", 1, "random seed for the workload's random durations")
	f.BoolVar(&o.Check, "check", false, "verify the engine's and policy's invariants after every event")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of text")
	f.BoolVar(&hist, "hist", false, "print log2 latency histograms")
	f.IntVar(&tasks, "tasks", 20, "rows of the per-task table in text output")
	out.flags(cmd, true)
	return cmd
}
