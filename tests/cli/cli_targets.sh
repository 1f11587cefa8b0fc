#!/bin/bash
# usage: cli_targets.sh BLOCKVEC
# For each target, `blockvec run K --target T` runs and matches its reference, says the target in
# its header and --json, and runs the configuration declared for T (checked through the waves of
# 64 or 32 lanes in the header); BV_TARGET is the default; a bad value exits 2 with the choices.
set -uo pipefail
BV=${1:?usage: cli_targets.sh BLOCKVEC}
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

for t in gfx942 gfx90a sm_90; do
  lanes=64; [ "$t" = sm_90 ] && lanes=32
  for k in rmsnorm softmax layernorm_bwd; do
    out=$("$BV" run "$k" --target "$t" --seed 5 2>&1) || bad "$k --target $t exited $?: $out"
    grep -q "^target      $t (waves of $lanes lanes" <<<"$out" || bad "$k --target $t header: $out"
    grep -q "matches the reference" <<<"$out" || bad "$k --target $t result: $out"
  done
  json=$("$BV" run add --target "$t" --seed 5 --json 2>&1) || bad "add --target $t --json exited $?"
  grep -q "\"target\": \"$t\"" <<<"$json" || bad "add --target $t --json: $json"
  grep -q "\"wave_size\": $lanes" <<<"$json" || bad "add --target $t --json wave size: $json"
done

# BV_TARGET picks the default; --target wins over it.
out=$(BV_TARGET=sm_90 "$BV" run add --seed 5 2>&1)
grep -q "^target      sm_90" <<<"$out" || bad "BV_TARGET=sm_90: $out"
out=$(BV_TARGET=sm_90 "$BV" run add --seed 5 --target gfx90a 2>&1)
grep -q "^target      gfx90a" <<<"$out" || bad "BV_TARGET=sm_90 --target gfx90a: $out"
out=$(env -u BV_TARGET "$BV" run add --seed 5 2>&1)
grep -q "^target      gfx942" <<<"$out" || bad "default target: $out"

# A bad value: exit 2, a message naming the choices.
out=$("$BV" run add --target sm_80 2>&1); rc=$?
[ $rc -eq 2 ] || bad "--target sm_80 exited $rc, expected 2"
grep -q "gfx942, gfx90a or sm_90" <<<"$out" || bad "--target sm_80 message: $out"
out=$("$BV" demo --target x 2>&1); rc=$?
[ $rc -eq 2 ] || bad "demo --target x exited $rc, expected 2"

[ $fail -eq 0 ] && echo "cli targets: ok"
exit $fail
