#!/bin/bash
# usage: cli_amd_emu.sh BLOCKVEC
# `blockvec run K --backend amd-emu` for every kernel of `blockvec list` on gfx942 and gfx90a at a
# small ragged size (not a multiple of a block, a wave or a tile): exit 0, the emulated and the interpreter's results each match the reference
# and agree, no error diagnostic, the counters saw global traffic (and MFMA for the matmuls and
# attention). The attention forwards also at their default sizes.
# add's text output and --json in detail; sm_90 is a usage error (exit 2);
# transformer_block (its 35 launches, about a second per target at 40x2x96) sums every launch's
# counters; `bench --backend amd-emu`'s table and --json keys. A kernel added to `blockvec list` without a size below fails the test.
set -uo pipefail
BV=${1:?usage: cli_amd_emu.sh BLOCKVEC}
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# Small ragged sizes, in each kernel's --size order (blockvec list).
declare -A size=(
  [add]=3001 [copy]=3001 [dropout]=3001
  [silu_mul]=5,333 [gelu_mul]=5,333 [silu_mul_bwd]=5,333 [gelu_mul_bwd]=5,333
  [softmax]=7,333 [cross_entropy]=3,2111 [cross_entropy_bwd]=3,2111
  [rmsnorm]=7,333 [add_rmsnorm]=7,333 [rmsnorm_bwd]=7,333
  [layernorm]=7,333 [layernorm_bwd]=7,333 [layernorm_bwd_two_stage]=7,333 [col_sum]=5,301
  [matmul]=37,45,29 [matmul_f16]=37,45,29 [matmul_bias_gelu]=37,45,29 [matmul_splitk]=21,35,333
  [conv2d]=1,3,9,11,5,3,2,1
  [attention]=1,1,37,64 [attention_causal]=1,1,37,128 [attention_f16]=1,1,37,128
  [attention_bwd]=1,1,37,64 [attention_bwd_f16]=1,1,37,128
  [transformer_block]=40,2,96
)
check_run_json=$(cat <<'PY'
import json, sys
k, t = sys.argv[1], sys.argv[2]
j = json.load(sys.stdin)
e, c = j["amd_emu"], j["amd_emu"]["counters"]
assert j["ok"] and j["agree"] and j["target"] == t, "not ok"
assert e["match"] and e["errors"] == 0 and not e["deadlocked"] and j["cpu"]["match"], "mismatch"
assert c["global_read_bytes"] > 0 and c["global_write_bytes"] > 0, "no global traffic counted"
assert 0 < c["active_lane_fraction"] <= 1, "active-lane fraction"
if k.startswith("matmul") or k.startswith("attention") or k == "transformer_block":
    assert c["mfma"] > 0, "no MFMA counted"
PY
)
kernels=$("$BV" list | awk '{print $1}')
[ -n "$kernels" ] || bad "blockvec list printed no kernels"
for k in $kernels; do
  s=${size[$k]:-}
  if [ -z "$s" ]; then bad "$k: no ragged size in cli_amd_emu.sh"; continue; fi
  for t in gfx942 gfx90a; do
    j=$("$BV" run "$k" --backend amd-emu --target "$t" --size "$s" --seed 11 --json 2>&1); rc=$?
    [ $rc -eq 0 ] || { bad "$k --target $t --size $s exited $rc: $j"; continue; }
    python3 -c "$check_run_json" "$k" "$t" <<<"$j" || bad "$k --target $t --size $s: $j"
  done
done

# The attention forwards at their default sizes (1x2x200x64, 1x2x150x128): tiles within LDS.
for k in attention attention_causal attention_f16; do
  for t in gfx942 gfx90a; do
    j=$("$BV" run "$k" --backend amd-emu --target "$t" --seed 5 --json 2>&1); rc=$?
    [ $rc -eq 0 ] || { bad "$k --target $t (default size) exited $rc: $j"; continue; }
    python3 -c "$check_run_json" "$k" "$t" <<<"$j" || bad "$k --target $t (default size): $j"
  done
done

n=3001
for t in gfx942 gfx90a; do
  out=$("$BV" run add --backend amd-emu --target "$t" --size $n --seed 7 2>&1); rc=$?
  [ $rc -eq 0 ] || bad "add amd-emu --target $t exited $rc: $out"
  grep -q "^target      $t (AMD emulator" <<<"$out" || bad "$t header: $out"
  grep -q "^emu result .*: matches the reference" <<<"$out" || bad "$t emulated result: $out"
  grep -q "^cpu result .*: matches the reference" <<<"$out" || bad "$t interpreter result: $out"
  grep -q "^emu vs cpu .*: agree" <<<"$out" || bad "$t comparison: $out"
  grep -q "^emulator    1 launch(es), [0-9.]* ms, 0 error diagnostic(s)" <<<"$out" ||
    bad "$t diagnostics: $out"
  # Every output element is written once: n f32 elements, 4 bytes each; add meets no barrier.
  grep -Eq "^counters    MFMA 0, barriers 0, global read [1-9][0-9]* B, global write $((4 * n)) B" \
    <<<"$out" ||
    bad "$t counters: $out"
done

out=$("$BV" run add --backend amd-emu --target sm_90 2>&1); rc=$?
[ $rc -eq 2 ] || bad "amd-emu --target sm_90 exited $rc, expected 2"
grep -q "not one (use --target gfx942 or gfx90a)" <<<"$out" || bad "sm_90 message: $out"
out=$(BV_TARGET=sm_90 "$BV" run add --backend amd-emu 2>&1); rc=$?
[ $rc -eq 2 ] || bad "BV_TARGET=sm_90 amd-emu exited $rc, expected 2"

# transformer_block: 35 launches, their counters summed (the global writes cover every tensor
# the block writes), the 8 results compared.
out=$("$BV" run transformer_block --backend amd-emu --target gfx90a --size 40,2,96 2>&1); rc=$?
[ $rc -eq 0 ] || bad "transformer_block amd-emu exited $rc: $out"
grep -q "^emulator    35 launch(es), [0-9.]* ms, 0 error diagnostic(s)" <<<"$out" ||
  bad "transformer_block launches: $out"
grep -q "^emu result .*: matches the reference" <<<"$out" || bad "transformer_block result: $out"
# Every activation, gradient and temporary the block writes (block.hpp), once, f32: seq 40, dim
# 128, ffn 96, 2 heads. The summed global writes are at least that (more: partial sums).
s=40 d=128 f=96 h=2
fwd=$((14 * s * d + 2 * s + h * s + 3 * s * f))
bwd=$((14 * s * d + 3 * s * f + 3 * f * d + 4 * d * d + 2 * d))
w=$(sed -n 's/^counters .*global write \([0-9]*\) B.*/\1/p' <<<"$out")
[ -n "$w" ] && [ "$w" -ge $((4 * (fwd + bwd))) ] ||
  bad "transformer_block global writes ${w:-?} B, at least $((4 * (fwd + bwd))) expected: $out"
grep -q "^emu vs cpu .*: agree" <<<"$out" || bad "transformer_block comparison: $out"

# bench: the table's columns and a row for the kernel; --json's keys; usage errors.
out=$("$BV" bench matmul --backend amd-emu --target gfx90a --size 37,45,29 2>/dev/null); rc=$?
[ $rc -eq 0 ] || bad "bench matmul --backend amd-emu exited $rc: $out"
grep -q "^blockvec bench --backend amd-emu, target gfx90a" <<<"$out" || bad "bench title: $out"
grep -Eq "^kernel +size +launches +MFMA +barriers +global R/W KiB +LDS R/W KiB +bank conflicts +active lanes +emu ms +interp ms +emu/interp +result$" \
  <<<"$out" || bad "bench header: $out"
# (f32: one 64x64x32 tile, one K step through one LDS image: a barrier before its stores, one after.)
grep -Eq "^matmul +37x45x29 +1 +[1-9][0-9]* +2 .* [0-9.]+x +ok$" <<<"$out" || bad "bench row: $out"
j=$("$BV" bench add copy --backend amd-emu --target gfx942 --json 2>&1) ||
  bad "bench add copy --json exited $?: $j"
python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["backend"] == "amd-emu" and j["target"] == "gfx942", "header keys"
assert [r["kernel"] for r in j["results"]] == ["add", "copy"], "rows"
for r in j["results"]:
    assert r["ok"] and r["match"] and r["emu_s"] > 0 and r["interp_checks_off_s"] > 0, r
    assert abs(r["emu_over_interp"] - r["emu_s"] / r["interp_checks_off_s"]) < 1e-9, r
    for key in ("mfma", "barriers", "global_read_bytes", "global_write_bytes", "lds_read_bytes",
                "lds_write_bytes", "lds_bank_conflicts", "active_lane_fraction"):
        assert key in r["counters"], key
' <<<"$j" || bad "bench --json: $j"
out=$("$BV" bench add copy --backend amd-emu --size 100 2>&1); rc=$?
[ $rc -eq 2 ] || bad "bench --size with two kernels exited $rc, expected 2: $out"
out=$("$BV" bench transformer_block --backend amd-emu --size 40,2,96 2>/dev/null); rc=$?
[ $rc -eq 0 ] || bad "bench transformer_block --backend amd-emu exited $rc: $out"
grep -Eq "^transformer_block +40x2x96 +35 +[1-9][0-9]* .* ok$" <<<"$out" ||
  bad "bench transformer_block row: $out"

[ $fail -eq 0 ] && echo "cli amd-emu: ok"
exit $fail
