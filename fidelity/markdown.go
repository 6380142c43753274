package fidelity

import (
	"fmt"
	"io"
	"strings"

	"schedlab/validate"
)

// Report is the suite's judgement of the model.
type Report struct {
	Total    Tally
	ByKernel map[string]*Tally
	Toggles  []Toggle
	Missing  []Case
	// Figures are each measured case's figures, judged.
	Figures map[Case][]Figure
}

// Judge tallies the figures of every case with a result and judges every
// toggle whose baseline has one.
func Judge(cases []Case, results map[Case]*validate.Result) *Report {
	r := &Report{ByKernel: map[string]*Tally{}, Figures: map[Case][]Figure{}}
	figs := r.Figures
	for _, c := range cases {
		res, ok := results[c]
		if !ok {
			r.Missing = append(r.Missing, c)
			continue
		}
		f := Figures(c, res)
		figs[c] = f
		r.Total.add(f)
		if r.ByKernel[c.Kernel] == nil {
			r.ByKernel[c.Kernel] = &Tally{}
		}
		r.ByKernel[c.Kernel].add(f)
	}
	for _, c := range cases {
		if c.Toggle == "" {
			continue
		}
		base, ok1 := figs[c.Base()]
		tog, ok2 := figs[c]
		if ok1 && ok2 {
			r.Toggles = append(r.Toggles, JudgeToggle(c, base, tog))
		}
	}
	return r
}

// WriteMarkdown writes FIDELITY.md's body: the tallies, a table per kernel
// with every case's figures, and the toggles.
func WriteMarkdown(w io.Writer, cases []Case, results map[Case]*validate.Result, rep *Report) {
	fmt.Fprintf(w, "## Tally\n\nAll kernels: %s.\n\n", rep.Total)
	var kernels []string
	for _, c := range cases {
		if len(kernels) == 0 || kernels[len(kernels)-1] != c.Kernel {
			kernels = append(kernels, c.Kernel)
		}
	}
	for _, k := range kernels {
		if t := rep.ByKernel[k]; t != nil {
			fmt.Fprintf(w, "- %s: %s\n", k, t)
		}
	}
	judged, agreed, unmoved := 0, 0, 0
	for _, t := range rep.Toggles {
		if t.Judged == 0 {
			unmoved++
			continue
		}
		judged++
		if t.Agreed == t.Judged {
			agreed++
		}
	}
	fmt.Fprintf(w, "\nToggles: %d of %d that moved a figure on the kernel move every such figure the same way in the simulation; %d moved nothing on the kernel.\n", agreed, judged, unmoved)
	if len(rep.Missing) > 0 {
		// By kernel: a campaign that stopped leaves whole kernels out.
		byKernel := map[string][]string{}
		for _, c := range rep.Missing {
			byKernel[c.Kernel] = append(byKernel[c.Kernel], c.Name())
		}
		var m []string
		for _, k := range kernels {
			names := byKernel[k]
			switch {
			case len(names) == 0:
			case len(names) > 4:
				m = append(m, fmt.Sprintf("%s: %d cases", k, len(names)))
			default:
				m = append(m, strings.Join(names, ", "))
			}
		}
		fmt.Fprintf(w, "\nNot measured yet (no result): %s.\n", strings.Join(m, "; "))
	}
	for _, k := range kernels {
		first := true
		for _, c := range cases {
			res, ok := results[c]
			if c.Kernel != k || !ok {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n## %s\n\n", kernelTitle(k, res))
				fmt.Fprintf(w, "Each cell is the kernel's median over its runs, its min–max, then the simulation's median (µs; shares in %%); ✓ agrees (inside the spread or within ±%.0f %%), ✗ does not, ✗✗ off by more than %g×.\n\n", 100*Tolerance, Far)
				fmt.Fprintln(w, "| case | figure | kernel | spread | simulation | |")
				fmt.Fprintln(w, "|---|---|---:|---:|---:|---|")
				first = false
			}
			name := c.Workload
			if c.Toggle != "" {
				name += " " + c.Toggle
			}
			for i, f := range rep.Figures[c] {
				lead := ""
				if i == 0 {
					lead = name
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s–%s | %s | %s |\n", lead, f.Name, num(f, f.Real), num(f, f.Lo), num(f, f.Hi), num(f, f.Sim), mark(f))
			}
		}
	}
	if len(rep.Toggles) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Toggles\n\nA figure moved on the kernel when the spreads of the toggle's runs and the baseline's do not overlap and the median moved by %.0f %% or more; the simulation moved it when its median moved by %.0f %% or more. ↑ up, ↓ down, · not moved.\n\n", 100*Moved, 100*Moved)
	fmt.Fprintln(w, "| kernel | workload | toggle | kernel moved | simulation agrees | figures (kernel / simulation) |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---|")
	for _, t := range rep.Toggles {
		var moves []string
		for _, m := range t.Moves {
			if m.Real != 0 || m.Sim != 0 {
				moves = append(moves, fmt.Sprintf("%s %s/%s", m.Figure, arrow(m.Real), arrow(m.Sim)))
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %s |\n", t.Case.Kernel, t.Case.Workload, t.Case.Toggle, t.Judged, t.Agreed, strings.Join(moves, ", "))
	}
}

func kernelTitle(k string, res *validate.Result) string {
	if res.VM == nil {
		return k
	}
	return fmt.Sprintf("%s (Linux %s, %s): simulated as %s", k, res.VM.Release, res.VM.Kernel.Sched(), res.Policy)
}

func num(f Figure, v float64) string {
	if strings.HasPrefix(f.Name, "share ") {
		return fmt.Sprintf("%.1f", 100*v)
	}
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func mark(f Figure) string {
	switch {
	case f.Agrees:
		return "✓"
	case f.Far:
		return fmt.Sprintf("✗✗ %.2g×", f.Ratio())
	}
	return fmt.Sprintf("✗ %.2g×", f.Ratio())
}

func arrow(d int) string {
	switch {
	case d > 0:
		return "↑"
	case d < 0:
		return "↓"
	}
	return "·"
}
