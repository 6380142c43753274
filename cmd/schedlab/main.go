// Command schedlab simulates and measures Linux fair-scheduler latency.
//
//	schedlab reproduce [ID...] [--json]
//	schedlab run SCENARIO|FILE.json [--policy P] [--features F] [--set NAME=VALUE]...
//	schedlab measure SCENARIO|FILE.json [--cpus LIST] [--duration D] [--json] [--trace FILE] [--kernel NAME|PATH [--vcpus N]]
//	schedlab validate SCENARIO|FILE.json [--runs N] [--duration D] [--json] [--rt-app]
//	schedlab analyze TRACE [--json] [--hist] [--html FILE] [--timeline D] [--tasks N]
//	schedlab features [--policy P]
//	schedlab scenarios
//	schedlab scenario show NAME
//	schedlab sweep GRID.json [--out DIR] [--index I --count N]
//	schedlab sweep merge DIR [--csv|--json] [--svg FILE]
//	schedlab kernels [list | fetch NAME...]
//	schedlab version
//
// Errors in what the user gave exit with status 2, other failures with 1.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"schedlab/internal/buildinfo"
	"schedlab/lab"
	"schedlab/vm"
)

// usageError marks command-line mistakes (exit status 2).
type usageError struct{ error }

func main() {
	if vm.IsGuest() {
		vm.GuestMain() // schedlab is a VM's init: it runs the launcher's request and powers off
	}
	root := &cobra.Command{
		Use:           "schedlab",
		Short:         "A laboratory for Linux fair-scheduler wakeup latency",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Version(),
	}
	root.SetVersionTemplate("schedlab {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(reproduceCmd(), runCmd(), measureCmd(), validateCmd(), fidelityCmd(), analyzeCmd(), featuresCmd(), scenariosCmd(), scenarioCmd(), sweepCmd(), kernelsCmd(), versionCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "schedlab: %v\n", err)
		var ie *lab.InputError
		var ue usageError
		if errors.As(err, &ie) || errors.As(err, &ue) || isCobraUsage(err) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// isCobraUsage recognises argument errors: ours, and cobra's unknown
// command, which it returns as a plain error.
func isCobraUsage(err error) bool {
	var ae argError
	return errors.As(err, &ae) || strings.HasPrefix(err.Error(), "unknown command ")
}

// argError wraps cobra's positional-argument checks.
type argError struct{ error }

func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return argError{fmt.Errorf("%s: %w (usage: %s)", cmd.CommandPath(), err, cmd.UseLine())}
		}
		return nil
	}
}
