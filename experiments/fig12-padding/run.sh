#!/usr/bin/env bash
# Figure 12: the padding intervention. The counters are announced to the target through
# its environment (as the paper's PAPI set-up does) under natural, held (padded) and
# sham layouts; the simulated PMU counts the `layout` workload's cache misses exactly.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

layout_check l1d,instructions,branch-misses,cycles
obscheck report --verbose "$out/journal.jsonl" --html "$out/report.html" --svg "$out/svg" > "$out/report.txt"
obscheck report "$out/journal.jsonl" --json > "$out/report.json"
obscheck report "$out/journal.jsonl" --markdown > "$out/report.md"
point "explained by layout" "$out/check.txt"
finish
