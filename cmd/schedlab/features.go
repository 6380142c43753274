package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"schedlab/lab"
	"schedlab/sched"
	"schedlab/sim"
)

func featuresCmd() *cobra.Command {
	var policy string
	var ncpu int
	cmd := &cobra.Command{
		Use:   "features",
		Short: "List a policy's sched features and tunables with their defaults",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prof, err := sched.Lookup(policy)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			if ncpu < 1 || ncpu > lab.MaxCPUs {
				return &lab.InputError{Err: fmt.Errorf("--cpus %d: 1 to %d CPUs", ncpu, lab.MaxCPUs)}
			}
			cfg, err := prof.NewConfig(ncpu, nil, nil)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "%s: %s\n\nFEATURE\tDEFAULT\tMEANING\n", prof.Name, prof.Doc)
			for _, f := range prof.Features {
				def := "off"
				if f.Default {
					def = "on"
				}
				fmt.Fprintf(w, "%s\t%s\t%s%s\n", f.Name, def, f.Doc, label(f.SMPOnly, f.Reconstruction))
			}
			fmt.Fprintf(w, "\nTUNABLE\tDEFAULT (%d CPU)\tMEANING\n", ncpu)
			// The higher classes' sysctls hold for every profile.
			for _, t := range slices.Concat(prof.Tunables, sched.ClassTunables()) {
				fmt.Fprintf(w, "%s\t%d%s\t%s%s\n", t.Name, cfg.Tunables[t.Name], unit(t.Unit), t.Doc, label(false, t.Reconstruction))
			}
			fmt.Fprintf(w, "\nENGINE PARAMETER\tDEFAULT\tMEANING\n")
			for _, t := range sim.ParamTunables() {
				fmt.Fprintf(w, "%s\t%d%s\t%s\n", t.Name, t.Default, unit(t.Unit), t.Doc)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&policy, "policy", lab.DefaultPolicy, "policy: "+strings.Join(sched.Profiles(), ", "))
	cmd.Flags().IntVar(&ncpu, "cpus", 1, "CPU count, for the scaled tunables")
	return cmd
}

func unit(u string) string {
	if u == "" || u == "ns" {
		return ""
	}
	return " " + u
}

func label(smp bool, recon string) string {
	var s string
	if smp {
		s += " [SMP only]"
	}
	if recon != "" {
		s += " [reconstruction " + recon + "]"
	}
	return s
}

// classTunableNames lists the sysctls of the classes above the fair one.
func classTunableNames() []string {
	var names []string
	for _, t := range sched.ClassTunables() {
		names = append(names, t.Name)
	}
	return names
}
