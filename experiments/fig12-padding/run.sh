#!/usr/bin/env bash
# Figure 12: the padding intervention. The counters are programmed in process and
# announced through the environment, under natural, held (padded) and sham layouts.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

target=$(workload compute)
counters=task-clock,page-faults,context-switches
obscheck --mode inprocess --counters "$counters" --runs 10 --seed 12 --journal "$out/journal.jsonl" \
  -- "$target" 200 > "$out/check.txt"
obscheck report "$out/journal.jsonl" --html "$out/report.html" --svg "$out/svg" > "$out/report.txt"
obscheck report "$out/journal.jsonl" --json > "$out/report.json"
obscheck report "$out/journal.jsonl" --markdown > "$out/report.md"
finish
