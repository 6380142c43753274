#!/bin/sh
# Real kernels in a VM beside the simulation of each one's closest policy:
# the seeds' uniprocessor make -j10 load (wakeup-latency-make-j10 --cpus 0)
# on Debian's packaged kernels, with START_DEBIT as shipped and (on CFS
# kernels) with NO_START_DEBIT, RUNS runs of DURATION each in one boot.
# Under TCG with icount guest time is counted in instructions, so the
# figures repeat whatever the machine's load; only the wall time grows.
# Usage: scripts/validate-vm.sh [OUTDIR]   (default validation-vm-out/);
# each comparison is OUTDIR/NAME.json and OUTDIR/NAME.md. Needs no root;
# fetches the kernels it lacks (schedlab kernels fetch).
set -eu
out=${1:-validation-vm-out}
mkdir -p "$out"
bin=$out/schedlab
go build -o "$bin" ./cmd/schedlab
runs=${RUNS:-3}
dur=${DURATION:-10s}
kernels=${KERNELS:-debian-5.10 debian-6.1 debian-6.12 debian-unstable}
one() {
	tag=$1; shift
	echo "== $tag" >&2
	"$bin" validate "$@" --runs "$runs" --duration "$dur" --json --markdown "$out/$tag.md" > "$out/$tag.json" || echo "$tag failed" >&2
}
for k in $kernels; do
	"$bin" kernels fetch --missing "$k" >&2
	one "$k-make-j10-cpu0" wakeup-latency-make-j10 --cpus 0 --kernel "$k"
	case $("$bin" kernels list | awk -v k="$k" '$1 == k { print $2 }') in
	CFS) one "$k-make-j10-cpu0-no-start-debit" wakeup-latency-make-j10 --cpus 0 --kernel "$k" --features NO_START_DEBIT ;;
	esac
done
