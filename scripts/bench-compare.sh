#!/usr/bin/env bash
# Measures the goals of issue 16 for this tree and for BASE_REV in one run,
# alternating the two, so that both see the same machine (a shared one is
# loaded differently from minute to minute):
#
#   scripts/bench-compare.sh [BASE_REV] [ROUNDS]
#
# - CPU time (user+sys, every thread: GC included) per event of the busy
#   engine and of wakeup-latency-calibrated-make-j10 on 1 CPU with analysis, beside the
#   two references of the same test binary's run: a typed, allocation-free
#   heap push+pop (the floor) and container/heap's;
# - with valgrind, cachegrind's instruction count per event (independent of
#   the load; scripts/cg-per-event.sh: two run lengths, the difference
#   divided by the events between, the garbage collector's work included
#   unless GOGC=off);
# - peak RSS and CPU time of `schedlab run` for 3,000 s of calibrated-make-j10 and of
#   wakeup-latency-calibrated-make-j10;
# - sweep throughput: runs per CPU-second of wakeup-latency-calibrated-make-j10 × 60 s
#   (BenchmarkSweepWorkers, 1 and 2 workers).
#
# The base is measured with this tree's benchmark files (sim/bench_test.go,
# sweep/bench_test.go), which use only the packages' exported API. Prints
# medians over ROUNDS (default 3); the cachegrind counts, which barely
# vary, over VALGRIND_ROUNDS (default ROUNDS; 0 skips them).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
rounds=${2:-3}
vrounds=${VALGRIND_ROUNDS:-$rounds}
tmp=$(mktemp -d -t schedlab-bench.XXXXXX)
trap 'git worktree remove --force "$tmp/base-src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base-src" "$base" >/dev/null 2>&1
cp sim/bench_test.go "$tmp/base-src/sim/"
cp sweep/bench_test.go "$tmp/base-src/sweep/"
for v in base new; do
  src=.
  [ $v = base ] && src=$tmp/base-src
  (cd "$src" && go test -c -o "$tmp/sim-$v" ./sim && go test -c -o "$tmp/sweep-$v" ./sweep && go build -o "$tmp/cli-$v" ./cmd/schedlab)
done

out=$tmp/results
: >"$out"
metric() { # NAME UNIT: value of UNIT on the Bench line of NAME, from stdin
  awk -v n="$1" -v u="$2" 'index($1, n) == 1 { for (i = 2; i <= NF; i++) if ($i == u) print $(i - 1) }'
}
for r in $(seq "$rounds"); do
  for v in base new; do
    res=$("$tmp/sim-$v" -test.run '^$' -test.bench 'Engine$|TypedHeap|ContainerHeap|Scenario/wakeup-latency-calibrated-make-j10/cpus=1$' -test.benchtime 30000x)
    echo "$v typed-heap $(metric BenchmarkTypedHeap cpu-ns/event <<<"$res")" >>"$out"
    echo "$v container-heap $(metric BenchmarkContainerHeap cpu-ns/event <<<"$res")" >>"$out"
    echo "$v engine $(metric 'BenchmarkEngine-' cpu-ns/event <<<"$res")" >>"$out"
    echo "$v wl-make-j10 $(metric BenchmarkScenario/wakeup-latency-calibrated-make-j10 cpu-ns/event <<<"$res")" >>"$out"
    res=$("$tmp/sweep-$v" -test.run '^$' -test.bench . -test.benchtime 1x)
    echo "$v sweep-1-worker $(metric BenchmarkSweepWorkers/workers=1 runs/cpu-s <<<"$res")" >>"$out"
    echo "$v sweep-2-workers $(metric BenchmarkSweepWorkers/workers=2 runs/cpu-s <<<"$res")" >>"$out"
    echo "$v sweep-2-workers-wall $(metric BenchmarkSweepWorkers/workers=2 runs/s <<<"$res")" >>"$out"
    echo "$v sweep-1-worker-wall $(metric BenchmarkSweepWorkers/workers=1 runs/s <<<"$res")" >>"$out"
    for s in calibrated-make-j10 wakeup-latency-calibrated-make-j10; do
      t=$( { /usr/bin/time -f '%M %U %S' "$tmp/cli-$v" run $s --duration 3000s >/dev/null; } 2>&1 | tail -1)
      read -r kb us ss <<<"$t"
      echo "$v rss-MB-$s $(awk -v k="$kb" 'BEGIN { print k / 1024 }')" >>"$out"
      echo "$v cpu-s-$s $(awk -v u="$us" -v s="$ss" 'BEGIN { print u + s }')" >>"$out"
    done
  done
done

if command -v valgrind >/dev/null; then
  for r in $(seq "$vrounds"); do for v in base new; do
    for b in 'Engine$:2000:6000' 'Scenario/wakeup-latency-calibrated-make-j10/cpus=1$:20000:60000' 'TypedHeap:200000:600000'; do
      IFS=: read -r name n1 n2 <<<"$b"
      read -r ir _ < <(scripts/cg-per-event.sh "$tmp/sim-$v" "$name" "$n1" "$n2")
      echo "$v instructions/event-${name%%[\$:]*} $(printf '%.0f' "$ir")" >>"$out"
    done
  done; done
fi

python3 - "$out" <<'PY'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[2]:
        vals.setdefault((f[1], f[0]), []).append(float(f[2]))
names = []
for (n, _) in vals:
    if n not in names:
        names.append(n)
print(f"{'figure':38s} {'base':>10s} {'new':>10s} {'new/base':>9s}")
for n in names:
    b = statistics.median(vals.get((n, 'base'), [float('nan')]))
    w = statistics.median(vals.get((n, 'new'), [float('nan')]))
    print(f"{n:38s} {b:10.4g} {w:10.4g} {w / b if b else float('nan'):9.3f}")
PY
