#!/bin/bash
# Builds the blockvec command and bv_gpu_tests with the GPU backend (nvcc) so that they run on a
# machine with a GPU and no Debian packages (the device machine: Ubuntu 24.04, CUDA 13): CUDA's
# static runtime, Boost.Context and SQLite as static archives, fmt header-only, libstdc++ and
# libgcc static. Both binaries link the same nvcc objects (libblockvec_gpu).
# usage: gpu_backend/scripts/build_cli_gpu.sh OUTDIR [BUILD_DIR]
#   BUILD_DIR: a CMake build configured here if it has no CMakeCache.txt (default build-gpuB).
#   JOBS: parallel jobs (default 2; the nvcc units are the slow part, a few minutes each).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: build_cli_gpu.sh OUTDIR [BUILD_DIR]}
B=${2:-build-gpuB}
LIBDIR=${BV_LIBDIR:-/usr/lib/x86_64-linux-gnu}
LAUNCHER=()
if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$B/CMakeCache.txt" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" \
    -DBV_GPU_NVCC=ON -DBV_STATIC_DEPS=ON -DBoost_USE_STATIC_LIBS=ON \
    -DSQLite3_LIBRARY="$LIBDIR/libsqlite3.a" \
    "-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc" -DBV_BUILD_UI=OFF
fi
nice -n 10 ninja -C "$B" -j "${JOBS:-2}" blockvec bv_gpu_tests
mkdir -p "$OUT"
cp "$B/cli/blockvec" "$B/tests/gpu/bv_gpu_tests" "$OUT/"
# The conformance suite's GPU runner (tests/lang/conformance_gpu.cu): one nvcc translation unit,
# six minutes on two cores, so it is rebuilt only when a file it includes (nvcc -M) or its command
# changed since the OUTDIR's copy was built.
NVCC=$(grep -m1 '^BV_NVCC:' "$B/CMakeCache.txt" | cut -d= -f2)
ARCH=$(grep -m1 '^BV_CUDA_ARCH:' "$B/CMakeCache.txt" | cut -d= -f2)
CONF=(-std=c++20 -arch="$ARCH" -O3 --expt-relaxed-constexpr -diag-suppress 20012,554
      -Igpu_backend -Ilang -Ikernels -Itests/lang tests/lang/conformance_gpu.cu)
stamp=$( { echo "$NVCC ${CONF[*]}"; "$NVCC" "${CONF[@]}" -M | sed '1s/^[^:]*://' |
           tr ' \\' '\n\n' | grep . | sort -u | xargs sha256sum; } | sha256sum | cut -d' ' -f1)
if [ -x "$OUT/conformance_gpu" ] && [ "$(cat "$OUT/.conformance_gpu.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "conformance_gpu: its sources are unchanged since $OUT/conformance_gpu was built; kept"
else
  "$NVCC" "${CONF[@]}" -o "$OUT/conformance_gpu" \
    "$(dirname "$NVCC")/../lib64/libcudart_static.a" -ldl -lpthread -lrt -Xcompiler -static-libstdc++ \
    -Xcompiler -static-libgcc
  echo "$stamp" > "$OUT/.conformance_gpu.stamp"
fi
for f in "$B"/gpu_backend/*.ptxas.txt; do
  if grep -q "[1-9][0-9]* bytes spill" "$f"; then
    echo "note: ptxas reports spills in $(basename "$f" .ptxas.txt) (see $f)" >&2
  fi
done
# Only the C library's own parts may stay shared.
for b in "$OUT/blockvec" "$OUT/bv_gpu_tests" "$OUT/conformance_gpu"; do
  extra=$(ldd "$b" | awk '{print $1}' | grep -vE '^(linux-vdso|/lib64/ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so)' || true)
  if [ -n "$extra" ]; then echo "error: $b needs shared libraries the GPU machine lacks: $extra" >&2; exit 1; fi
done
echo "built $OUT/blockvec, $OUT/bv_gpu_tests and $OUT/conformance_gpu (GPU backend: $(grep -m1 BV_CUDA_ARCH: "$B/CMakeCache.txt" | cut -d= -f2))"
