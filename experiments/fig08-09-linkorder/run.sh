#!/usr/bin/env bash
# Figures 8 and 9: measurement bias from the link order. The same five objects linked
# in eight orders (the given one plus seeded permutations); one value per order. The
# simulated PMU with a 256-byte direct-mapped L1i, smaller than the program's hot code,
# so where the linker puts each function decides which of them evict each other.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

src=$root/experiments/workloads/linkorder
objects=()
for o in main a b c d; do
  cc -O2 -c -o "$work/bin/$o.o" "$src/$o.c"
  objects+=("$work/bin/$o.o")
done
list=$(IFS=,; echo "${objects[*]}")
obscheck bias --verbose --backend sim --sim-cache I1=256,1,64 --link "cc {objects} -o {out}" --objects "$list" \
  --link-orders 8 --counters l1i,cycles --seed 8 --export-json "$out/report.json" --export-csv "$out/runs.csv" \
  --html "$out/report.html" --svg "$out/figures" -- "{out}" 20000 > "$out/report.txt"
point "measurement bias|no measurement bias" "$out/report.txt"
finish
