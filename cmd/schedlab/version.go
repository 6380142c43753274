package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version says which build this is: the module version (or "devel"), the
// commit it was built from and whether the tree had changes, and the Go
// release. go build stamps the commit from the checkout; go run does not.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		v += ", commit unknown (built without VCS information, e.g. by go run)"
	default:
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += ", commit " + rev
		if at != "" {
			v += " (" + at + ")"
		}
		if dirty {
			v += ", with uncommitted changes"
		}
	}
	return v + ", " + bi.GoVersion
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print schedlab's version: module version, commit, uncommitted changes, Go release",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "schedlab %s\n", version())
			return err
		},
	}
}
