package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"schedlab/lab"
	"schedlab/workload"
)

func scenariosCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "scenarios",
		Short: "List the built-in scenarios",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			for _, s := range workload.Scenarios() {
				fmt.Fprintf(w, "%s\t%s\n", s.Name, s.Description)
			}
			return w.Flush()
		},
	}
}

func scenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Work with one built-in scenario",
		Args:  args(cobra.NoArgs),
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show NAME",
		Short: "Print a built-in scenario's JSON (copy it, edit it, run the copy)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			data, err := workload.Scenario(a[0])
			if err != nil {
				return &lab.InputError{Err: err}
			}
			_, err = os.Stdout.Write(data)
			return err
		},
	})
	return cmd
}
