#!/usr/bin/env bash
# experiments/atlas/run.sh as root, one set-up that runs as nobody (strace -f on gzip,
# a 2-second budget): nothing root writes, reads or runs is nobody's. Afterwards every
# file and directory in OUT is root's and writable by no one else, the set-up ran as
# nobody (its .who says so), the student's file in OUT is still there, the working
# directories are gone, and `--dry-run` prints the commands and writes nothing.
#   atlas_as_root.sh SOURCE_DIR OBSCHECK
# Prints "ok: ..." per case, "FAIL: ..." and exits 1 on a failure, or "SKIPPED: why".
set -euo pipefail
src=$1
driver=$2
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: the atlas hands work to the nobody user only when run as root"; exit 0; }
for tool in gzip xz sqlite3 perf strace ltrace gdb python3 setpriv; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed (tools/bootstrap build installs it)"; exit 0; }
done
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$driver" ||
  { echo "SKIPPED: nobody cannot run $driver (its directories are private)"; exit 0; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
fail() {
  echo "FAIL: $*"
  exit 1
}
tmp=$work/tmp
mkdir -m 755 "$tmp"
out=$work/out
mkdir "$out"
echo "my notes" > "$out/notes.txt"

# --dry-run: the commands on stdout, no file anywhere.
before=$(find "$src/experiments" "$out" "$tmp" | sort)
rc=0
lines=$(PROGRAMS=gzip TMPDIR=$tmp OUT=$out OBSCHECK=$driver "$src/experiments/atlas/run.sh" --dry-run | wc -l) || rc=$?
[ "$rc" -eq 0 ] || fail "--dry-run exited $rc"
[ "$lines" -eq 12 ] || fail "--dry-run printed $lines commands for gzip, not 12"
[ "$(find "$src/experiments" "$out" "$tmp" | sort)" = "$before" ] || fail "--dry-run wrote files"
echo "ok: --dry-run printed 12 commands and wrote nothing"

rc=0
log=$(PROGRAMS=gzip SETUPS='^strace -f$' BUDGET=2 TMPDIR=$tmp OUT=$out OBSCHECK=$driver \
        "$src/experiments/atlas/run.sh" 2>&1) || rc=$?
[ "$rc" -eq 0 ] || fail "the atlas exited $rc: $log"
[ "$(cat "$out/notes.txt")" = "my notes" ] || fail "the student's notes.txt is gone or changed"
[ "$(cat "$out/gzip/strace-f.who")" = nobody ] || fail "strace -f ran as '$(cat "$out/gzip/strace-f.who")', not nobody: $(cat "$out/gzip/strace-f.err")"
for f in gzip/strace-f.jsonl gzip/strace-f.txt gzip/strace-f.json atlas.md commands.sh inputs/gdb-gzip.cmds gzip/atlas-gzip.svg; do
  [ -s "$out/$f" ] || fail "no $f in OUT: $(cd "$out" && find . | sort | tr '\n' ' ')"
done
theirs=$(find "$out" \( ! -uid 0 -o -perm /022 \) ! -path "$out" -printf '%p %u %m\n')
[ -z "$theirs" ] || fail "OUT holds what is not root's alone: $theirs"
[ -z "$(ls -A "$tmp")" ] || fail "the working directories are left: $(ls -A "$tmp")"
grep -q -- "--journal ./gzip/strace-f.jsonl" "$out/commands.sh" || fail "commands.sh does not name the journal in OUT: $(cat "$out/commands.sh")"
echo "ok: strace -f ran as nobody; OUT is root's alone (no file another user could have swapped); notes.txt kept"
