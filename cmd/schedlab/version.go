package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"schedlab/internal/buildinfo"
)

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print schedlab's version: module version, commit, uncommitted changes, Go release",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "schedlab %s\n", buildinfo.Version())
			return err
		},
	}
}
