#!/usr/bin/env bash
# Figures 8 and 9: measurement bias from the link order. The same five objects linked
# in eight orders (the given one plus seeded permutations); one mean per order.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

src=$root/experiments/workloads/linkorder
objects=()
for o in main a b c d; do
  cc -O2 -c -o "$out/$o.o" "$src/$o.c"
  objects+=("$out/$o.o")
done
list=$(IFS=,; echo "${objects[*]}")
backend=()
runs=5
counters=task-clock
if can_count cycles; then counters=cycles,task-clock
elif has_option --backend bias; then counters=cycles,l1i; backend=(--backend sim); runs=2  # exact counts: a second run only confirms
fi
obscheck bias "${backend[@]}" --link "cc {objects} -o {out}" --objects "$list" --link-orders 8 \
  --counters "$counters" --runs "$runs" --seed 8 --html "$out/report.html" --svg "$out/figures" \
  -- "{out}" 200000 > "$out/report.txt"
obscheck bias "${backend[@]}" --link "cc {objects} -o {out}" --objects "$list" --link-orders 8 \
  --counters "$counters" --runs "$runs" --seed 8 --csv -- "{out}" 200000 > "$out/runs.csv"
finish
