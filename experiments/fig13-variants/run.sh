#!/usr/bin/env bash
# Figure 13: is -O3 faster than -O2? The two builds compared in many environment
# contexts instead of one, with the A/A control (O2 against itself) first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

o2=$(workload compute -O2)
o3=$(workload compute -O3)
counters=task-clock
if can_count cycles; then counters=cycles,task-clock; fi
obscheck compare --verbose --aa --env-sizes 2:4096:256 --counters "$counters" --runs 3 --seed 13 \
  --export-json "$out/report.json" --export-csv "$out/runs.csv" --html "$out/report.html" --svg "$out/figures" \
  -- "$o2" 200 ::: "$o3" 200 > "$out/report.txt"
point "verdict:" "$out/report.txt"
finish
