#!/usr/bin/env bash
# Figures 4 and 5: software probes as the dose. Uprobes on the hot and the cold
# function of `calls`; the hot one fires 100,000 times per run, the cold one once.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

target=$(workload calls)
obscheck --probes obs_once,obs_hot --counters task-clock,page-faults --runs 10 --seed 4 \
  --journal "$out/journal.jsonl" -- "$target" 100000 > "$out/check.txt"
obscheck report "$out/journal.jsonl" --html "$out/report.html" --svg "$out/svg" > "$out/report.txt"
obscheck report "$out/journal.jsonl" --json > "$out/report.json"
finish
