# Sourced by every experiments/<figure>/run.sh: finds the driver, prepares a private
# working directory, builds workloads that are not built yet, times the experiment, and
# at the end copies the results into the output directory.
#   OBSCHECK  the driver (default: ../../build/obscheck from the figure's folder, else
#             the obscheck on PATH, as after an install)
#   OUT       where the reports go (default: <figure>/out; set it when the checkout or
#             the installed lab is read-only)
#
# A student's files are never lost: the experiment runs in a new private directory
# (mktemp -d under TMPDIR), and only when it succeeded are its results copied into OUT.
# Nothing in OUT is ever deleted. A file there is replaced only when an earlier run of
# the lab wrote it (the list is OUT/.obscheck-lab); when the results would replace
# anything else, nothing is copied and the run says which files are in the way.
# shellcheck shell=bash
fig_dir=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
fig=$(basename "$fig_dir")
root=$(cd "$fig_dir/../.." && pwd)

lab_fail() {
  echo "$fig: $*" >&2
  exit 2
}

if [ -z "${OBSCHECK:-}" ]; then
  if [ -x "$root/build/obscheck" ]; then
    OBSCHECK=$root/build/obscheck
  elif command -v obscheck >/dev/null 2>&1; then
    OBSCHECK=$(command -v obscheck)
  else
    lab_fail "no obscheck at $root/build/obscheck nor on PATH; build it (tools/bootstrap build) or set OBSCHECK=/path/to/obscheck"
  fi
fi
[ -x "$OBSCHECK" ] || lab_fail "OBSCHECK=$OBSCHECK is not an executable file; build obscheck (tools/bootstrap build) or set OBSCHECK"
OBSCHECK=$(cd "$(dirname "$OBSCHECK")" && pwd)/$(basename "$OBSCHECK")

# The output directory: made if missing, writable, the user's own and writable by no one
# else (another user could otherwise swap a result for a link), or the run stops before
# it starts.
dest=${OUT:-$fig_dir/out}
dest_made=0
lab_set_out="set OUT to a directory of yours, e.g. OUT=\$HOME/obscheck-lab/$fig"
if [ ! -d "$dest" ]; then
  if mkdir -p -- "$dest" 2>/dev/null; then dest_made=1; else
    lab_fail "cannot create $dest (a read-only checkout or install?); $lab_set_out"
  fi
fi
if [ ! -w "$dest" ] || [ ! -x "$dest" ]; then
  lab_fail "cannot write into $dest (a read-only checkout or install?); $lab_set_out"
fi
dest=$(cd "$dest" && pwd)
if [ "$(stat -c %u -- "$dest")" != "$(id -u)" ] || [ -n "$(find "$dest" -maxdepth 0 -perm /022)" ]; then
  lab_fail "$dest is another user's or writable by others; $lab_set_out"
fi

# The private working directory: the results are made in work/out (the experiment's
# current directory, so reports name their files relative to it, as they lie in OUT
# afterwards), workloads compiled here go to work/bin. Removed on every exit.
work=$(mktemp -d "${TMPDIR:-/tmp}/obscheck-lab.XXXXXX") || lab_fail "cannot create a working directory in ${TMPDIR:-/tmp}; set TMPDIR"
lab_cleanup() {
  rm -rf -- "$work"
  [ "$dest_made" -eq 0 ] || rmdir -- "$dest" 2>/dev/null || true
}
trap lab_cleanup EXIT
# A signal ends the driver first (it closes its journal on TERM), then the script.
lab_child=""
lab_signal() {
  if [ -n "$lab_child" ]; then
    kill -TERM "$lab_child" 2>/dev/null || true
    wait "$lab_child" 2>/dev/null || true
  fi
  exit "$1"
}
trap 'lab_signal 130' INT
trap 'lab_signal 143' TERM
trap 'lab_signal 129' HUP
mkdir "$work/out" "$work/bin"
cd "$work/out" || exit 2
out=.
# The workloads built beside the driver: in a build tree, or in libexec after an install.
built_workloads=$(dirname "$OBSCHECK")/experiments/workloads
[ -d "$built_workloads" ] || built_workloads=$(dirname "$OBSCHECK")/../libexec/obscheck
started=$SECONDS

# workload NAME [CFLAGS...]: the built workload beside the driver, else compiled into
# the working directory.
workload() {
  local name=$1
  shift
  if [ $# -eq 0 ] && [ -x "$built_workloads/$name" ]; then
    echo "$built_workloads/$name"
    return
  fi
  local exe="$work/bin/$name${1:+-${1#-}}"
  cc -O2 "$@" -o "$exe" "$root/experiments/workloads/$name.c"
  echo "$exe"
}

# lab_run CMD...: runs CMD (which must exec the driver, so that it is CMD's pid) in the
# background and waits for it, so that a signal to this script reaches it at once
# (lab_signal); returns its exit status.
lab_run() {
  local rc=0
  "$@" &
  lab_child=$!
  wait "$lab_child" || rc=$?
  lab_child=""
  return $rc
}

# Exit code 1 is "findings" (a metric moved): an answer, not a failure.
obscheck() {
  local rc=0
  lab_run "$OBSCHECK" "$@" || rc=$?
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

lab_kind() {
  if [ -L "$1" ]; then echo link; elif [ -d "$1" ]; then echo directory; else echo file; fi
}

# publish: the results into OUT. Each result may replace only what the lab wrote there
# before (listed in OUT/.obscheck-lab, and still a plain file or directory, not a link);
# if any other file is in the way, nothing is copied and the results stay in the
# working directory, which is then kept.
publish() {
  local manifest=$dest/.obscheck-lab name blocked=()
  local -a names
  mapfile -t names < <(find . -mindepth 1 | sed 's|^\./||' | sort)
  for name in "${names[@]}"; do
    [ -e "$dest/$name" ] || [ -L "$dest/$name" ] || continue
    if [ "$(lab_kind "$dest/$name")" != "$(lab_kind "$name")" ] ||
       ! { [ -f "$manifest" ] && grep -qxF -- "$name" "$manifest"; }; then
      blocked+=("$name")
    fi
  done
  if [ ${#blocked[@]} -gt 0 ]; then
    trap - EXIT
    echo "$fig: $dest holds files this lab did not write, which its results would replace:" >&2
    printf '  %s\n' "${blocked[@]}" >&2
    echo "$fig: nothing was copied; the results are in $work/out (choose another OUT, or move those files)" >&2
    exit 3
  fi
  cp -R -- . "$dest/"
  { [ -f "$manifest" ] && cat -- "$manifest"; printf '%s\n' "${names[@]}"; } | sort -u > "$work/manifest"
  cp -- "$work/manifest" "$manifest"
}

finish() {
  publish
  echo "$fig: done in $((SECONDS - started)) s; reports in $dest" >&2
}
