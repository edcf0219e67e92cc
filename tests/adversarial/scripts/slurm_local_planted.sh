#!/usr/bin/env bash
# tools/slurm-local, run as root, against a state directory the nobody user planted
# (marker file, pid files naming a root process, a record of "started" daemons with that
# process's true start time, a slurm.conf with a PluginDir of its own) and against the
# other ways of handing root a directory it should not trust. Every command must refuse
# before running a Slurm program, signal nothing and remove nothing; `down` on a
# directory of root's own must still leave a process alone that `up` did not start.
# Slurm itself is not needed: stand-ins for its programs on PATH record any call.
#   slurm_local_planted.sh SOURCE_DIR
# Prints "ok: ..." per case, "FAIL: ..." and exits 1 on a failure, or "SKIPPED: why".
set -euo pipefail
src=$1
slurm_local=$src/tools/slurm-local
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: planting as the nobody user needs root"; exit 0; }
command -v setpriv >/dev/null || { echo "SKIPPED: setpriv (util-linux) is not installed"; exit 0; }

work=$(mktemp -d)
victim=""
cleanup() {
  [ -z "$victim" ] || kill "$victim" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# Stand-ins for every program slurm-local may run: each leaves a mark in root's ran/.
fake=$work/bin
ran=$work/ran
mkdir "$fake" "$ran"
for c in sinfo scontrol squeue scancel sbatch slurmctld slurmd munged; do
  printf '#!/bin/sh\n: > %s/%s\n' "$ran" "$c" >"$fake/$c"
  chmod 755 "$fake/$c"
done

# The root process the planted pid files name.
sleep 421.5 &
victim=$!
start=$(awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[20] }' "/proc/$victim/stat")
[ -n "$start" ] || fail "cannot read the victim's start time"

shared=$work/shared
mkdir -m 1777 "$shared"
chmod 1777 "$shared"
chmod 755 "$work"
plant() {  # plant DIR: the state directory, as nobody makes it
  "${as_nobody[@]}" sh -c '
    d=$1 v=$2 s=$3
    mkdir -m 755 "$d" "$d/run" "$d/plugins" &&
    : > "$d/.obscheck-slurm" &&
    for n in munged slurmctld slurmd; do echo "$v" > "$d/run/$n.pid"; echo "$n $v $s" >> "$d/run/started"; done &&
    printf "ClusterName=x\nPluginDir=%s/plugins\n" "$d" > "$d/slurm.conf"' sh "$1" "$victim" "$start"
}
listing() { find "$1" -printf '%p %u %m %s\n' | sort; }

# expect_refused CASE DIR PATTERN: status, down and up all exit 1 saying PATTERN, run
# no Slurm program, leave the victim running and DIR as it was.
expect_refused() {
  local case=$1 dir=$2 pattern=$3 before cmd out rc
  before=$(listing "$(dirname "$dir")")
  for cmd in status down up; do
    rc=0
    out=$(PATH=$fake:$PATH OBSCHECK_SLURM_DIR=$dir "$slurm_local" "$cmd" 2>&1) || rc=$?
    [ "$rc" -eq 1 ] || fail "$case: '$cmd' exited $rc, not 1: $out"
    grep -q -- "$pattern" <<<"$out" || fail "$case: '$cmd' did not say '$pattern': $out"
    [ -z "$(ls -A "$ran")" ] || fail "$case: '$cmd' ran $(ls "$ran")"
    kill -0 "$victim" || fail "$case: '$cmd' killed the root process a planted pid file named"
    [ "$(listing "$(dirname "$dir")")" = "$before" ] || fail "$case: '$cmd' changed $(dirname "$dir")"
  done
  echo "ok: $case: status, down and up refused ($pattern)"
}

# 1. nobody's own state directory in a sticky shared directory (the old default's case).
plant "$shared/state"
expect_refused "a state directory nobody made" "$shared/state" "belongs to uid 65534"

# 2. root's name for it is a link nobody made, to a directory of root's with a marker.
mine=$work/mine
mkdir -m 755 "$mine" "$mine/run"
: > "$mine/.obscheck-slurm"
echo "slurmd $victim $start" > "$mine/run/started"
"${as_nobody[@]}" ln -s "$mine" "$shared/link"
expect_refused "a link nobody made to a directory of root's" "$shared/link" "a link"

# 3. A directory of root's whose parent anyone may write to (not sticky): nobody could
# rename it away and put its own in its place between two commands.
open=$work/open
mkdir -m 777 "$open"
chmod 777 "$open"
mkdir -m 755 "$open/state"
: > "$open/state/.obscheck-slurm"
expect_refused "a parent writable by others" "$open/state" "writable by others and not sticky"

# 4. A directory of root's holding a file of nobody's (a plugin or a pid file).
held=$work/held
mkdir -m 755 "$held" "$held/state" "$held/state/run"
: > "$held/state/.obscheck-slurm"
echo "$victim" > "$held/state/run/slurmd.pid"
chown 65534:65534 "$held/state/run/slurmd.pid"
expect_refused "a state directory holding nobody's file" "$held/state" "another user's"

# 5. root's own state directory whose records name the victim: as a daemon of another
# name, then as a slurmd started at another time (a recycled pid). `down` removes the
# directory but signals nothing.
for record in "slurmd $victim $start" "sleep $victim $((start + 1))"; do
  own=$work/own
  mkdir -m 755 "$own" "$own/state" "$own/state/run"
  : > "$own/state/.obscheck-slurm"
  echo "$record" > "$own/state/run/started"
  for n in munged slurmctld slurmd; do echo "$victim" > "$own/state/run/$n.pid"; done
  rc=0
  out=$(PATH=$fake:$PATH OBSCHECK_SLURM_DIR=$own/state "$slurm_local" down 2>&1) || rc=$?
  [ "$rc" -eq 0 ] || fail "down of root's own state exited $rc: $out"
  kill -0 "$victim" || fail "down killed a process up never started (record '$record')"
  [ ! -e "$own/state" ] || fail "down left root's own state directory"
  rm -rf "$own"
done
echo "ok: down signals no process but the daemons up recorded (name, pid, start time, owner)"
