#!/usr/bin/env bash
# The lab as a student meets it: an experiment (fig13-variants, the quickest: about 5 s)
# run by a user without root (nobody, when this runs as root) from a read-only copy of
# the checkout, with OUT naming a directory that already holds the student's notes.
# The notes survive every run, the copy gains no file, a file of the student's that a
# result would replace is left as it was (the run refuses), and a missing OUT or driver
# is named in the message.
#   lab_readonly.sh SOURCE_DIR OBSCHECK
# Prints "ok: ..." per case, "FAIL: ..." and exits 1 on a failure, or "SKIPPED: why".
set -euo pipefail
src=$1
driver=$2
fig=fig13-variants
command -v cc >/dev/null || { echo "SKIPPED: the experiment compiles its workload with cc, which is missing"; exit 0; }

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
chmod 755 "$work"
fail() {
  echo "FAIL: $*"
  exit 1
}
# The student: nobody when we are root, else ourselves (already not root).
student=()
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv >/dev/null || { echo "SKIPPED: setpriv (util-linux) is needed to run as nobody"; exit 0; }
  student=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
as_student() { "${student[@]}" env -i PATH=/usr/bin:/bin HOME="$work/home" TMPDIR="$work/tmp" "$@"; }
mkdir "$work/home" "$work/tmp"
[ ${#student[@]} -eq 0 ] || chown 65534:65534 "$work/home" "$work/tmp"
as_student test -x "$driver" || { echo "SKIPPED: the student user cannot run $driver (its directories are private)"; exit 0; }

# The read-only copy: the lab's library, the experiment and the workloads' sources.
copy=$work/checkout
mkdir -p "$copy/experiments"
cp -R "$src/experiments/lib.sh" "$src/experiments/$fig" "$src/experiments/workloads" "$copy/experiments/"
chmod -R a-w "$copy"
listing() { find "$1" -printf '%p %m %s %T@\n' | sort; }
copy_before=$(listing "$copy")
run=$copy/experiments/$fig/run.sh

# A missing OUT in a read-only copy: the message says what to set, nothing is written.
rc=0
msg=$(as_student env OBSCHECK="$driver" "$run" 2>&1) || rc=$?
[ "$rc" -eq 2 ] || fail "without OUT in a read-only copy: exit $rc, not 2: $msg"
grep -q "set OUT" <<<"$msg" || fail "without OUT: the message does not name OUT: $msg"
[ "$(listing "$copy")" = "$copy_before" ] || fail "without OUT: the read-only copy changed"
echo "ok: without OUT in a read-only copy: exit 2, '$(head -n 1 <<<"$msg")'"

# No driver beside the copy and none on PATH: the message names OBSCHECK.
rc=0
msg=$(as_student env OUT="$work/home/never" "$run" 2>&1) || rc=$?
[ "$rc" -eq 2 ] || fail "without a driver: exit $rc, not 2: $msg"
grep -q "set OBSCHECK" <<<"$msg" || fail "without a driver: the message does not name OBSCHECK: $msg"
[ ! -e "$work/home/never" ] || fail "without a driver: OUT was created"
echo "ok: without a driver: exit 2, '$(head -n 1 <<<"$msg")'"

# The student's directory with their notes: every run keeps them.
out=$work/home/lab
as_student mkdir "$out"
as_student sh -c 'printf "my notes on figure 13\n" > "$1/notes.txt"' sh "$out"
for attempt in first second; do
  rc=0
  msg=$(as_student env OBSCHECK="$driver" OUT="$out" "$run" 2>&1) || rc=$?
  [ "$rc" -eq 0 ] || fail "$attempt run with OUT=$out: exit $rc: $msg"
  [ "$(cat "$out/notes.txt")" = "my notes on figure 13" ] || fail "$attempt run: the student's notes.txt is gone or changed"
  [ -s "$out/report.txt" ] && [ -s "$out/report.json" ] || fail "$attempt run: no report in $out: $(ls -A "$out")"
  [ "$(listing "$copy")" = "$copy_before" ] || fail "$attempt run: the read-only copy changed"
  [ -z "$(ls -A "$work/tmp")" ] || fail "$attempt run: left $(ls -A "$work/tmp") in TMPDIR"
  echo "ok: $attempt run from a read-only copy as $(as_student id -un): notes.txt kept, reports in OUT"
done

# A result that would replace a file of the student's: refused, nothing copied.
mine=$work/home/mine
as_student mkdir "$mine"
as_student sh -c 'printf "my own report\n" > "$1/report.txt"' sh "$mine"
rc=0
msg=$(as_student env OBSCHECK="$driver" OUT="$mine" "$run" 2>&1) || rc=$?
[ "$rc" -eq 3 ] || fail "OUT holding the student's report.txt: exit $rc, not 3: $msg"
[ "$(cat "$mine/report.txt")" = "my own report" ] || fail "the student's own report.txt was replaced"
[ "$(ls -A "$mine")" = report.txt ] || fail "a refused run copied files: $(ls -A "$mine")"
grep -q "did not write" <<<"$msg" || fail "the refusal does not say why: $msg"
echo "ok: a result that would replace the student's own report.txt: exit 3, nothing copied"
as_student rm -rf "$work/tmp"/obscheck-lab.*

# As root, an OUT of another user's is refused before anything runs.
if [ ${#student[@]} -gt 0 ]; then
  rc=0
  msg=$(OBSCHECK="$driver" OUT="$out" TMPDIR="$work" "$run" 2>&1) || rc=$?
  [ "$rc" -eq 2 ] || fail "root with OUT of nobody's: exit $rc, not 2: $msg"
  grep -q "another user's" <<<"$msg" || fail "root with OUT of nobody's: $msg"
  echo "ok: root with an OUT of another user's: refused"
fi
