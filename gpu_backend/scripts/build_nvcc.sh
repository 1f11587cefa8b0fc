#!/bin/bash
# Builds the GPU binaries that travel to an NVIDIA machine with no Debian packages: nvcc
# -arch=sm_90a (wgmma) for the GPU translation units, the CPU parts with the host compiler,
# everything Debian provides linked statically (Boost.Context, SQLite, libstdc++; CUDA's static
# runtime).
# usage: gpu_backend/scripts/build_nvcc.sh OUTDIR [INTERP_BUILD_DIR]
#   OUTDIR gets bv_gpu_tests (GPU vs interpreter vs reference), bv_gpu_bench (add, copy, softmax,
#   matmul) and bv_gpu_libbench (RMSNorm, LayerNorm, attention). The blockvec command with the GPU
#   backend (and the same bv_gpu_tests) comes from build_cli_gpu.sh.
#   INTERP_BUILD_DIR: a CMake build of this project holding interpreter/libblockvec.a
#   (default build-gpu; built here with `ninja blockvec_interp` if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: build_nvcc.sh OUTDIR [INTERP_BUILD_DIR]}
B=${2:-build-gpu}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
ARCH=${BV_CUDA_ARCH:-sm_90a}
mkdir -p "$OUT" "$B/gpu_obj"
NVFLAGS=(-std=c++20 -arch="$ARCH" -O3 --expt-relaxed-constexpr -diag-suppress 20012
         -Igpu_backend -Ilang -Ikernels)
if [ ! -f "$B/interpreter/libblockvec.a" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBV_BUILD_TESTS=OFF -DBV_BUILD_CLI=OFF
fi
ninja -C "$B" blockvec_interp
# The host-API translation units (and the device bench's driver) compile two at a time.
TUS="host_api host_api_rows host_api_products host_api_backward host_api_attention host_api_block bench"
printf '%s\n' $TUS | xargs -P "${JOBS:-2}" -I{} sh -c \
  '"$0" "$@" -Xptxas -v -c gpu_backend/src/{}.cu -o "'"$B"'/gpu_obj/{}.o" 2> "'"$B"'/gpu_obj/{}.ptxas.txt" || { cat "'"$B"'/gpu_obj/{}.ptxas.txt" >&2; exit 255; }' \
  "$NVCC" "${NVFLAGS[@]}"
for f in "$B"/gpu_obj/*.ptxas.txt; do
  if grep -q "[1-9][0-9]* bytes spill" "$f"; then
    echo "warning: ptxas reports spills (see $f)" >&2
  fi
done
g++ -std=c++20 -O2 -DEIGEN_STACK_ALLOCATION_LIMIT=0 -Ilang -Iinterpreter -Ikernels -Igpu_backend \
  -Itests/support -I/usr/include/eigen3 -c tests/gpu/gpu_tests.cpp -o "$B/gpu_obj/gpu_tests.o"
CUDA_LIB=$(dirname "$NVCC")/../lib64
g++ -o "$OUT/bv_gpu_tests" "$B/gpu_obj/gpu_tests.o" $(for t in $TUS; do echo "$B/gpu_obj/$t.o"; done) \
  "$B/interpreter/libblockvec.a" /usr/lib/x86_64-linux-gnu/libboost_context.a \
  /usr/lib/x86_64-linux-gnu/libsqlite3.a -L"$CUDA_LIB" -lcudart_static -ldl -lpthread -lrt \
  -static-libstdc++ -static-libgcc
"$NVCC" "${NVFLAGS[@]}" -o "$OUT/bv_gpu_bench" bench/gpu/bench_gpu.cu &
p1=$!
"$NVCC" "${NVFLAGS[@]}" -o "$OUT/bv_gpu_libbench" bench/gpu/bench_gpu_lib.cu &
p2=$!
wait $p1 && wait $p2
echo "built $OUT/bv_gpu_tests, $OUT/bv_gpu_bench and $OUT/bv_gpu_libbench for $ARCH"
