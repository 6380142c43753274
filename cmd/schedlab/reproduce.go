package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"schedlab/experiment"
	"schedlab/internal/outfile"
	"schedlab/lab"
)

func reproduceCmd() *cobra.Command {
	var asJSON bool
	var htmlPath, svgDir string
	cmd := &cobra.Command{
		Use:   "reproduce [ID...]",
		Short: "Run the seed experiments and print paper beside simulation, with a verdict on every claim",
		Long: "Run the seed experiments (all, or the IDs given) and print each mail's table beside the\n" +
			"simulation's, with a verdict on every claim it makes. docs/seeds.md describes the mails.\n\n" +
			"Experiments: " + strings.Join(experimentIDs(), ", "),
		Example: `  schedlab reproduce
  schedlab reproduce start-nice check-preempt-tick --json
  schedlab reproduce --html reproduce.html --svg figures/`,
		RunE: func(cmd *cobra.Command, ids []string) error {
			exps, err := experiment.Lookup(ids)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			figures := htmlPath != "" || svgDir != ""
			results, err := experiment.Run(exps, experiment.Options{Progress: progress(), Figures: figures})
			if err != nil {
				return err
			}
			if figures {
				if err := writeFigures(results, htmlPath, svgDir); err != nil {
					return err
				}
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
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write a self-contained HTML report (tables, claims, bars with each run, latency tail plots, histograms, timelines) to `FILE`")
	cmd.Flags().StringVar(&svgDir, "svg", "", "also write each figure as an SVG file into DIR (created if needed)")
	return cmd
}

func experimentIDs() []string {
	var ids []string
	for _, e := range experiment.All() {
		ids = append(ids, e.ID)
	}
	return ids
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

// writeFigures writes the HTML report and the SVG figures of the results.
func writeFigures(results []*experiment.Result, htmlPath, svgDir string) error {
	page, err := experiment.Page(results)
	if err != nil {
		return err
	}
	if svgDir != "" {
		if err := os.MkdirAll(svgDir, 0o755); err != nil {
			return &lab.InputError{Err: fmt.Errorf("--svg: %w", err)}
		}
		for _, sec := range page.Sections {
			for _, f := range sec.Figures {
				if err := outfile.Write(filepath.Join(svgDir, f.Name+".svg"), []byte(f.SVG+"\n")); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--svg: %w", err)}
				}
			}
		}
	}
	if htmlPath != "" {
		return writeHTMLFile(htmlPath, page)
	}
	return nil
}
