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

finish() {
  echo "$(basename "$fig_dir"): done in $((SECONDS - started)) s; reports in $out" >&2
}
