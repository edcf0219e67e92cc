# Sourced by every experiments/<figure>/run.sh: finds the driver, prepares out/,
# builds workloads that are not built yet, and times the experiment.
#   OBSCHECK  the driver (default: ../../build/obscheck from the figure's folder)
#   OUT       where the reports go (default: <figure>/out), emptied first
# shellcheck shell=bash
fig_dir=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
root=$(cd "$fig_dir/../.." && pwd)
OBSCHECK=${OBSCHECK:-$root/build/obscheck}
if [ ! -x "$OBSCHECK" ]; then
  echo "$(basename "$fig_dir"): no obscheck at $OBSCHECK; build it (tools/bootstrap build) or set OBSCHECK" >&2
  exit 2
fi
out=${OUT:-$fig_dir/out}
rm -rf "$out"
mkdir -p "$out"
built_workloads=$(dirname "$OBSCHECK")/experiments/workloads
started=$SECONDS

# workload NAME [CFLAGS...]: the built workload beside the driver, else compiled into out/.
workload() {
  local name=$1
  shift
  if [ $# -eq 0 ] && [ -x "$built_workloads/$name" ]; then
    echo "$built_workloads/$name"
    return
  fi
  local exe="$out/$name${1:+-${1#-}}"
  cc -O2 "$@" -o "$exe" "$root/experiments/workloads/$name.c"
  echo "$exe"
}

# Exit code 1 is "findings" (a metric moved): an answer, not a failure.
obscheck() {
  local rc=0
  "$OBSCHECK" "$@" || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 1 ] || { echo "obscheck $* failed with exit code $rc" >&2; return $rc; }
}

# can_count EVENT: this host counts EVENT (exit 0) or not.
can_count() { "$OBSCHECK" measure --counters "$1" -r 1 -- /bin/true >/dev/null 2>&1; }

# has_option OPT [COMMAND]: this driver knows OPT (the simulated backend may not be built in).
has_option() { "$OBSCHECK" ${2:+$2} --help 2>/dev/null | grep -q -- "$1"; }

# The one-sentence point of the experiment, as the tool worded it: the first line of
# FILE that matches PATTERN, with its wrapped continuation lines joined.
point() {
  local pattern=$1 file=$2 text
  text=$(awk -v pat="$pattern" '
    found && /^      / { sub(/^ +/, " "); line = line $0; next }
    found { exit }
    $0 ~ pat { found = 1; line = $0; sub(/^ +/, "", line) }
    END { print line }' "$file")
  [ -n "$text" ] || text="no line matches '$pattern' in $(basename "$file"): see it for what this host showed"
  echo "point: $text"
}

# The environment every layout experiment pads to, so that what the target sees does
# not depend on the student's own environment: 8 KiB, or the next 4 KiB past a larger one.
lab_env_pad() {
  local have
  have=$(env | wc -c)
  if [ "$have" -lt 7168 ]; then echo 8192; else echo $(((have / 4096 + 2) * 4096)); fi
}

# layout_check COUNTERS: the check in process on the simulated PMU, where the
# counter list travels in the target's environment (the paper's PAPI set-up) and the
# `layout` workload's misses depend on where its stack lands. The environment is padded
# to lab_env_pad; where that pad happens to leave the stack's cache lines where they
# were at every dose (the list's bytes then move nothing), the pad is moved 16 bytes at
# a time, at most three times, and the pad used is said.
layout_check() {
  local counters=$1 pad target tries=0
  pad=$(lab_env_pad)
  target=$(workload layout)
  while :; do
    obscheck --backend sim --sim-cache D1=2048,1,32 --mode inprocess --counters "$counters" \
      --env-pad "$pad" --seed 12 --journal "$out/journal.jsonl" -- "$target" 2000 1024 > "$out/check.txt"
    grep -q "explained by layout" "$out/check.txt" && break
    tries=$((tries + 1))
    [ "$tries" -le 3 ] || break
    rm -f "$out/journal.jsonl"
    pad=$((pad + 16))
  done
  echo "environment padded to $pad bytes (simulated D1=2048,1,32; layout 2000 1024)" > "$out/setup.txt"
}

finish() {
  echo "$(basename "$fig_dir"): done in $((SECONDS - started)) s; reports in $out" >&2
}
