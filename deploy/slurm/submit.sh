#!/bin/bash
# Submits a sweep as a job array and its merge to run when every shard
# succeeded.   GRID=grid.json OUT=/shared/sweep deploy/slurm/submit.sh
set -euo pipefail
here=$(dirname "$0")
: "${GRID:?set GRID to the grid file}" "${OUT:?set OUT to the shared result directory}"
mkdir -p "$OUT"
array=$(sbatch --parsable --export=ALL "$here/sweep.sbatch")
sbatch --dependency=afterok:"$array" --export=ALL "$here/merge.sbatch"
