package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"schedlab/experiment"
	"schedlab/internal/outfile"
	"schedlab/lab"
	"schedlab/vm"
)

func reproduceCmd() *cobra.Command {
	var asJSON bool
	var htmlPath, svgDir string
	var kernel, kernelDur string
	var kernelFrom []string
	var kernelRuns int
	cmd := &cobra.Command{
		Use:   "reproduce [ID...]",
		Short: "Run the seed experiments and print paper beside simulation, with a verdict on every claim",
		Long: "Run the seed experiments (all, or the IDs given) and print each mail's table beside the\n" +
			"simulation's, with a verdict on every claim it makes. docs/seeds.md describes the mails.\n\n" +
			"Experiments: " + strings.Join(experimentIDs(), ", "),
		Example: `  schedlab reproduce
  schedlab reproduce start-nice check-preempt-tick --json
  schedlab reproduce --html reproduce.html --svg figures/
  schedlab reproduce --kernel debian-6.1 --json > kept.json
  schedlab reproduce --kernel-from validation/reproduce-kernel/debian-6.1.json`,
		RunE: func(cmd *cobra.Command, ids []string) error {
			exps, err := experiment.Lookup(ids)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			figures := htmlPath != "" || svgDir != ""
			opts := experiment.Options{Progress: progress(), Figures: figures}
			if kernel != "" && len(kernelFrom) > 0 {
				return &lab.InputError{Err: fmt.Errorf("--kernel measures a column and --kernel-from shows a kept one: give one of them")}
			}
			if kernel == "" {
				for _, name := range []string{"kernel-runs", "kernel-duration"} {
					if cmd.Flags().Changed(name) {
						return &lab.InputError{Err: fmt.Errorf("--%s applies with --kernel", name)}
					}
				}
			} else {
				ko, cancel, err := kernelOptions(kernel, kernelRuns, kernelDur)
				if err != nil {
					return err
				}
				defer cancel()
				opts.Kernel = ko
			}
			results, err := experiment.Run(exps, opts)
			if err != nil {
				return kernelError(err)
			}
			for _, file := range kernelFrom {
				data, err := os.ReadFile(file)
				if err != nil {
					return &lab.InputError{Err: fmt.Errorf("--kernel-from: %w", err)}
				}
				if err := experiment.KeptKernel(exps, results, data, file); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--kernel-from %w", err)}
				}
			}
			if figures {
				if err := writeFigures(results, htmlPath, svgDir); err != nil {
					return err
				}
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"experiments": results, "paper_figures": experiment.Tally(results)})
			}
			return experiment.WriteText(os.Stdout, results)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {\"experiments\": [...], \"paper_figures\": {...}} instead of tables")
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write a self-contained HTML report (tables, claims, bars with each run, latency tail plots, histograms, timelines) to `FILE`")
	cmd.Flags().StringVar(&svgDir, "svg", "", "also write each figure as an SVG file into DIR (created if needed)")
	cmd.Flags().StringVar(&kernel, "kernel", "", "add a column: every row a real kernel can express, run on it in a VM (a name of schedlab kernels list, or a bzImage path), one boot per row")
	cmd.Flags().StringArrayVar(&kernelFrom, "kernel-from", nil, "add the real-kernel column kept in `FILE` (what reproduce --kernel --json printed) instead of measuring it; repeat for the experiments of another kernel's file")
	cmd.Flags().IntVar(&kernelRuns, "kernel-runs", 3, "with --kernel: runs per row on the real kernel (seeds 1-N, in one boot)")
	cmd.Flags().StringVar(&kernelDur, "kernel-duration", "10s", "with --kernel: each real run's duration (an emulated guest second takes several seconds of wall time)")
	return cmd
}

// kernelOptions resolves reproduce's real-kernel column: the kernel, its
// runs, and a context that ends on a signal or when every boot has had
// its time.
func kernelOptions(name string, runs int, dur string) (*experiment.KernelOptions, func(), error) {
	k, err := vm.Resolve(name)
	if err != nil {
		return nil, nil, kernelError(err)
	}
	if runs < 1 {
		return nil, nil, &lab.InputError{Err: fmt.Errorf("--kernel-runs %d: at least 1", runs)}
	}
	d, err := lab.ParseDuration(dur)
	if err != nil || d <= 0 {
		return nil, nil, &lab.InputError{Err: fmt.Errorf("--kernel-duration %q: a positive duration such as 10s", dur)}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	// A warm-up as measure's default, never longer than a run.
	warm := min(time.Second, d)
	// Each boot: 3 minutes, and 20 s of wall time a guest second (as
	// measure --kernel allows), for every row of every experiment.
	per := 3*time.Minute + 20*(time.Duration(runs)*d+warm)
	ctx, cancel := hostContext(per * 40)
	ko := &experiment.KernelOptions{Measurer: &experiment.VMMeasurer{K: k, Init: exe, Warmup: warm, Log: os.Stderr},
		Runs: runs, Duration: d, Context: ctx,
		Progress: func(exp, row string) {
			fmt.Fprintf(os.Stderr, "reproduce: %s, %s: %d run(s) of %v on %s\n", exp, row, runs, d, k.Name)
		}}
	return ko, cancel, nil
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
