#!/usr/bin/env bash
# Measures issue 16's scaling goals for this tree and for BASE_REV in one
# run, alternating the two (a shared machine is loaded differently from
# minute to minute):
#
#   scripts/bench-scale.sh [BASE_REV] [ROUNDS] [BENCHTIME]
#
# CPU ns per event (user+sys, GC included) of sim's BenchmarkTasks (10 and
# 10,000 tasks on 1 and 256 CPUs), BenchmarkCPUs (16 to 1,024 CPUs at 40
# tasks each) and BenchmarkHuge's 100,000 tasks on 1,024 CPUs, beside the
# allocation-free typed heap's push+pop measured by the same binary in the
# same round, and the ratios the goals name. Medians over ROUNDS (default
# 3), and the goals' ratios of the minimums; BENCHTIME ops (default
# 100000x, one op is 1 ms of a busy CPU's time). The base is measured with this tree's sim/bench_test.go; a base
# whose input limit refuses a size skips it. The million-task runs take a
# minute and 1.2 GB each: `go test ./sim -run '^$' -bench Huge -benchtime 20000x`.
#
# With VALGRIND=1, also cachegrind's instructions, L1 data misses and
# misses of a 6 MiB last level per event (scripts/cg-per-event.sh,
# GOGC=off, the cache simulated) of the
# goals' six sizes in both trees, which the load does not move (about 15
# minutes: 1,024 CPUs' warm-up is long under valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
rounds=${2:-3}
bt=${3:-100000x}
tmp=$(mktemp -d -t schedlab-scale.XXXXXX)
trap 'git worktree remove --force "$tmp/base-src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base-src" "$base" >/dev/null 2>&1
cp sim/bench_test.go "$tmp/base-src/sim/"
go test -c -o "$tmp/sim-new" ./sim
(cd "$tmp/base-src" && go test -c -o "$tmp/sim-base" ./sim)

out=$tmp/results
: >"$out"
for r in $(seq "$rounds"); do
  # Each round swaps which tree goes first: the minutes drift, and a
  # fixed order put the same one in the quieter half of every round.
  order="base new"
  if [ $((r % 2)) = 0 ]; then order="new base"; fi
  for v in $order; do
    "$tmp/sim-$v" -test.run '^$' -test.bench 'TypedHeap' -test.benchtime 3000000x |
      awk -v v="$v" '$1 ~ /^BenchmarkTypedHeap/ { for (i = 2; i <= NF; i++) if ($i == "cpu-ns/event") print v, "typed-heap", $(i - 1) }' >>"$out"
    { "$tmp/sim-$v" -test.run '^$' -test.bench 'Tasks$|CPUs$' -test.benchtime "$bt"
      "$tmp/sim-$v" -test.run '^$' -test.bench 'Huge/^cpus=1024$/^tasks=100000$' -test.benchtime "$bt"; } |
      awk -v v="$v" '$1 ~ /^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); sub(/^Benchmark/, "", n)
        for (i = 2; i <= NF; i++) { if ($i == "cpu-ns/event") print v, n, $(i - 1); if ($i == "allocs/event") print v, n "/allocs", $(i - 1) } }' >>"$out"
  done
done

if [ "${VALGRIND:-0}" = 1 ]; then
  for b in 'Tasks/cpus=1/tasks=10$:10000:30000' 'Tasks/cpus=1/tasks=10000$:10000:30000' \
    'Tasks/cpus=256/tasks=10$:10000:30000' 'Tasks/cpus=256/tasks=10000$:10000:30000' \
    'CPUs/cpus=16/:10000:30000' 'CPUs/cpus=1024/:5000:15000'; do
    IFS=: read -r name n1 n2 <<<"$b"
    n=$(sed 's/[$]//g; s/\/$//' <<<"$name")
    for v in base new; do
      read -r ir d1 ll < <(GOGC=off CACHE_SIM=yes scripts/cg-per-event.sh "$tmp/sim-$v" "$name" "$n1" "$n2")
      echo "$v $n/instructions $ir" >>"$out"
      echo "$v $n/D1-misses $d1" >>"$out"
      echo "$v $n/6MiB-LL-misses $ll" >>"$out"
    done
  done
fi

python3 - "$out" <<'PY'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3:
        vals.setdefault((f[1], f[0]), []).append(float(f[2]))
names = []
for (n, _) in vals:
    if n not in names:
        names.append(n)
med = lambda n, v: statistics.median(vals[(n, v)]) if (n, v) in vals else float('nan')
print(f"{'CPU ns/event unless named (median)':40s} {'base':>9s} {'new':>9s} {'×heap':>7s} {'new/base':>8s}")
for n in names:
    b, w = med(n, 'base'), med(n, 'new')
    h = w / med('typed-heap', 'new') if '/' not in n.split('=')[-1] else float('nan')
    print(f"{n:40s} {b:9.4g} {w:9.4g} {h:7.1f} {w / b if b else float('nan'):8.3f}")
print()
print("goal ratios (each round's ratio, then the median):")
for a, b, goal in [("Tasks/cpus=1/tasks=10000", "Tasks/cpus=1/tasks=10", 1.5),
                   ("Tasks/cpus=256/tasks=10000", "Tasks/cpus=256/tasks=10", 1.5),
                   ("CPUs/cpus=1024/tasks=40960", "CPUs/cpus=16/tasks=640", 1.3)]:
    for v in ('base', 'new'):
        if (a, v) not in vals or (b, v) not in vals:
            continue
        rs = [x / y for x, y in zip(vals[(a, v)], vals[(b, v)])]
        # The minimums' ratio too: on a shared machine a round's figure
        # is its own cost plus whatever the neighbours took, never less.
        mr = min(vals[(a, v)]) / min(vals[(b, v)])
        print(f"  {v:4s} {a} / {b}: {' '.join(f'{r:.2f}' for r in rs)}; median {statistics.median(rs):.2f}, of the minimums {mr:.2f} (goal ≤ {goal})")
        ia, ib = a.replace('tasks=40960', '').replace('tasks=640', '') + '/instructions', b.replace('tasks=40960', '').replace('tasks=640', '') + '/instructions'
        ia, ib = ia.replace('//', '/'), ib.replace('//', '/')
        if (ia, v) in vals and (ib, v) in vals:
            print(f"       instructions: {vals[(ia, v)][0] / vals[(ib, v)][0]:.3f}")
PY
