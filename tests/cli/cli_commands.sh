#!/usr/bin/env bash
# Every command and flag of the blockvec command: each runs with each flag, --json's shape, exit
# statuses (0 ok, 1 a failed kernel or a missing GPU, 2 a usage error with a message on stderr).
# Targets, amd-emu and the reports have their own scripts (cli_targets.sh, cli_amd_emu.sh,
# cli_reports.sh).
#   cli_commands.sh BLOCKVEC
set -uo pipefail
BV=${1:?usage: cli_commands.sh BLOCKVEC}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# expect STATUS DESCRIPTION ARGS...: the command exits STATUS; its output is in $out.
expect() {
  local want=$1 what=$2
  shift 2
  out=$("$BV" "$@" 2>&1)
  local rc=$?
  [ "$rc" -eq "$want" ] || bad "$what: 'blockvec $*' exited $rc, expected $want: ${out:0:400}"
}
# json_has PYTHON_EXPR: the JSON in $out satisfies the expression over `j`.
json_has() {
  python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); sys.exit(0 if eval(sys.argv[1]) else 1)' \
    "$1" <<<"$out" || bad "JSON shape: $1 on ${out:0:400}"
}

# list: a line per kernel, name first, with its sizes.
expect 0 "list" list
grep -q "^add .*--size N, default" <<<"$out" || bad "list line for add: $out"
[ "$(wc -l <<<"$out")" -ge 20 ] || bad "list shows fewer than 20 kernels"

# run, each flag.
expect 0 "run" run add --size 3001 --seed 7
grep -q "matches the reference" <<<"$out" || bad "run add result: $out"
grep -q "rerun with --seed 7" <<<"$out" || bad "run --seed echo: $out"
for s in sequential shuffled parallel; do
  expect 0 "run --schedule $s" run softmax --size 33,200 --seed 1 --schedule $s --threads 2
  grep -q "schedule    $s" <<<"$out" || bad "--schedule $s header: $out"
done
expect 0 "run --check" run add --size 100 --check bounds,race
grep -q "checks bounds,race" <<<"$out" || bad "--check list echo: $out"
expect 0 "run --check none" run add --size 100 --check none
expect 0 "run --trace" run add --size 100 --trace "$work/t.bvtrace"
[ -s "$work/t.bvtrace" ] || bad "--trace wrote no file"
head -c 16 "$work/t.bvtrace" | grep -q "SQLite format 3" || bad "--trace file is not SQLite"
expect 0 "run --notes" run matmul --size 100,70,90 --seed 1 --notes
grep -q "note(s)" <<<"$out" || bad "run --notes counts notes: $out"
expect 0 "run --json" run rmsnorm --size 17,300 --seed 3 --json
json_has 'all(k in j for k in ("kernel","size","seed","backend","target","wave_size","schedule","checks","launches","programs","seconds","max_abs_error","rel_error","tolerance","match","errors","warnings","notes","diagnostics","ok")) and j["ok"] is True and j["size"]==[17,300] and j["seed"]==3'

# run: usage errors exit 2 and say what is wrong.
expect 2 "unknown kernel" run nosuchkernel
grep -q "unknown kernel 'nosuchkernel'" <<<"$out" || bad "unknown kernel message: $out"
expect 2 "size arity" run softmax --size 100
grep -q "takes --size ROWS,COLS" <<<"$out" || bad "size arity message: $out"
expect 2 "malformed size" run add --size 12a
expect 2 "bad schedule" run add --schedule random
grep -q "sequential, shuffled or parallel" <<<"$out" || bad "bad schedule message: $out"
expect 2 "bad check" run add --check bounds,nope
grep -q "unknown check 'nope'" <<<"$out" || bad "bad check message: $out"
expect 2 "threads out of range" run add --threads 5000
expect 2 "bad backend" run add --backend tpu
expect 2 "no kernel" run
expect 2 "no subcommand"
expect 2 "unknown subcommand" frobnicate
# --backend gpu in a build without a GPU (or on a machine without one): exit 1 saying why.
if ! "$BV" run add --backend gpu --size 100 >/dev/null 2>&1; then
  expect 1 "run --backend gpu without a GPU" run add --backend gpu --size 100
  grep -qi "needs a GPU" <<<"$out" || bad "--backend gpu message: $out"
fi

# bench, each flag (small repeat counts: this checks the command, not the figures).
expect 0 "bench" bench add --repeat 1
grep -q "off/native" <<<"$out" || bad "bench table: $out"
grep -q "TRITON_INTERPRET\|targets:" <<<"$out" && bad "bench prints stored peer figures or targets: $out"
expect 0 "bench --per-check" bench add --repeat 1 --per-check
grep -q "bounds" <<<"$out" || bad "bench --per-check columns: $out"
expect 0 "bench --json" bench add softmax --repeat 1 --json
json_has 'all(k in j for k in ("date","target","cpu","cores","repeat","results")) and [r["kernel"] for r in j["results"]]==["add","softmax"] and all(all(k in r for k in ("size","programs","native_s","checks_off_s","checks_all_s","parallel_s","off_over_native","all_over_native","match")) for r in j["results"])'
expect 0 "bench --target" bench add --repeat 1 --target sm_90
grep -q "target sm_90" <<<"$out" || bad "bench --target header: $out"
expect 2 "bench unknown kernel" bench nosuchkernel --repeat 1
expect 2 "bench --repeat 0" bench add --repeat 0
expect 2 "bench bad backend" bench add --backend tpu
if ! "$BV" run add --backend gpu --size 100 >/dev/null 2>&1; then
  out=$("$BV" bench add --backend gpu --warmup 1 --repeat 2 2>&1)
  rc=$?
  [ $rc -ne 0 ] || bad "bench --backend gpu without a GPU exited 0"
fi

# demo, each flag.
expect 0 "demo" demo
grep -q "kernels match their reference" <<<"$out" || bad "demo summary: $out"
expect 0 "demo --json" demo --json
json_has 'isinstance(j, list) and len(j) >= 20 and all(all(k in r for k in ("kernel","target","size","programs","seconds","rel_error","errors","warnings","notes","ok")) for r in j) and all(r["ok"] for r in j)'
expect 0 "demo --notes" demo --notes
expect 2 "demo stray argument" demo extra

# --help for each command.
for c in list run bench demo; do
  expect 0 "$c --help" $c --help
  grep -qi "usage" <<<"$out" || bad "$c --help: $out"
done

[ $fail -eq 0 ] && echo "cli commands: ok"
exit $fail
