//go:build !cgo

package host

import "context"

// HaveRunner says whether this build can run workloads on the host: the
// runner's threads are C (worker.c), so a build without cgo has none.
const HaveRunner = false

// Run refuses: this build has no host runner.
func Run(ctx context.Context, o Options) (*Recording, error) {
	return nil, &PreflightError{Msg: noRunner}
}

// Probe needs the C half too.
func Probe(cpu int) (*Costs, error) { return nil, &UnsupportedError{Msg: noRunner} }
