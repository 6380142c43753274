#!/usr/bin/env bash
# Compares what two builds of schedlab print, outside the "engine" cost
# fields: reproduce --json, and run --json and analyze --json (of run's own
# trace) for every built-in scenario under every policy on 1 and 4 CPUs.
# A restructuring must leave them byte-identical.
#
#   scripts/compare-outputs.sh [BASE_REV] [DURATION]
#
# BASE_REV defaults to HEAD (the committed tree against the work tree);
# DURATION of each run defaults to 2s. Exits 1 and lists the files that
# differ when any does. Needs jq. With KEEP=DIR the two sets of outputs
# are left in DIR/out-base and DIR/out-new, for a closer look
# (scripts/compare-percentiles.py reads them). ALL_POLICIES=1 adds the
# policies that share another's code (cfs-5.10 and cfs-6.1 run 2.6.36's
# CFS with their own pick, eevdf-7.2 runs 6.18's EEVDF): about half as
# long again, for changes to the classes.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD}
dur=${2:-2s}
policies="cfs-2.6.24 cfs-2.6.35 cfs-2.6.36 eevdf-6.6 eevdf-6.12 eevdf-6.18"
if [ -n "${ALL_POLICIES:-}" ]; then
  policies="$policies cfs-5.10 cfs-6.1 eevdf-7.2"
fi
tmp=$(mktemp -d -t schedlab-compare.XXXXXX)
trap 'git worktree remove --force "$tmp/base-src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

git worktree add --detach "$tmp/base-src" "$base" >/dev/null 2>&1
(cd "$tmp/base-src" && go build -o "$tmp/base" ./cmd/schedlab)
go build -o "$tmp/new" ./cmd/schedlab
scenarios=$("$tmp/new" scenarios | awk 'NF == 0 { exit } { print $1 }')

# strip removes the engine's cost figures, wherever they sit.
strip() { jq -S 'walk(if type == "object" then del(.engine) else . end)'; }

outputs() { # BIN DIR
  local bin=$1 out=$2
  mkdir -p "$out"
  "$bin" reproduce --json | strip >"$out/reproduce.json"
  for s in $scenarios; do
    for p in $policies; do
      for c in 1 4; do
        local k="$s.$p.$c"
        if "$bin" run "$s" --policy "$p" --cpus "$c" --duration "$dur" --json --trace "$out/$k.trace" 2>"$out/$k.err" | strip >"$out/$k.run.json"; then
          "$bin" analyze "$out/$k.trace" --json 2>>"$out/$k.err" | strip >"$out/$k.analyze.json" || true
        fi
        rm -f "$out/$k.trace"
      done
    done
  done
}

outputs "$tmp/base" "$tmp/out-base"
outputs "$tmp/new" "$tmp/out-new"
n=$(ls "$tmp/out-new" | wc -l)
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP" && rm -rf "$KEEP/out-base" "$KEEP/out-new" && cp -r "$tmp/out-base" "$tmp/out-new" "$KEEP/"
fi
if diff -rq "$tmp/out-base" "$tmp/out-new"; then
  echo "compare-outputs: all $n outputs identical to $base's (engine fields aside)"
else
  echo "compare-outputs: outputs differ from $base's (above)" >&2
  exit 1
fi
