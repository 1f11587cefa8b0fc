#!/bin/bash
# usage: cli_amd_emu.sh BLOCKVEC
# `blockvec run add --backend amd-emu` on each AMD target at a ragged size (not a multiple of the
# block or the wave): exit 0, the emulated and the interpreter's results each match the
# reference and agree, the counters saw the launch's global traffic; sm_90 is a usage error
# (exit 2); a kernel without an emulated runner says so and exits 1.
set -uo pipefail
BV=${1:?usage: cli_amd_emu.sh BLOCKVEC}
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

n=3001
for t in gfx942 gfx90a; do
  out=$("$BV" run add --backend amd-emu --target "$t" --size $n --seed 7 2>&1); rc=$?
  [ $rc -eq 0 ] || bad "add amd-emu --target $t exited $rc: $out"
  grep -q "^target      $t (AMD emulator" <<<"$out" || bad "$t header: $out"
  grep -q "^emu result .*: matches the reference" <<<"$out" || bad "$t emulated result: $out"
  grep -q "^cpu result .*: matches the reference" <<<"$out" || bad "$t interpreter result: $out"
  grep -q "^emu vs cpu .*: agree" <<<"$out" || bad "$t comparison: $out"
  grep -q "^emulator    1 launch(es), 0 error diagnostic(s)" <<<"$out" || bad "$t diagnostics: $out"
  # Every output element is written once: n f32 elements, 4 bytes each.
  grep -q "^counters    MFMA 0, .*global write $((4 * n)) B" <<<"$out" || bad "$t counters: $out"
  json=$("$BV" run add --backend amd-emu --target "$t" --size $n --seed 7 --json 2>&1) ||
    bad "add amd-emu --target $t --json exited $?"
  grep -q '"ok": true' <<<"$json" || bad "$t --json: $json"
  grep -q "\"target\": \"$t\"" <<<"$json" || bad "$t --json target: $json"
done

out=$("$BV" run add --backend amd-emu --target sm_90 2>&1); rc=$?
[ $rc -eq 2 ] || bad "amd-emu --target sm_90 exited $rc, expected 2"
grep -q "not one (use --target gfx942 or gfx90a)" <<<"$out" || bad "sm_90 message: $out"
out=$(BV_TARGET=sm_90 "$BV" run add --backend amd-emu 2>&1); rc=$?
[ $rc -eq 2 ] || bad "BV_TARGET=sm_90 amd-emu exited $rc, expected 2"

out=$("$BV" run softmax --backend amd-emu --target gfx942 2>&1); rc=$?
[ $rc -eq 1 ] || bad "softmax amd-emu exited $rc, expected 1"
grep -q "no AMD emulator entry for softmax" <<<"$out" || bad "softmax message: $out"

[ $fail -eq 0 ] && echo "cli amd-emu: ok"
exit $fail
