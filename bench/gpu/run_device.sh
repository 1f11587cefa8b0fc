#!/bin/bash
# One device run: the GPU tests, the blockvec CLI on the GPU (every kernel with --backend both,
# then bench --backend gpu), the older bench binaries if carried, and the Triton peers, back to
# back on the same GPU. Builds nothing: expects prebuilt binaries in the carried folder $1
# (default .gpu-carry): bv_gpu_tests and blockvec from gpu_backend/scripts/build_cli_gpu.sh
# (nvcc -arch=sm_90, static runtime), optionally bv_gpu_bench / bv_gpu_libbench from
# build_nvcc.sh, and the peer script triton_peer.py; the LayerNorm peer is
# bench/gpu/layernorm_peer.py. Writes logs to $OUT (or ./gpu-out).
# Environment: BV_SKIP_TESTS=1, BV_SKIP_RUNS=1 skip those parts; BV_BENCH_ARGS adds arguments to
# `blockvec bench --backend gpu` (default --variants).
set -u
C=${1:-.gpu-carry}
O=${OUT:-gpu-out}
mkdir -p "$O"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvcc --version 2>/dev/null | tail -1
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
} 2>&1 | tee "$O/env.txt"
if [ -x "$C/bv_gpu_tests" ] && [ -z "${BV_SKIP_TESTS:-}" ]; then
  echo "== tests"; "$C/bv_gpu_tests" > "$O/tests.txt" 2>&1; echo "tests rc=$?" | tee -a "$O/tests.txt"
  grep -E "ERROR|FAILED|CHECK\(|values:|logged:|TEST CASE:" "$O/tests.txt" | head -60; tail -4 "$O/tests.txt"
fi
if [ -x "$C/blockvec" ]; then
  if [ -z "${BV_SKIP_RUNS:-}" ]; then
    echo "== blockvec run K --backend both (default sizes, seed 7)"
    : > "$O/cli_runs.txt"
    pass=0; fail=0; failed=""
    for k in $("$C/blockvec" list | awk '{print $1}'); do
      "$C/blockvec" run "$k" --backend both --seed 7 > "$O/run_$k.txt" 2>&1; rc=$?
      { echo "### $k rc=$rc"; cat "$O/run_$k.txt"; } >> "$O/cli_runs.txt"
      line=$(grep -E "^gpu  |gpu vs cpu|gpu result|no GPU entry|failed|needs" "$O/run_$k.txt" | tr -s ' ' | paste -sd';' | cut -c1-150)
      printf '%-24s rc=%d  %s\n' "$k" "$rc" "$line"
      if [ $rc -eq 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); failed="$failed $k"; fi
      rm -f "$O/run_$k.txt"
    done
    echo "cli runs: $pass passed, $fail not (${failed# })"
  fi
  echo "== blockvec bench --backend gpu"
  "$C/blockvec" bench --backend gpu ${BV_BENCH_ARGS:---variants} --json > "$O/cli_bench.json" 2> "$O/cli_bench.err"
  echo "cli bench rc=$?"; grep -v "^  .* \.\.\.$" "$O/cli_bench.err" | tail -3
fi
if [ -x "$C/bv_gpu_bench" ]; then echo "== bench"; "$C/bv_gpu_bench" 2>&1 | tee "$O/bench.txt"; fi
if [ -x "$C/bv_gpu_libbench" ]; then echo "== libbench"; "$C/bv_gpu_libbench" 2>&1 | tee "$O/libbench.txt"; fi
echo "== layernorm peer"; PYTHONUNBUFFERED=1 timeout 200 python3 bench/gpu/layernorm_peer.py > "$O/ln_peer.json" 2> "$O/ln_peer.err"; echo "ln peer rc=$?"; tail -3 "$O/ln_peer.err"
if [ -f "$C/triton_peer.py" ]; then
  echo "== peer"; PYTHONUNBUFFERED=1 timeout 300 python3 "$C/triton_peer.py" gpu > "$O/peer.json" 2> "$O/peer.err"; echo "peer rc=$?"
fi
python3 - "$O" <<'PY'
import json, os, sys
o = sys.argv[1]
def load(name):
    try: return json.load(open(os.path.join(o, name)))
    except Exception as e: print("(no %s: %s)" % (name, e)); return None
cli, peer, ln = load("cli_bench.json"), load("peer.json"), load("ln_peer.json")
if cli:
    print("blockvec bench --backend gpu: %s, %s, median of %d after %d warm-up" % (cli["date"], cli["device"], cli["reps"], cli["warmup"]))
    for r in cli["results"]:
        if "error" in r: print("  %-28s FAILED %s" % (r["kernel"], r["error"])); continue
        print("  %-28s %-4s %-16s %9.4f ms  [%.4f, %.4f]  %6s TB/s %7s TFLOP/s  %s" % (
            r["kernel"], r["dtype"], r["shape"], r["median_ms"], r["min_ms"], r["max_ms"],
            "%.2f" % r["TBps"] if r["TBps"] else "", "%.1f" % r["TFLOPs"] if r["TFLOPs"] else "", r["note"]))
    ours = {r["kernel"]: r["median_ms"] * 1e-3 for r in cli["results"] if "error" not in r}
    print("side by side (ratio = Triton time / ours; > 1: ours faster):")
    def side(name, k, theirs, torch=None, extra=""):
        if k in ours and theirs:
            print("  %-12s ours %.4f ms  triton %.4f ms  ratio %.2f%s%s" % (name, ours[k] * 1e3, theirs * 1e3, theirs / ours[k],
                  "  torch %.4f ms" % (torch * 1e3) if torch else "", extra))
    if peer:
        p = peer["results"]
        if "copy_ceiling_TBps" in p: print("  peer copy ceiling %.2f TB/s" % p["copy_ceiling_TBps"])
        side("add", "add", p["add"]["triton"], p["add"].get("torch"))
        side("softmax", "softmax", p["softmax"]["triton"], p["softmax"].get("torch"))
        side("matmul f16", "matmul_f16", p["matmul"]["triton"], p["matmul"].get("torch"))
        side("rmsnorm f16", "rmsnorm", p["rmsnorm"]["triton"], p["rmsnorm"].get("torch_eager"))
        side("attention", "attention", p["attn"]["triton"], p["attn"].get("torch"))
    if ln:
        l = ln["layernorm"]
        for k in sorted(x for x in ours if x == "layernorm" or x.startswith("layernorm@")):
            side(k, k, l["triton"], l["torch"], "  (host clock)")
            if "triton_events" in l:
                side(k, k, l["triton_events"], l.get("torch_events"), "  (events, as ours)")
PY
