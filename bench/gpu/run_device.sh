#!/bin/bash
# One device run: timings first, on a quiet GPU (blockvec bench --backend gpu, the LayerNorm peer,
# the Triton peers), then correctness (the GPU tests one test case at a time, then
# `blockvec run K --backend both` for every kernel), each step under its own time limit so that a
# hang costs one step, not the call. Builds nothing: expects prebuilt binaries in the carried
# folder $1 (default .gpu-carry): blockvec and bv_gpu_tests from gpu_backend/scripts/
# build_cli_gpu.sh, optionally bv_gpu_bench / bv_gpu_libbench from build_nvcc.sh; the peers are
# bench/gpu/triton_peer.py, bench/gpu/layernorm_peer.py and bench/interp_peer.py (step interp,
# not in the default: the CPU interpreters side by side). Everything goes to $OUT/log.txt
# (or ./gpu-out) as it happens, JSON beside it; what was written comes back even after a timeout.
# Environment: BV_STEPS (default "bench lnpeer peer blockpeer conformance tests runs"; also attnpeer:
# bench/gpu/attn_bwd_peer.py on the tutorial file named by BV_ATTN_TUTORIAL), BV_BENCH_ARGS (default
# --variants), BV_TEST_MATCH (a grep -E pattern: only the test cases it matches), BV_TEST_TIMEOUT
# (s per test case, default 40), BV_RUN_TIMEOUT (s per kernel, 20).
set -u
C=${1:-.gpu-carry}
O=${OUT:-gpu-out}
mkdir -p "$O"
exec > >(tee -a "$O/log.txt") 2>&1
STEPS=" ${BV_STEPS:-bench lnpeer peer blockpeer conformance tests runs} "
has() { [[ "$STEPS" == *" $1 "* ]]; }
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  steps:$STEPS"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
if has bench && [ -x "$C/blockvec" ]; then
  echo "== blockvec bench --backend gpu ${BV_BENCH_ARGS:---variants}"
  timeout 300 "$C/blockvec" bench --backend gpu ${BV_BENCH_ARGS:---variants} --json > "$O/cli_bench.json"
  echo "cli bench rc=$?"
fi
if has lnpeer; then
  echo "== layernorm peer"
  PYTHONUNBUFFERED=1 timeout 90 python3 bench/gpu/layernorm_peer.py > "$O/ln_peer.json"; echo "ln peer rc=$?"
fi
if has peer; then
  echo "== triton peer"
  PYTHONUNBUFFERED=1 timeout 240 python3 bench/gpu/triton_peer.py > "$O/peer.json"; echo "peer rc=$?"
fi
if has blockpeer; then
  echo "== decoder block peer (PyTorch eager)"
  PYTHONUNBUFFERED=1 timeout 120 python3 bench/gpu/block_peer.py > "$O/block_peer.json"; echo "block peer rc=$?"
fi
if has attnpeer; then
  # Triton's fused-attention tutorial backward: not part of blockvec, its path in BV_ATTN_TUTORIAL.
  echo "== attention backward peer (Triton's fused-attention tutorial)"
  if [ -f "${BV_ATTN_TUTORIAL:-}" ]; then
    PYTHONUNBUFFERED=1 timeout 300 python3 bench/gpu/attn_bwd_peer.py "$BV_ATTN_TUTORIAL" > "$O/attn_bwd_peer.json"
    echo "attention backward peer rc=$?"
  else
    echo "skipped: set BV_ATTN_TUTORIAL to the path of Triton's python/tutorials/06-fused-attention.py"
  fi
fi
if has interp; then
  # The CPU side on this machine: blockvec's interpreter beside Triton's, on one core.
  echo "== interpreter peer (TRITON_INTERPRET=1)"
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/interp_peer.py --blockvec "$C/blockvec" --repeat 3 \
    > "$O/interp_peer.txt"; echo "interp peer rc=$?"; cat "$O/interp_peer.txt"
fi
summary() {
python3 - "$O" <<'PY'
import json, os, sys
o = sys.argv[1]
def load(name):
    try: return json.load(open(os.path.join(o, name)))
    except Exception as e: return None
cli, peer, ln = load("cli_bench.json"), load("peer.json"), load("ln_peer.json")
blk = load("block_peer.json")
abw = load("attn_bwd_peer.json")
if cli:
    print("blockvec bench --backend gpu: %s, %s, median of %d after %d warm-up, and back to back" % (cli["date"], cli["device"], cli["reps"], cli["warmup"]))
    for r in cli["results"]:
        if "error" in r: print("  %-28s FAILED %s" % (r["kernel"], r["error"])); continue
        print("  %-28s %-4s %-16s %9.4f ms  [%.4f, %.4f]  back to back %s  %6s TB/s %7s TFLOP/s  %s" % (
            r["kernel"], r["dtype"], r["shape"], r["median_ms"], r["min_ms"], r["max_ms"],
            "%.4f ms" % r["batch_ms"] if r.get("batch_ms") else "-",
            "%.2f" % r["TBps"] if r["TBps"] else "", "%.1f" % r["TFLOPs"] if r["TFLOPs"] else "", r["note"]))
    ok = [r for r in cli["results"] if "error" not in r]
    single = {r["kernel"]: r["median_ms"] * 1e-3 for r in ok}
    # Ours back to back where the binary measures it (the kernel's own time, as the peers' "back
    # to back" figures are), else the single launches' median.
    ours = {r["kernel"]: (r.get("batch_ms") or r["median_ms"]) * 1e-3 for r in ok}
    print("side by side (ratio = peer's time / ours; > 1: ours faster; both back to back, the kernels' own times; "
          "then ours by single launches against the same peer figure):")
    def side(name, k, theirs, torch=None, extra=""):
        if k in ours and theirs:
            print("  %-26s ours %.4f ms  triton %.4f ms  ratio %.2f  (ours single %.4f ms, ratio %.2f)%s%s" % (
                  name, ours[k] * 1e3, theirs * 1e3, theirs / ours[k], single[k] * 1e3, theirs / single[k],
                  "  torch %.4f ms" % (torch * 1e3) if torch else "", extra))
    if peer:
        p = peer["results"]
        if "copy_ceiling_TBps" in p:
            print("  peer copy ceiling %.2f TB/s (single copies), %s" % (p["copy_ceiling_TBps"],
                  "%.2f TB/s back to back" % p["copy_ceiling_batch_TBps"] if "copy_ceiling_batch_TBps" in p else "back to back not measured"))
            # Shares of the ceiling: ours back to back over the copy back to back, and ours single
            # over the copy single (each side's figures taken the same way).
            for r in ok:
                if r["bytes"] and not r["flops"] and r["kernel"] in ("add", "softmax", "rmsnorm", "layernorm"):
                    line = "    %-12s share of copy: single %.1f%%" % (r["kernel"], 100 * r["TBps"] / p["copy_ceiling_TBps"])
                    if r.get("batch_ms") and "copy_ceiling_batch_TBps" in p:
                        line += ", back to back %.1f%% (%.2f TB/s)" % (
                            100 * r["bytes"] / (r["batch_ms"] * 1e-3) / 1e12 / p["copy_ceiling_batch_TBps"],
                            r["bytes"] / (r["batch_ms"] * 1e-3) / 1e12)
                    print(line)
        # Triton's kernel time (back to back, events) makes the ratio; its single launches (events,
        # as ours: a Python launch delays the kernel inside them, and a long compute-bound kernel
        # runs at a higher clock alone than back to back) give the second ratio; the host clock
        # (with Python's launch) is shown as well.
        def vs_triton(name, k, r, torch):
            extra = ""
            if "triton_single" in r and k in ours:
                extra = "  (triton single %.4f ms, ratio to ours single %.2f; host clock %.4f ms)" % (
                    r["triton_single"] * 1e3, r["triton_single"] / single[k], r["triton_host"] * 1e3)
            if "triton_tuned" in r and k in ours:
                extra += "  (triton on its best tile %s: %.4f ms, ratio %.2f)" % (
                    r["tuned_config"], r["triton_tuned"] * 1e3, r["triton_tuned"] / ours[k])
            side(name, k, r["triton"], torch, extra)
        vs_triton("add", "add", p["add"], p["add"].get("torch"))
        vs_triton("softmax", "softmax", p["softmax"], p["softmax"].get("torch"))
        vs_triton("matmul f16", "matmul_f16", p["matmul"], p["matmul"].get("torch"))
        if "matmul_bf16" in p: vs_triton("matmul bf16", "matmul_f16@bf16", p["matmul_bf16"], p["matmul_bf16"].get("torch"))
        if "matmul_f32" in p:
            if "error" in p["matmul_f32"]: print("  matmul f32 peer failed: %s" % p["matmul_f32"]["error"])
            else: vs_triton("matmul f32 (no TF32)", "matmul", p["matmul_f32"], p["matmul_f32"].get("torch"))
        vs_triton("rmsnorm f16", "rmsnorm", p["rmsnorm"], p["rmsnorm"].get("torch_eager"))
        vs_triton("attention", "attention", p["attn"], p["attn"].get("torch"))
        for name, k, r in (("attention causal", "attention_causal", "attn_causal"), ("attention d128", "attention@d128", "attn_d128"),
                         ("attention causal d128", "attention_causal@d128", "attn_d128_causal")):
            if r in p: vs_triton(name, k, p[r], p[r].get("torch"))
    if abw and "results" in abw:
        for k, a in abw["results"].items():
            extra = ""
            if k in ours:
                extra = "  (triton single %.4f ms, ratio to ours single %.2f)" % (a["triton_single"] * 1e3, a["triton_single"] / single[k])
            side("attention bwd (tutorial)" + k[len("attention_bwd"):], k, a["triton"], None, extra)
    elif abw:
        print("  attention backward peer failed: %s" % abw.get("error"))
    if blk and "results" in blk:
        print("decoder block, forward + backward, f32 (ratio = PyTorch eager time / ours; single passes, then back to back):")
        for k, b in blk["results"].items():
            if k in ours:
                line = "  %-28s seq %d hidden %d ffn %d  ours %.3f ms  torch eager %.3f ms  ratio %.2f" % (
                    k, b["seq"], b["heads"] * b["head_dim"], b["ffn"], single[k] * 1e3,
                    b["torch_eager"] * 1e3, b["torch_eager"] / single[k])
                if "torch_eager_batch" in b:
                    line += ";  back to back: ours %.3f ms  torch eager %.3f ms  ratio %.2f" % (
                        ours[k] * 1e3, b["torch_eager_batch"] * 1e3, b["torch_eager_batch"] / ours[k])
                print(line)
    if ln:
        l = ln["layernorm"]
        if "layernorm" in ours:
            if "triton_batch" in l:
                side("layernorm", "layernorm", l["triton_batch"], l.get("torch_batch"), "  (peer: back to back)")
            side("layernorm", "layernorm", l["triton"], l["torch"], "  (peer: host clock)")
            if "triton_events" in l:
                side("layernorm", "layernorm", l["triton_events"], l.get("torch_events"),
                     "  (peer: single launches, events)")
PY
}
summary
if has conformance && [ -x "$C/conformance_gpu" ]; then
  echo "== the conformance suite (tests/lang/conformance: the interpreter's cases on the GPU)"
  timeout 120 "$C/conformance_gpu"; echo "conformance rc=$?"
fi
if has tests && [ -x "$C/bv_gpu_tests" ]; then
  echo "== GPU tests, one test case at a time (timeout ${BV_TEST_TIMEOUT:-40} s each)"
  "$C/bv_gpu_tests" -ltc 2>/dev/null | grep -E "^gpu |^backend" | grep -E "${BV_TEST_MATCH:-.}" > "$O/cases.txt"
  while IFS= read -r tc; do
    pat=$(printf '%s' "$tc" | sed 's/[][*?,\\]/?/g')
    timeout "${BV_TEST_TIMEOUT:-40}" stdbuf -oL "$C/bv_gpu_tests" -tc="$pat" > "$O/tc.txt" 2>&1; rc=$?
    res=$(grep -E "^\[doctest\] (test cases|assertions)" "$O/tc.txt" | tr -s ' ' | paste -sd' ')
    echo "rc=$rc  $tc :: $res"
    [ $rc -ne 0 ] && grep -E "ERROR|CHECK|values|logged|seed" "$O/tc.txt" | head -12
  done < "$O/cases.txt"
  rm -f "$O/tc.txt"
fi
if has runs && [ -x "$C/blockvec" ]; then
  echo "== blockvec run K --backend both (default sizes, seed 7)"
  pass=0; fail=0; failed=""
  for k in $("$C/blockvec" list | awk '{print $1}'); do
    timeout "${BV_RUN_TIMEOUT:-20}" "$C/blockvec" run "$k" --backend both --seed 7 > "$O/run.txt" 2>&1; rc=$?
    line=$(grep -E "^gpu  |gpu vs cpu|gpu result|no GPU entry|failed|needs" "$O/run.txt" | tr -s ' ' | paste -sd';' | cut -c1-170)
    printf '%-24s rc=%d  %s\n' "$k" "$rc" "$line"
    if [ $rc -eq 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); failed="$failed $k"; fi
  done
  rm -f "$O/run.txt"
  echo "cli runs: $pass passed, $fail not (${failed# })"
fi
if [ -x "$C/bv_gpu_bench" ]; then echo "== bench"; timeout 120 "$C/bv_gpu_bench"; fi
if [ -x "$C/bv_gpu_libbench" ]; then echo "== libbench"; timeout 120 "$C/bv_gpu_libbench"; fi
echo "done: $(date -u +%H:%M:%SZ)"
