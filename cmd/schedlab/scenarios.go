package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"schedlab/lab"
	"schedlab/workload"
)

func scenariosCmd() *cobra.Command {
	var long bool
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the built-in scenarios, one line each (--long: descriptions and parameters)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			list := workload.Scenarios()
			w := 0
			for _, s := range list {
				w = max(w, len(s.Name))
			}
			var b strings.Builder
			for _, s := range list {
				if long {
					fmt.Fprintf(&b, "%-*s  %s\n", w, s.Name, s.Description)
				} else {
					fmt.Fprintf(&b, "%-*s  %s\n", w, s.Name, summary(s.Description, 78-w))
				}
			}
			tmpls := workload.Templates()
			if !long {
				var names []string
				for _, t := range tmpls {
					names = append(names, t.Name)
				}
				if len(names) > 0 {
					fmt.Fprintf(&b, "\nparametric: %s (schedlab scenarios --long lists their parameters)\n", strings.Join(names, ", "))
				}
				b.WriteString("schedlab scenario show NAME prints its JSON and whole description.\n")
				_, err := os.Stdout.WriteString(b.String())
				return err
			}
			if len(tmpls) > 0 {
				b.WriteString("\nParameters of the parametric scenarios, with their defaults " +
					"(schedlab run NAME --param NAME=VALUE, schedlab scenario show NAME --param NAME=VALUE):\n")
			}
			for _, t := range tmpls {
				fmt.Fprintf(&b, "\n%s: %s", t.Name, strings.Join(t.Listed, ", "))
				pw := 0
				for _, p := range t.Params {
					if p.Name == t.NameParam {
						fmt.Fprintf(&b, ", or any %s with %s in %s..%s", t.Name, p.Name, num(p.Min), num(p.Max))
					}
					pw = max(pw, len(p.Name)+1+len(p.Default))
				}
				b.WriteString("\n")
				for _, p := range t.Params {
					fmt.Fprintf(&b, "  %-*s  %s (%s, %s..%s)\n", pw, p.Name+"="+p.Default, p.Doc, p.Kind, num(p.Min), num(p.Max))
				}
			}
			_, err := os.Stdout.WriteString(b.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&long, "long", false, "print each scenario's whole description and the parametric ones' parameters")
	return cmd
}

// summary is a description's gist in at most width characters: its first
// clause, without parenthetical asides, cut at a word with "…".
func summary(desc string, width int) string {
	var b strings.Builder
	depth := 0
	for _, r := range desc {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	for _, p := range []string{",", ":", ";", "."} {
		s = strings.ReplaceAll(s, " "+p, p)
	}
	for _, stop := range []string{": ", ". ", "; "} {
		if i := strings.Index(s, stop); i > 0 {
			s = s[:i]
		}
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	width = max(width, 20)
	if r := []rune(s); len(r) > width {
		cut := string(r[:width-1])
		if i := strings.LastIndexByte(cut, ' '); i > width/2 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, " ,;") + "…"
	}
	return s
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// parseParams turns repeated --param NAME=VALUE flags into a map; a later
// flag for the same name wins.
func parseParams(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, &lab.InputError{Err: fmt.Errorf("--param %q: want NAME=VALUE (`schedlab scenarios` lists each scenario's parameters)", kv)}
		}
		m[k] = v
	}
	return m, nil
}

func scenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Work with one built-in scenario",
		// A command with subcommands and no action of its own would take
		// an unknown one for help and exit 0.
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 0 {
				return cmd.Help()
			}
			return argError{fmt.Errorf("schedlab scenario: unknown subcommand %q (valid: show)", a[0])}
		},
	}
	var params []string
	show := &cobra.Command{
		Use:   "show NAME [--param NAME=VALUE]...",
		Short: "Print a built-in scenario's JSON, rendered with its parameters (copy it, edit it, run the copy)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			pm, err := parseParams(params)
			if err != nil {
				return err
			}
			data, err := workload.Scenario(a[0], pm)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			_, err = os.Stdout.Write(data)
			return err
		},
	}
	show.Flags().StringArrayVar(&params, "param", nil, "set a parameter of a parametric scenario: NAME=VALUE (repeatable)")
	cmd.AddCommand(show)
	return cmd
}
