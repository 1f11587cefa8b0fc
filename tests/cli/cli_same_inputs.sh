#!/bin/bash
# usage: cli_same_inputs.sh BLOCKVEC
# Every built-in kernel registers once (cli/kernels/*.cpp): one input maker serves `run` and the
# interpreter's side of `run --backend amd-emu`. So, at one size and seed, the interpreter's result
# under amd-emu (the same kernel on the same inputs against the same reference) has the rel L2
# error and max abs error of `run`'s, to the last digit, and its tolerance; a backend that made
# its own inputs (another seed, scale or shape) would differ. A kernel whose run fails is
# reported.
set -uo pipefail
BV=${1:?usage: cli_same_inputs.sh BLOCKVEC}
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# Small ragged sizes, in each kernel's --size order (as cli_amd_emu.sh).
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
same=$(cat <<'PY'
import json, sys
run, emu = json.loads(sys.argv[1]), json.loads(sys.argv[2])
c = emu["cpu"]
for k in ("rel_error", "max_abs_error"):
    assert run[k] == c[k], f"{k}: run {run[k]!r}, amd-emu's interpreter {c[k]!r}"
assert run["match"] and c["match"], "a result does not match its reference"
PY
)
kernels=$("$BV" list | awk '{print $1}')
[ -n "$kernels" ] || bad "blockvec list printed no kernels"
n=0
for k in $kernels; do
  s=${size[$k]:-}
  if [ -z "$s" ]; then bad "$k: no size in cli_same_inputs.sh"; continue; fi
  # The sequential schedule on both: the parallel one may order a reduction's atomics otherwise.
  r=$("$BV" run "$k" --size "$s" --seed 23 --schedule sequential --json 2>&1)
  e=$("$BV" run "$k" --backend amd-emu --size "$s" --seed 23 --schedule sequential --json 2>&1)
  python3 -c "$same" "$r" "$e" || bad "$k --size $s: run $r; amd-emu $e"
  n=$((n + 1))
done
[ $n -ge 26 ] || bad "only $n kernels compared"
[ $fail -eq 0 ] && echo "cli_same_inputs: $n kernels, run and amd-emu's interpreter side agree"
exit $fail
