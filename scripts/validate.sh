#!/bin/sh
# Regenerates the tables of VALIDATION.md: every built-in scenario validated
# on this host (root, tracefs), 5 runs of 10 s on each side, plus the seeds'
# uniprocessor setting (--cpus 0) for the wakeup-latency scenarios.
# Usage: scripts/validate.sh [OUTDIR]   (default validation-out/); each
# comparison is OUTDIR/NAME.json and OUTDIR/NAME.md (the Markdown table).
# Run it on a quiet host: other work competes with the workload
# (docs/host.md §Noise).
set -eu
out=${1:-validation-out}
mkdir -p "$out"
bin=$out/schedlab
go build -o "$bin" ./cmd/schedlab
runs=${RUNS:-5}
dur=${DURATION:-10s}
one() {
	tag=$1; shift
	echo "== $tag" >&2
	"$bin" validate "$@" --runs "$runs" --duration "$dur" --rt-app --json --markdown "$out/$tag.md" > "$out/$tag.json"
}
for s in two-hogs sleeper-vs-hog sigev-thread wakeup-latency fair-user-sched make-j10 wakeup-latency-make-j10 desktop-make-j10; do
	one "$s" "$s"
done
one wakeup-latency-cpu0 wakeup-latency --cpus 0
one wakeup-latency-make-j10-cpu0 wakeup-latency-make-j10 --cpus 0
# A probe, not the profile: the host preempts on fork as 6.18.0-.2 did
# (VALIDATION.md), which kernel_sublevel=2 models.
echo "== sigev-thread kernel_sublevel=2" >&2
"$bin" validate sigev-thread --runs "$runs" --duration "$dur" --set kernel_sublevel=2 --json --markdown "$out/sigev-thread-sublevel2.md" > "$out/sigev-thread-sublevel2.json"
uname -r > "$out/kernel.txt"
