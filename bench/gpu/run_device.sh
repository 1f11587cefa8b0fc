#!/bin/bash
# One device run: the GPU tests, the GPU benches and the Triton peers, back to back on the same
# GPU. Builds nothing: expects prebuilt binaries (nvcc -arch=sm_90, static runtime: bv_gpu_tests,
# bv_gpu_bench, bv_gpu_libbench) and the peer script triton_peer.py in the carried folder $1
# (default .gpu-carry); the LayerNorm peer is bench/gpu/layernorm_peer.py. Writes logs to $OUT
# (or ./gpu-out).
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
echo "== tests"; "$C/bv_gpu_tests" > "$O/tests.txt" 2>&1; echo "tests rc=$?" | tee -a "$O/tests.txt"; grep -E "ERROR|FAILED|CHECK\(|values:|logged:|TEST CASE:" "$O/tests.txt" | head -60; tail -5 "$O/tests.txt"
echo "== bench"; "$C/bv_gpu_bench" 2>&1 | tee "$O/bench.txt"
for extra in "$C"/bv_gpu_bench_*; do  # variants (other build flags), if carried
  [ -x "$extra" ] || continue
  echo "== $(basename "$extra")"; "$extra" 2>&1 | grep -E "matmul|softmax|add|copy" | tee -a "$O/bench_variants.txt"
done
echo "== libbench"; "$C/bv_gpu_libbench" 2>&1 | tee "$O/libbench.txt"
echo "== layernorm peer"; PYTHONUNBUFFERED=1 timeout 200 python3 bench/gpu/layernorm_peer.py > "$O/ln_peer.json" 2> "$O/ln_peer.err"; echo "ln peer rc=$?"; tail -3 "$O/ln_peer.err"
echo "== peer"; PYTHONUNBUFFERED=1 timeout 300 python3 "$C/triton_peer.py" gpu > "$O/peer.json" 2> "$O/peer.err"; echo "peer rc=$?"
python3 - "$O" <<'PY'
import json, re, sys
o = sys.argv[1]
try:
    peer = json.load(open(o + "/peer.json"))["results"]
    line = [l for l in open(o + "/bench.txt") if l.startswith("BENCH_JSON")][0]
    b = json.loads(line[len("BENCH_JSON "):])
    p = json.load(open(o + "/peer.json"))
    print("peer copy ceiling TB/s %.2f" % p["results"]["copy_ceiling_TBps"])
    print("add    ours %.3f ms  triton %.3f ms  ratio(triton/ours) %.2f" % (b["add_s"]*1e3, peer["add"]["triton"]*1e3, peer["add"]["triton"]/b["add_s"]))
    print("softmax ours %.3f ms triton %.3f ms  ratio %.2f  torch %.3f ms" % (b["softmax_s"]*1e3, peer["softmax"]["triton"]*1e3, peer["softmax"]["triton"]/b["softmax_s"], peer["softmax"]["torch"]*1e3))
    print("matmul ours %.3f ms  triton %.3f ms  ratio %.2f  torch %.3f ms" % (b["matmul_s"]*1e3, peer["matmul"]["triton"]*1e3, peer["matmul"]["triton"]/b["matmul_s"], peer["matmul"]["torch"]*1e3))
except Exception as e:
    print("summary failed:", e)
try:
    peer = json.load(open(o + "/peer.json"))["results"]
    line = [l for l in open(o + "/libbench.txt") if l.startswith("BENCH_LIB_JSON")][0]
    b = json.loads(line[len("BENCH_LIB_JSON "):])
    ln = json.load(open(o + "/ln_peer.json"))["layernorm"]
    print("rmsnorm f16 ours %.3f ms  triton %.3f ms  ratio(triton/ours) %.2f  torch %.3f ms" % (b["rmsnorm_s"]*1e3, peer["rmsnorm"]["triton"]*1e3, peer["rmsnorm"]["triton"]/b["rmsnorm_s"], peer["rmsnorm"]["torch_eager"]*1e3))
    print("layernorm f16 ours %.3f ms  triton %.3f ms  ratio %.2f  torch %.3f ms" % (b["layernorm_s"]*1e3, ln["triton"]*1e3, ln["triton"]/b["layernorm_s"], ln["torch"]*1e3))
    print("attn f16 ours %.3f ms  triton %.3f ms  ratio %.2f  torch sdpa %.3f ms  (ours causal %.3f ms)" % (b["attn_s"]*1e3, peer["attn"]["triton"]*1e3, peer["attn"]["triton"]/b["attn_s"], peer["attn"]["torch"]*1e3, b["attn_causal_s"]*1e3))
except Exception as e:
    print("lib summary failed:", e)
PY
