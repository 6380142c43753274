package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"schedlab/internal/outfile"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/sweep"
)

func sweepCmd() *cobra.Command {
	var o sweep.Options
	var index, count int
	cmd := &cobra.Command{
		Use:   "sweep GRID.json",
		Short: "Run a grid of simulations on all cores, resumably, optionally as one shard of many",
		Long: `Runs the product of a grid file's scenarios, policies, features, tunables,
params, cpus and seeds. Each result is written to --out under a hash of its
inputs; results already there are skipped, so an interrupted sweep resumes.
--index/--count select one of count shards; without them they come from
JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) or SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT (Slurm job arrays), with SCHEDLAB_SHARDS as the count.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			g, err := sweep.LoadGrid(a[0])
			if err != nil {
				return &lab.InputError{Err: err}
			}
			o.Index, o.Count, err = shard(cmd, index, count)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			o.Progress = sweepProgress()
			start := time.Now()
			sum, err := sweep.Run(g, o)
			if err != nil {
				return err
			}
			fmt.Printf("sweep: %d runs in this shard: %d ran (%d failed), %d already done; %s; results in %s\n",
				sum.Shard, sum.Ran, sum.Failed, sum.Skipped, time.Since(start).Round(time.Millisecond), o.Out)
			if sum.Failed > 0 {
				return fmt.Errorf("%d of %d runs failed (a rerun retries them; sweep merge %s lists every error):\n  %s",
					sum.Failed, sum.Ran, o.Out, strings.Join(sum.Failures, "\n  "))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "sweep-results", "directory of result files")
	f.IntVar(&index, "index", 0, "this shard's index, 0..count-1")
	f.IntVar(&count, "count", 0, "number of shards")
	f.IntVar(&o.Workers, "workers", 0, "simulations at once (default: one per CPU)")
	cmd.AddCommand(sweepMergeCmd())
	return cmd
}

// shard resolves --index/--count, falling back on the cluster's variables.
func shard(cmd *cobra.Command, index, count int) (int, int, error) {
	env := func(names ...string) (int, bool, error) {
		for _, n := range names {
			if v := os.Getenv(n); v != "" {
				i, err := strconv.Atoi(v)
				if err != nil {
					return 0, false, fmt.Errorf("%s=%q is not an integer", n, v)
				}
				return i, true, nil
			}
		}
		return 0, false, nil
	}
	if !cmd.Flags().Changed("index") {
		i, ok, err := env("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID")
		if err != nil {
			return 0, 0, err
		}
		if ok {
			index = i
		}
	}
	if !cmd.Flags().Changed("count") {
		c, ok, err := env("SCHEDLAB_SHARDS", "SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return 0, 0, err
		}
		if ok {
			count = c
		}
	}
	if count > 1 && (index < 0 || index >= count) {
		return 0, 0, fmt.Errorf("shard index %d is not in 0..%d", index, count-1)
	}
	if count <= 1 && index != 0 {
		return 0, 0, fmt.Errorf("shard index %d given without a shard count (--count, SCHEDLAB_SHARDS or SLURM_ARRAY_TASK_COUNT)", index)
	}
	return index, count, nil
}

// sweepProgress draws a progress line on a terminal and prints a plain line
// every tenth of the runs otherwise.
func sweepProgress() func(sweep.Progress) {
	fi, err := os.Stderr.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	lastTenth := -1
	return func(p sweep.Progress) {
		line := fmt.Sprintf("sweep: %d/%d runs, %d failed, about %s left", p.Done, p.Total, p.Failed, p.Left.Round(time.Second))
		if tty {
			fmt.Fprintf(os.Stderr, "\r%s\033[K", line)
			if p.Done == p.Total {
				fmt.Fprint(os.Stderr, "\r\033[K")
			}
			return
		}
		if tenth := p.Done * 10 / max(p.Total, 1); tenth != lastTenth {
			lastTenth = tenth
			fmt.Fprintln(os.Stderr, line)
		}
	}
}

func sweepMergeCmd() *cobra.Command {
	var asCSV, asJSON bool
	var svg, htmlFile string
	cmd := &cobra.Command{
		Use:   "merge DIR",
		Short: "Summarise a sweep's results: per configuration, mean and 95% interval over seeds",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			t, err := sweep.Merge(a[0])
			if err != nil {
				return &lab.InputError{Err: err}
			}
			if svg != "" {
				var b bytes.Buffer
				if err := t.WriteSVG(&b); err != nil {
					return err
				}
				if err := outfile.Write(svg, b.Bytes()); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--svg: %w", err)}
				}
			}
			if htmlFile != "" {
				var b bytes.Buffer
				if err := report.WriteHTML(&b, t.Page(a[0])); err != nil {
					return err
				}
				if err := outfile.Write(htmlFile, b.Bytes()); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--html: %w", err)}
				}
			}
			switch {
			case asJSON:
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(t)
			case asCSV:
				return t.WriteCSV(os.Stdout)
			}
			return t.WriteText(os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print CSV")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&svg, "svg", "", "also write a plot of the grid's main axis to this SVG file")
	cmd.Flags().StringVar(&htmlFile, "html", "", "also write the table and plot as a self-contained HTML file")
	return cmd
}
