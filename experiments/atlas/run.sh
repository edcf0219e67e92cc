#!/usr/bin/env bash
# The atlas: what common profiler set-ups do to three real programs no one here wrote
# (gzip, xz, sqlite3 from Debian). Each set-up is one obscheck check of the program's
# own task-clock and wall time, the profiler as the dose: perf record at 1, 99, 999,
# 4000, 20000 Hz and at the kernel's maximum, without call graphs, with -g and with
# --call-graph dwarf; perf trace; strace -f; ltrace; gdb breakpoints in batch mode;
# uprobes; obscheck's own sampler. One table (atlas.md) and one figure per program
# (<program>/atlas-<program>.svg), the commands that made them (commands.sh).
#
#   ./run.sh            run it (about 12 minutes on a 2-vCPU VM)
#   ./run.sh --dry-run  print the commands it would run, run nothing, write nothing
#
# Privileges: run as root, each set-up runs as the unprivileged user nobody where the
# profiler allows it, and as root where it does not (perf trace, uprobes) or where it
# was refused as nobody; the table says which. Run as an ordinary user, the set-ups
# that need root are left out and the table says so. Nothing root later reads, writes
# or runs is ever nobody's: the inputs (and gdb's command files) are root's, readable by
# nobody; a check run as nobody writes into a new directory of nobody's own, from which
# nobody itself copies the journal and report out (root never opens a path there), and
# which nobody then empties.
#   OBSCHECK  the driver (default ../../build/obscheck, else obscheck on PATH)
#   OUT       where everything goes (default ./out); as in every experiment (../lib.sh)
#             the results are copied there at the end and no file the atlas did not
#             write is replaced or deleted
#   BUDGET    seconds of runs for a one-dose set-up (default 10); a rate curve gets 2.5x
#   PROGRAMS  which of them (default "gzip xz sqlite3")
#   SETUPS    which set-ups (an extended regular expression their names must match;
#             default all), e.g. SETUPS='^strace' for one
set -euo pipefail

dry=0
[ "${1:-}" = --dry-run ] && dry=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $dry -eq 1 ]; then
  # Only printed, nothing made: the paths where a run would leave its files.
  if [ -z "${OBSCHECK:-}" ]; then
    OBSCHECK=$(cd "$here/../.." && pwd)/build/obscheck
    [ -x "$OBSCHECK" ] || OBSCHECK=obscheck
  fi
  out=${OUT:-$here/out}
  started=$SECONDS
else
  # shellcheck source=../lib.sh
  source "$here/../lib.sh"
fi
budget=${BUDGET:-10}
curve_budget=$((budget * 5 / 2))
read -r -a programs <<< "${PROGRAMS:-gzip xz sqlite3}"
setup_filter=${SETUPS:-}

# perf record's highest rate is the kernel's limit now; the kernel lowers it when
# sampling takes too long, so it is read before and after.
max_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 100000)
rates="0,1,99,999,4000,20000"
own_rates="0,1,99,999,4000,20000"

is_root=0
[ "$(id -u)" -eq 0 ] && is_root=1
as_nobody=(/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups)

# Where the checks read their inputs: OUT/inputs in the commands written down
# (commands.sh, relative to OUT), a directory of root's that nobody may read while they
# run (set by main).
inputs=$out/inputs

# The program's command line, one word a line; its inputs are made here, the same
# bytes on every host.
program_cmd() {
  case $1 in
    gzip) printf '%s\n' gzip -c -6 "$inputs/numbers.txt" ;;
    xz) printf '%s\n' xz -c -1 -T1 "$inputs/numbers.txt" ;;
    sqlite3) printf '%s\n' sqlite3 :memory: ".read $inputs/rows.sql" ;;
  esac
}
# The function probes and breakpoints go on: what a user of each program would watch.
probe_symbols() {
  case $1 in
    gzip) echo "libc.so.6:read,libc.so.6:write" ;;
    xz) echo "liblzma.so.5:lzma_code" ;;
    sqlite3) echo "libsqlite3.so.0:sqlite3_step" ;;
  esac
}

# make_inputs DIR: the inputs and gdb's command files, into DIR.
make_inputs() {
  local to=$1
  mkdir -p "$to"
  seq 1 150000 > "$to/numbers.txt"          # 1.0 MB of text
  {
    echo "CREATE TABLE t(a INTEGER, b TEXT);"
    echo "BEGIN;"
    for i in $(seq 1 1000); do echo "INSERT INTO t VALUES($i, 'row $i');"; done
    echo "COMMIT;"
    echo "SELECT count(*), sum(x.a * y.a % 7), max(length(y.b)) FROM t AS x JOIN t AS y ON y.a % 100 = x.a % 100;"
  } > "$to/rows.sql"
  local p sym
  for p in "${programs[@]}"; do
    sym=$(probe_symbols "$p")
    {
      # gdb's own messages (breakpoints set, the inferior's exit) to /dev/null, so the
      # program's output is all that is compared, as without gdb.
      echo "set logging file /dev/null"
      echo "set logging redirect on"
      echo "set logging enabled on"
      echo "set print inferior-events off"
      echo "set pagination off"
      echo "set confirm off"
      echo "set breakpoint pending on"
      # dprintf: a breakpoint that prints (to /dev/null) and goes on by itself. A
      # breakpoint with a "silent / continue" command list does not go on in batch
      # mode once the program has exec'd (gdb stops at the first hit, the script
      # reaches quit, and gdb kills the program).
      local s
      for s in ${sym//,/ }; do echo "dprintf ${s#*:},\"hit\\n\""; done
      echo "run"
      echo "quit"
    } > "$to/gdb-$p.cmds"
  done
}

# The set-ups: name | who may run it (user | root) | kind | obscheck's observer options.
# A curve is a check over rates; `max` is perf record at the kernel's highest rate,
# where a run may take hundreds of times its bare time: two blocks, each run cut off at
# kMaxRunSeconds (a cut-off run makes the level "incomparable: timed out", and its
# effect a lower bound).
setups() {
  local p=$1 pr='perf record -e cpu-clock'
  echo "perf record|user|curve|--observer-cmd|$pr -F {level} -o /dev/null -q --|--levels|$rates"
  echo "perf record -g|user|curve|--observer-cmd|$pr -g -F {level} -o /dev/null -q --|--levels|$rates"
  echo "perf record --call-graph dwarf|user|curve|--observer-cmd|$pr --call-graph dwarf -F {level} -o /dev/null -q --|--levels|$rates"
  echo "perf record at the maximum|user|max|--observer-cmd|$pr -F {level} -o /dev/null -q --|--levels|0,$max_rate"
  echo "perf record -g at the maximum|user|max|--observer-cmd|$pr -g -F {level} -o /dev/null -q --|--levels|0,$max_rate"
  echo "perf record --call-graph dwarf at the maximum|user|max|--observer-cmd|$pr --call-graph dwarf -F {level} -o /dev/null -q --|--levels|0,$max_rate"
  echo "perf trace|root|one|--observer-cmd|perf trace -o /dev/null --|--levels|0,1"
  echo "strace -f|user|one|--observer-cmd|strace -f -o /dev/null --|--levels|0,1"
  echo "ltrace|user|one|--observer-cmd|ltrace -o /dev/null --|--levels|0,1"
  echo "gdb breakpoints|user|one|--observer-cmd|gdb -q -batch -x $inputs/gdb-$p.cmds --args {argv}|--levels|0,1"
  echo "uprobes|root|one|--probes|$(probe_symbols "$p")"
  echo "obscheck sampler|user|curve|--sample-freq|$own_rates"
}

# How long each kind may run: a one-dose check BUDGET seconds of runs, a curve 2.5
# times that; a run of the programs here takes 20-60 ms bare, so kRunSeconds is far
# beyond any profiler that lets the program progress.
kRunSeconds=10
kMaxRunSeconds=5
kind_options() {
  case $1 in
    curve) echo "--time-budget $curve_budget --timeout $kRunSeconds -i" ;;
    max) echo "-r 2 -w 0 --timeout $kMaxRunSeconds -i" ;;
    *) echo "--time-budget $budget --timeout $kRunSeconds -i" ;;
  esac
}

slug() { echo "$1" | tr -c 'a-z0-9\n' '-' | sed 's/-\+/-/g; s/-$//'; }

# check_cmd PROGRAM LINE TO: the check's command line, one word a line, its journal
# and report going into directory TO.
check_cmd() {
  local p=$1 line=$2 to=$3 name who kind obs
  IFS='|' read -r name who kind obs <<< "$line"
  local -a observer limits
  IFS='|' read -r -a observer <<< "$obs"
  read -r -a limits <<< "$(kind_options "$kind")"
  local s seed
  s=$(slug "$name")
  # A fixed seed per program and set-up, so a rerun runs in the same order.
  seed=$(printf '%s' "$p/$name" | cksum | cut -d' ' -f1)
  printf '%s\n' "$OBSCHECK" "${observer[@]}" --counters task-clock "${limits[@]}" --seed "$seed" \
    --journal "$to/$s.jsonl" -o "$to/$s.txt" --
  program_cmd "$p"
}

# run_as_nobody S CMD...: the check as nobody, in a new directory of nobody's own (NB,
# which CMD names for its journal and report), in the shared directory of root's. The
# journal and the report come out through nobody's own reads (root opens no path in
# NB), and nobody empties NB before root removes it.
run_as_nobody() {
  local s=$1 nb=$2 rc=0
  shift 2
  lab_run env -C "$nb" "${as_nobody[@]}" "$@" > /dev/null 2> "$dir/$s.err" || rc=$?
  local f
  for f in "$s.jsonl" "$s.txt"; do
    "${as_nobody[@]}" cat -- "$nb/$f" > "$dir/$f" 2>/dev/null || rm -f -- "$dir/$f"
  done
  "${as_nobody[@]}" find "$nb" -mindepth 1 -delete 2>/dev/null || true
  rmdir -- "$nb" 2>/dev/null || echo "atlas: warning: nobody left files in $nb" >&2
  return $rc
}

# run_setup PROGRAM LINE: one check; its journal, report and who ran it go to
# $out/PROGRAM/SLUG.{jsonl,txt,json,who}.
run_setup() {
  local p=$1 line=$2 name who s
  IFS='|' read -r name who _ <<< "$line"
  s=$(slug "$name")
  dir="$out/$p"
  local -a cmd written
  mapfile -t written < <(inputs="$out/inputs" check_cmd "$p" "$line" "$dir")
  if [ $dry -eq 1 ]; then
    printf '%q ' "${written[@]}"
    echo
    return
  fi
  printf '%q ' "${written[@]}" >> "$out/commands.sh"
  echo >> "$out/commands.sh"
  local rc=0 ran="nobody"
  if [ "$who" = root ] && [ $is_root -eq 0 ]; then
    echo "not run: needs root (run the atlas as root to include it)" > "$dir/$s.who"
    return
  fi
  mapfile -t cmd < <(check_cmd "$p" "$line" "$dir")
  if [ "$who" = root ]; then
    ran="root (the profiler needs it)"
    lab_run "${cmd[@]}" > /dev/null 2> "$dir/$s.err" || rc=$?
  elif [ $is_root -eq 1 ]; then
    local nb
    nb=$(mktemp -d "$shared/nobody.XXXXXX")
    chown 65534:65534 "$nb"
    local -a nobody_cmd
    mapfile -t nobody_cmd < <(check_cmd "$p" "$line" "$nb")
    run_as_nobody "$s" "$nb" "${nobody_cmd[@]}" || rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
      ran="root (refused as nobody: $(grep -m1 'error' "$dir/$s.err" | cut -c1-120))"
      rm -f -- "$dir/$s.jsonl" "$dir/$s.txt"
      rc=0
      lab_run "${cmd[@]}" > /dev/null 2> "$dir/$s.err" || rc=$?
    fi
  else
    ran="$(id -un)"
    lab_run "${cmd[@]}" > /dev/null 2> "$dir/$s.err" || rc=$?
  fi
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
    echo "failed (exit $rc): $(grep -m1 'error' "$dir/$s.err" | cut -c1-160)" > "$dir/$s.who"
    return
  fi
  echo "$ran" > "$dir/$s.who"
  "$OBSCHECK" report "$dir/$s.jsonl" --json -o "$dir/$s.json" || true
}

host_line() {
  local virt cpu
  virt="$(systemd-detect-virt --vm 2>/dev/null || echo none) (container: $(systemd-detect-virt --container 2>/dev/null || echo none))"
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  echo "host $(hostname), $(uname -sr), $(nproc) CPUs ($cpu), virtualization: $virt"
}

for tool in gzip xz sqlite3 perf strace ltrace gdb python3; do
  command -v "$tool" > /dev/null || { echo "atlas: $tool is missing (tools/bootstrap build installs it)" >&2; [ $dry -eq 1 ] || exit 2; }
done
if [ $dry -eq 0 ]; then
  # lib.sh made the private working directory and runs us in its out/. The inputs the
  # checks read lie in a directory of root's beside it that nobody may enter and read
  # (not list or write): the working directory itself stays private.
  shared=$work/shared
  mkdir -m 711 "$shared"
  chmod 711 "$work"
  make_inputs "$shared/inputs"
  chmod 755 "$shared/inputs"
  chmod 644 "$shared/inputs"/*
  cp -R "$shared/inputs" "$out/inputs"
  inputs=$shared/inputs
  : > "$out/commands.sh"
  for p in "${programs[@]}"; do mkdir -p "$out/$p"; done
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for p in "${programs[@]}"; do
  while IFS= read -r line; do
    [[ -z $setup_filter || ${line%%|*} =~ $setup_filter ]] || continue
    [ $dry -eq 1 ] || echo "atlas: $p: ${line%%|*} ($((SECONDS - started)) s so far)" >&2
    run_setup "$p" "$line"
  done < <(setups "$p")
done
[ $dry -eq 1 ] && exit 0
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
max_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo "?")
python3 "$here/table.py" "$out" \
  --date "$(date -u '+%Y-%m-%d %H:%M UTC')" --host "$(host_line)" \
  --load "load average (1, 5, 15 min) $load_before at the start, $load_after at the end" \
  --rate "perf_event_max_sample_rate $max_rate at the start, $max_after at the end" \
  --seconds $((SECONDS - started)) --programs "${programs[@]}" > "$out/atlas.md"
rm -rf -- "$shared"
finish
echo "atlas: the table is $dest/atlas.md" >&2
