package main

import (
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"schedlab/lab"
	"schedlab/vm"
)

func kernelsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kernels [list | fetch NAME...]",
		Short: "Real kernels for measure --kernel: Debian's packaged kernels, fetched into a cache",
		Long: `Named kernels are Debian's cloud-flavoured images (linux-image-cloud-amd64)
of a suite, downloaded with apt into the user's cache directory and
extracted there (never installed). Suites other than the machine's own are
reached through a private apt sources file derived from the machine's (the
same archive, another suite) with private lists; the machine's apt
configuration is neither used nor changed. The path of any bzImage/vmlinuz
works wherever a NAME does.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return listKernels() },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the named kernels: version, scheduler, cached or not",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return listKernels() },
	}
	fetch := &cobra.Command{
		Use:   "fetch NAME...",
		Short: "Download and extract named kernels (the newest of their suite) into the cache",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			for _, name := range a {
				if _, err := vm.Fetch(name, os.Stderr); err != nil {
					return kernelError(err)
				}
			}
			return nil
		},
	}
	cmd.AddCommand(list, fetch)
	return cmd
}

func listKernels() error {
	dir, err := vm.CacheDir()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "NAME\tSCHEDULER\tRELEASE\tCACHED\n")
	for _, e := range vm.List() {
		cached := "no"
		if e.Kernel != nil {
			cached = fmt.Sprintf("Linux %s (%s %s)", e.Kernel.Release, e.Kernel.Package, e.Kernel.Version)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Name, e.Sched, e.About, cached)
	}
	w.Flush()
	fmt.Printf("\ncache: %s\n", dir)
	return nil
}

// kernelError makes what a user can fix an input error (exit status 2).
func kernelError(err error) error {
	var ie *vm.InputError
	var nf *vm.NotFetchedError
	if errors.As(err, &ie) || errors.As(err, &nf) {
		return &lab.InputError{Err: err}
	}
	return err
}
