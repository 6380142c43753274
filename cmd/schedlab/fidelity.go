package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"schedlab/fidelity"
	"schedlab/internal/outfile"
	"schedlab/lab"
	"schedlab/validate"
	"schedlab/vm"
)

func fidelityCmd() *cobra.Command {
	var kernels, duration, mdPath, dir string
	var runs int
	var again, reportOnly, kthreads bool
	cmd := &cobra.Command{
		Use:   "fidelity",
		Short: "Judge the simulator by real kernels: a suite of workloads and toggles in VMs beside the simulation",
		Long: `Run the fidelity suite: micro-workloads that each isolate one mechanism and
built-in scenarios, on each kernel in a virtual machine (as validate
--kernel, one vCPU, the workload on CPU 0), every scheduler feature and
tunable that decides a wakeup toggled on its own, RUNS runs each, beside
the simulation of each kernel's closest policy. Each case's kernel runs are
kept in DIR (one JSON file per case; a case already there is not run again
unless --again), and the simulation is redone from them, so after a model
change --report-only judges the model again in seconds.

Prints the tally; --markdown writes FIDELITY.md's body: per kernel every
case's figures with a verdict (inside the kernel's spread or within ±25 %),
and whether each toggle moves the simulation the way it moves the kernel.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var infos []fidelity.KernelInfo
			for _, name := range strings.Split(kernels, ",") {
				name = strings.TrimSpace(name)
				k, err := vm.Resolve(name)
				if err != nil && !reportOnly {
					return kernelError(err)
				}
				infos = append(infos, fidelity.Info(name, k))
			}
			d, err := lab.ParseDuration(duration)
			if err != nil {
				return &lab.InputError{Err: fmt.Errorf("--duration: %w", err)}
			}
			if runs < 1 || runs > 100 {
				return &lab.InputError{Err: fmt.Errorf("--runs %d: 1 to 100", runs)}
			}
			if mdPath != "" {
				if err := outfile.Check(mdPath); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--markdown: %w", err)}
				}
			}
			validate.GuestKernelThreads = kthreads
			cases := fidelity.Suite(infos)
			if !reportOnly {
				ctx, cancel := hostContext(24 * time.Hour)
				defer cancel()
				failed, err := fidelity.Measure(ctx, cases, fidelity.Options{Dir: dir, Again: again, Runs: runs, Duration: d, Seed: 1, VCPUs: 1, Progress: os.Stderr})
				if err != nil {
					return err
				}
				if failed > 0 {
					fmt.Fprintf(os.Stderr, "schedlab fidelity: %d case(s) failed (above); the report leaves them out\n", failed)
				}
			}
			results, err := fidelity.Load(dir, cases)
			if err != nil {
				return err
			}
			rep := fidelity.Judge(cases, results)
			fmt.Printf("fidelity: %d of %d cases measured; %s\n", len(results), len(cases), rep.Total)
			if mdPath != "" {
				var b bytes.Buffer
				fidelity.WriteMarkdown(&b, cases, results, rep)
				if err := outfile.Write(mdPath, b.Bytes()); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--markdown: %w", err)}
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&kernels, "kernels", "debian-6.1,debian-unstable,debian-5.10,debian-6.12", "the kernels, a comma-separated `LIST` of names of schedlab kernels list (or image paths)")
	f.IntVar(&runs, "runs", 3, "runs of each case, in one boot")
	f.StringVar(&duration, "duration", "5s", "length of each run")
	f.StringVar(&dir, "dir", "fidelity-results", "keep each case's kernel runs in `DIR`")
	f.BoolVar(&again, "again", false, "measure cases again even when DIR has them")
	f.BoolVar(&reportOnly, "report-only", false, "measure nothing: judge the simulation against the kernel runs in DIR")
	f.BoolVar(&kthreads, "kernel-threads", true, "simulate the guest's kernel threads and the launcher's heartbeat too (rcu_preempt, kcompactd, kworkers, init: validate.VMKernelThreads); =false leaves them out")
	f.StringVar(&mdPath, "markdown", "", "write the report (FIDELITY.md's body) to `FILE`")
	return cmd
}
