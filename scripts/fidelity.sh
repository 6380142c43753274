#!/bin/sh
# Regenerates FIDELITY.md: the fidelity suite (schedlab fidelity) on
# Debian's 6.1, 7.2 (unstable), 5.10 and 6.12 kernels in VMs, one vCPU, 3
# runs of 4 s per case, beside the simulation of each kernel's policy.
#
#   scripts/fidelity.sh [DIR]     measure what DIR (default validation/fidelity)
#                                 lacks, then write FIDELITY.md
#   REPORT_ONLY=1 scripts/fidelity.sh   re-simulate DIR's kernel runs with
#                                 this tree's model and rewrite FIDELITY.md
#                                 (seconds: no VM boots)
#   KERNEL_THREADS=0 ...          leave the guest's kernel threads and the
#                                 launcher's heartbeat out of the simulation
#                                 (fidelity --kernel-threads=false)
#
# Measuring everything takes hours of wall time on a 2-core machine (a
# case is one boot and 3 runs under TCG); the kernel runs do not depend on
# the machine's load (icount), so an interrupted campaign resumes where it
# stopped. No root needed.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-validation/fidelity}
bin=$(mktemp -d -t schedlab-fidelity.XXXXXX)/schedlab
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/schedlab
kernels=${KERNELS:-debian-6.1,debian-unstable,debian-5.10,debian-6.12}
only=
if [ -n "${REPORT_ONLY:-}" ]; then
	only=--report-only
else
	for k in $(echo "$kernels" | tr , ' '); do "$bin" kernels fetch --missing "$k"; done
fi
body=$(mktemp -t schedlab-fidelity-body.XXXXXX)
kt=
if [ "${KERNEL_THREADS:-1}" = 0 ]; then kt=--kernel-threads=false; fi
"$bin" fidelity $only $kt --dir "$dir" --kernels "$kernels" --runs 3 --duration 4s --markdown "$body"
{
	sed -n '1,/^<!-- generated below -->$/p' FIDELITY.md
	cat "$body"
} > FIDELITY.md.new
mv FIDELITY.md.new FIDELITY.md
rm -f "$body"
