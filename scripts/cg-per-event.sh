#!/usr/bin/env bash
# Cachegrind's counts per event of one benchmark of a Go test binary:
#
#   scripts/cg-per-event.sh TEST_BINARY BENCH_REGEXP N1 N2
#
# runs the benchmark at -benchtime N1x and N2x and prints the difference
# of the two runs' counts over the events between (events/op from the
# benchmark's own line), so that the start and the warm-up drop out:
# "instructions/event D1-misses/event" (the misses "-" unless
# CACHE_SIM=yes, which makes it several times slower). It runs with
# GOMAXPROCS=1: with two Ps the runtime's idle-priority mark workers ran
# on the idle one, and the same run's count varied by up to 3× (0.03 %
# with one). GOGC is passed through: with the collector on, whether a
# cycle falls between the two lengths moves the figure by hundreds of
# instructions; GOGC=off gives a cost per event.
set -euo pipefail
bin=$1 name=$2 n1=$3 n2=$4
cs=${CACHE_SIM:-no}
ll=${LL:-6291456,12,64}
run() {
  GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim="$cs" --LL="$ll" --cachegrind-out-file=/dev/null \
    "$bin" -test.run '^$' -test.bench "$name" -test.benchtime "${1}x" 2>&1
}
o1=$(run "$n1")
o2=$(run "$n2")
count() { grep -E "== $1:" | head -1 | sed 's/.*: *//; s/ .*//' | tr -d ,; }
epo=$(awk '{ for (i = 2; i <= NF; i++) if ($i == "events/op") print $(i - 1) }' <<<"$o2" | head -1)
per() { awk -v a="$1" -v b="$2" -v n1="$n1" -v n2="$n2" -v e="${epo:-1}" 'BEGIN { printf "%.2f", (b - a) / ((n2 - n1) * e) }'; }
ir=$(per "$(count 'I *refs' <<<"$o1")" "$(count 'I *refs' <<<"$o2")")
d1=- lld=
if [ "$cs" = yes ]; then
  d1=$(per "$(count 'D1 *misses' <<<"$o1")" "$(count 'D1 *misses' <<<"$o2")")
  lld=" $(per "$(count 'LLd *misses' <<<"$o1")" "$(count 'LLd *misses' <<<"$o2")")"
fi
echo "$ir $d1$lld"
