package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"schedlab/experiment"
	"schedlab/lab"
)

func reproduceCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reproduce [ID...]",
		Short: "Run the seed experiments and print paper beside simulation, with a verdict on every claim",
		RunE: func(cmd *cobra.Command, ids []string) error {
			exps, err := experiment.Lookup(ids)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			results, err := experiment.Run(exps, 0, progress())
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"experiments": results})
			}
			return experiment.WriteText(os.Stdout, results)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {\"experiments\": [...]} instead of tables")
	return cmd
}

// progress reports runs done on a terminal's stderr, and nothing when
// stderr is a file or pipe (logs stay clean).
func progress() func(done, total int) {
	fi, err := os.Stderr.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(os.Stderr, "\rreproduce: %d/%d simulations", done, total)
		if done == total {
			fmt.Fprint(os.Stderr, "\r\033[K")
		}
	}
}
