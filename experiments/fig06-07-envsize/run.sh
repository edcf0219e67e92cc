#!/usr/bin/env bash
# Figures 6 and 7: measurement bias from the environment's size. The same binary,
# the same input, the environment grown in steps; one mean per context.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

target=$(workload compute)
backend=()
counters=task-clock
if can_count cycles; then counters=cycles,task-clock
elif has_option --backend bias; then counters=cycles,l1d; backend=(--backend sim)
fi
# 2..8192 bytes in 512-byte steps: 17 contexts (the paper: 2..8192 in 390s, 22 contexts).
obscheck bias "${backend[@]}" --env-sizes 2:8192:512 --counters "$counters" --runs 5 --seed 6 \
  --html "$out/report.html" --svg "$out/figures" -- "$target" 200 > "$out/report.txt"
obscheck bias "${backend[@]}" --env-sizes 2:8192:512 --counters "$counters" --runs 5 --seed 6 --csv \
  -- "$target" 200 > "$out/runs.csv"
finish
