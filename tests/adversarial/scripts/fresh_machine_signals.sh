#!/usr/bin/env bash
# tools/bench/fresh_machine under INT, TERM, HUP and KILL while the fresh machine's
# `tools/bootstrap run` is busy: every process of the fresh machine ends, no bind mount
# of /proc, /sys or /dev is left in this namespace, the script exits with the signal's
# code and never prints a result. The fresh machine is a minimal root file system
# (FRESH_ROOTFS) holding bash and a few coreutils, whose apt-get only sleeps, so
# bootstrap blocks at its first `apt-get update` without downloading anything.
#   fresh_machine_signals.sh SOURCE_DIR
# Prints "ok: ..." per signal, "FAIL: ..." and exits 1 on a failure, or "SKIPPED: why".
set -euo pipefail
src=$1
script=$src/tools/bench/fresh_machine
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: fresh_machine needs root (chroot and bind mounts)"; exit 0; }
for c in unshare setpriv chroot git ldd; do
  command -v "$c" >/dev/null || { echo "SKIPPED: $c is not installed"; exit 0; }
done
unshare --mount --pid --fork true 2>/dev/null || { echo "SKIPPED: this host refuses new mount and pid namespaces"; exit 0; }
git -C "$src" rev-parse --verify -q HEAD >/dev/null ||
  { echo "SKIPPED: fresh_machine exports the repository's HEAD, and $src is not a git checkout"; exit 0; }

work=$(mktemp -d)
trap 'rm -rf --one-file-system "$work"' EXIT
rootfs=$work/rootfs
fresh=$work/fresh
mkdir -p "$fresh" "$rootfs"/{etc/apt/sources.list.d,var/cache/apt/archives,proc,sys,dev,root,usr/bin,tmp}
ln -s usr/bin "$rootfs/bin"
# bash and the coreutils bootstrap calls before apt-get, with their libraries.
for b in bash env dirname nproc id date sleep cat; do
  p=$(command -v "$b")
  cp "$p" "$rootfs/usr/bin/"
  for lib in $(ldd "$p" | grep -o '/[^ ]*'); do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -n "$lib" "$rootfs$lib"
  done
done
# A distinct sleep, so its processes are recognised; apt-get says it started first.
marker_seconds=417.25
cat >"$rootfs/usr/bin/apt-get" <<EOF
#!/usr/bin/bash
: > /apt-get-started
exec sleep $marker_seconds
EOF
chmod 755 "$rootfs/usr/bin/apt-get"

sleepers() { pgrep -f "^sleep $marker_seconds\$" || true; }
mounts_under() { awk -v d="$fresh/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo; }
fail() {
  echo "FAIL: $*"
  exit 1
}

for sig in INT TERM HUP KILL; do
  log=$work/log-$sig
  # env --default-signal: an asynchronous command starts with INT ignored, as a shell
  # started from a terminal does not.
  FRESH_ROOTFS=$rootfs FRESH_DIR=$fresh env --default-signal=INT setsid "$script" >"$log" 2>&1 &
  pid=$!
  started=""
  for _ in $(seq 1 300); do
    started=$(find "$fresh" -maxdepth 2 -name apt-get-started 2>/dev/null | head -n 1)
    [ -n "$started" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$started" ] || { cat "$log"; fail "$sig: the fresh machine's apt-get never started"; }
  [ -n "$(sleepers)" ] || fail "$sig: no apt-get process seen"
  [ -z "$(mounts_under)" ] || fail "$sig: the fresh machine's mounts are in this namespace: $(mounts_under | head -3)"
  kill -"$sig" "$pid"
  status=0
  ended=0
  for _ in $(seq 1 100); do
    if ! kill -0 "$pid" 2>/dev/null; then ended=1; break; fi
    sleep 0.1
  done
  [ "$ended" -eq 1 ] || { kill -KILL "$pid"; fail "$sig: fresh_machine still running 10 s after SIG$sig"; }
  wait "$pid" || status=$?
  left=""
  for _ in $(seq 1 50); do
    left=$(sleepers)
    [ -z "$left" ] && break
    sleep 0.1
  done
  [ -z "$left" ] || { kill -KILL $left; fail "$sig: the fresh machine's processes outlived SIG$sig: $left"; }
  [ -z "$(mounts_under)" ] || fail "$sig: mounts left after SIG$sig: $(mounts_under | head -3)"
  if grep -q "first report in" "$log"; then fail "$sig: printed a result after SIG$sig: $(cat "$log")"; fi
  case $sig in
    INT) want=130 ;;
    TERM) want=143 ;;
    HUP) want=129 ;;
    KILL) want=137 ;;
  esac
  [ "$status" -eq "$want" ] || fail "$sig: exit status $status, not $want; $(cat "$log")"
  if [ "$sig" != KILL ]; then
    [ -z "$(ls -A "$fresh")" ] || fail "$sig: the scratch folder is left: $(ls "$fresh")"
  fi
  rm -rf --one-file-system "${fresh:?}"/*
  echo "ok: SIG$sig ended fresh_machine (exit $status), its processes and its mounts"
done
