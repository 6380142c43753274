package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"schedlab/host"
	"schedlab/internal/outfile"
	"schedlab/lab"
	"schedlab/sim"
	"schedlab/validate"
)

func validateCmd() *cobra.Command {
	var h hostFlags
	var runs int
	var asJSON, rtApp bool
	var htmlPath, mdPath string
	var set []string
	var v vmFlags
	cmd := &cobra.Command{
		Use:   "validate SCENARIO|FILE.json",
		Short: "Run a workload on the host kernel and in the simulation, side by side",
		Long: `Run a workload N times on the host kernel (as measure does) and N times in
the simulation with the host's profile (eevdf-6.18, HZ 250, the host's CPU
count and base slice, the workload in one task group as the host run's
cgroup), and compare p50, p90, p99 and maximum of timer and wakeup latency:
each figure is inside the host's run-to-run spread, or off by how much.

--rt-app also runs the file with Debian's rt-app 1.0 and shows its wu_lat,
where rt-app can run the file (no fork, task groups or schedlab extensions),
and otherwise says why not. Needs root and tracefs, as measure.

--kernel NAME|PATH measures in that kernel in a virtual machine instead (as
measure --kernel; one boot makes every run, after one warm-up and a probe of
the guest's costs), and simulates the policy closest to the kernel (5.10:
cfs-2.6.36; 6.1: cfs-6.1; 6.6: eevdf-6.6; 6.12: eevdf-6.12; 6.18 and newer:
eevdf-6.18) with the guest kernel's own features, tunables and CONFIG_HZ,
and the VM's costs. No root needed. With --kernel, --features and a --set of
a kernel tunable are written to the guest kernel (and the simulation takes
them from it); a --set of an engine parameter (cost_*_ns, HZ) changes the
simulation only.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o, name, timeout, err := h.resolve(a[0])
			if err != nil {
				return err
			}
			if runs < 1 || runs > 1000 {
				return &lab.InputError{Err: fmt.Errorf("--runs %d: need 1 to 1000 runs", runs)}
			}
			for _, f := range []struct{ flag, path string }{{"html", htmlPath}, {"markdown", mdPath}} {
				if f.path != "" {
					if err := outfile.Check(f.path); err != nil {
						return &lab.InputError{Err: fmt.Errorf("--%s: %w", f.flag, err)}
					}
				}
			}
			o.Log = nil
			vo, simSet, err := v.validateOptions(cmd, a[0], h.params, o, runs, set, rtApp)
			if err != nil {
				return err
			}
			ctxTimeout := timeout*time.Duration(runs) + time.Minute
			if vo != nil && !cmd.Flags().Changed("timeout") {
				ctxTimeout = vo.timeout
			}
			ctx, cancel := hostContext(ctxTimeout)
			defer cancel()
			policy := validate.Policy
			if vo != nil {
				// The kernel's policy is known after boot; engine
				// parameters are every policy's.
				policy = ""
			}
			tunables, err := lab.ParseTunables(policy, simSet)
			if err != nil {
				return &lab.InputError{Err: fmt.Errorf("--set %w", err)}
			}
			vopt := validate.Options{Host: o, Scenario: name, Runs: runs, RTApp: rtApp, Set: tunables, Progress: os.Stderr}
			if vo != nil {
				vopt.VM = &vo.Options
			}
			res, err := validate.Run(ctx, vopt)
			if err != nil {
				return kernelError(hostError(err))
			}
			if htmlPath != "" {
				if err := writeHTMLFile(htmlPath, res.Page()); err != nil {
					return err
				}
			}
			if mdPath != "" {
				var b bytes.Buffer
				title := strings.Join(append([]string{name}, mdArgs(cmd)...), " ")
				if err := res.WriteMarkdown(&b, title); err != nil {
					return err
				}
				if err := outfile.Write(mdPath, b.Bytes()); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--markdown: %w", err)}
				}
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			return res.WriteText(os.Stdout)
		},
	}
	h.add(cmd)
	v.add(cmd, false)
	f := cmd.Flags()
	f.IntVar(&runs, "runs", 5, "runs on each side")
	f.StringArrayVar(&set, "set", nil, "change a tunable or engine parameter of the simulation, NAME=VALUE (repeatable), to try a model against the host")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	f.StringVar(&htmlPath, "html", "", "write a self-contained HTML report (table, verdicts, bar charts, tail plots of both sides) to `FILE`")
	f.StringVar(&mdPath, "markdown", "", "write the table as a Markdown section (VALIDATION.md's form) to `FILE`")
	f.BoolVar(&rtApp, "rt-app", false, "also run the file with rt-app 1.0 and show its wu_lat")
	return cmd
}

// mdArgs are the flags that change what was compared, for a table's title.
func mdArgs(cmd *cobra.Command) []string {
	var out []string
	for _, name := range []string{"cpus", "set", "param"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			v := strings.Trim(f.Value.String(), "[]")
			out = append(out, "--"+name+" "+v)
		}
	}
	return out
}

// validateOptions splits validate's --set between the guest kernel (its
// tunables, with --kernel) and the simulation (engine parameters, and
// every name without --kernel), and resolves the VM's options (nil: a host
// validation).
func (v *vmFlags) validateOptions(cmd *cobra.Command, arg string, params []string, o host.Options, runs int, set []string, rtApp bool) (*vmRun, []string, error) {
	if v.kernel == "" {
		if err := v.hostOnly(cmd); err != nil {
			return nil, nil, err
		}
		return nil, set, nil
	}
	if rtApp {
		return nil, nil, &lab.InputError{Err: fmt.Errorf("--rt-app runs on the host only: the guest has no rt-app")}
	}
	if v.makeJobs > 0 {
		return nil, nil, &lab.InputError{Err: fmt.Errorf("--make applies to measure --kernel: the simulation has no model of the guest's real build (validate a make-jN scenario instead, or measure the real build and run its model)")}
	}
	var simSet []string
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		if sim.IsParam(strings.TrimSpace(name)) {
			simSet = append(simSet, kv)
		} else {
			v.set = append(v.set, kv)
		}
	}
	vo, err := v.options(arg, params, o, runs)
	if err != nil {
		return nil, nil, err
	}
	return &vo, simSet, nil
}
