#!/usr/bin/env bash
# Figures 2 and 3: the metric against the number of counters programmed, in process
# (the paper's PAPI set-up), one curve per layout.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

target=$(workload compute)
backend=()
runs=10
if can_count cycles && can_count instructions; then
  counters=cycles,instructions,l1d,l1i,task-clock   # the paper's kind of list
elif has_option --backend; then
  counters=instructions,l1d,llc,cycles              # modelled by cachegrind (labelled so)
  backend=(--backend sim)
  runs=2                                            # exact counts: one block decides, one confirms
else
  counters=task-clock,page-faults,context-switches,cpu-migrations  # software events only
fi
echo "counters: $counters ${backend[*]}" > "$out/setup.txt"
obscheck "${backend[@]}" --mode inprocess --counters "$counters" --runs "$runs" --seed 2 \
  --journal "$out/journal.jsonl" -- "$target" 300 > "$out/check.txt"
obscheck report "$out/journal.jsonl" --html "$out/report.html" --svg "$out/svg" > "$out/report.txt"
obscheck report "$out/journal.jsonl" --json > "$out/report.json"
finish
