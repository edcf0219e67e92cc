#!/usr/bin/env bash
# Figures 2 and 3: the metric against the number of counters programmed, in process
# (the paper's PAPI set-up: the list travels in the target's environment), one curve
# per layout. The simulated PMU counts exactly, so any movement is the program's own.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

layout_check l1d,instructions,branch-misses,cycles
obscheck report --verbose "$out/journal.jsonl" --html "$out/report.html" --svg "$out/svg" > "$out/report.txt"
obscheck report "$out/journal.jsonl" --json > "$out/report.json"
point "explained by layout" "$out/check.txt"
finish
