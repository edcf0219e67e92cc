#!/usr/bin/env bash
# Figures 6 and 7: measurement bias from the environment's size. The same binary,
# the same input, the environment grown in steps; one mean per context.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

target=$(workload compute)
args=(200)
backend=()
runs=5
counters=task-clock
# 2..8192 bytes in 512-byte steps: 17 contexts (the paper: 2..8192 in 390s, 22 contexts).
sizes=2:8192:512
if can_count cycles; then counters=cycles,task-clock
elif has_option --backend bias; then
  # The simulated PMU: the conflict workload in a 4 KiB direct-mapped L1d, whose 64
  # sets the environment sweeps through in 64-byte steps; counts are exact, so a
  # second run per context only confirms them.
  target=$(workload conflict); args=(50000)
  backend=(--backend sim --sim-cache D1=4096,1,64); runs=2
  counters=l1d,cycles; sizes=0:4032:64
fi
obscheck bias "${backend[@]}" --env-sizes "$sizes" --counters "$counters" --runs "$runs" --seed 6 \
  --html "$out/report.html" --svg "$out/figures" -- "$target" "${args[@]}" > "$out/report.txt"
obscheck bias "${backend[@]}" --env-sizes "$sizes" --counters "$counters" --runs "$runs" --seed 6 --csv \
  -- "$target" "${args[@]}" > "$out/runs.csv"
finish
