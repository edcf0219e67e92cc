#!/usr/bin/env bash
# Figures 4 and 5: software probes as the dose, on the hot and the cold function of
# `calls`: the hot one fires 10,000 times per run, the cold one once. As root the
# probes are uprobes (what a dynamic-instrumentation tool inserts); without root they
# are hardware breakpoints on the same functions, which any user may set on their own
# program and which trap into the kernel on every hit just the same.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

target=$(workload calls)
probes=(--probes obs_once,obs_hot)
if ! "$OBSCHECK" measure --probes obs_once -r 1 -- "$target" 1 >/dev/null 2>&1; then
  probes=(--breakpoints obs_once,obs_hot)
fi
echo "observer: ${probes[*]}" > "$out/setup.txt"
# The cliff is decided within seconds: a time budget keeps the undecided small doses
# from running on.
obscheck "${probes[@]}" --counters task-clock,page-faults --time-budget 10 --seed 4 \
  --journal "$out/journal.jsonl" -- "$target" 10000 > "$out/check.txt"
obscheck report --verbose "$out/journal.jsonl" --html "$out/report.html" --svg "$out/svg" > "$out/report.txt"
obscheck report "$out/journal.jsonl" --json > "$out/report.json"
point "^  task-clock " "$out/check.txt"
finish
