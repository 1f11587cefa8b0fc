#!/bin/bash
# Device-only AMD builds of every kernel launcher (gpu_backend/src/host_api.cu) and the ISA
# check: hipcc (Debian's HIP 5.2, clang-15) for gfx90a and gfx940, clang-19 for gfx942.
# usage: gpu_backend/scripts/isa_build.sh BUILD_DIR [REPORT.md]
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
B=${1:?usage: isa_build.sh BUILD_DIR [REPORT.md]}
REPORT=${2:-$B/isa_report.md}
HIPCC=${BV_HIPCC:-$(command -v hipcc || true)}
CLANG19=${BV_CLANG19:-$(command -v clang++-19 || true)}
mkdir -p "$B"
FLAGS=(-std=c++20 -x hip --cuda-device-only -O3 -S -I"$SRC/gpu_backend" -I"$SRC/lang" -I"$SRC/kernels"
       -Wno-unused-command-line-argument)
pids=() inputs=() info=()
# host_api.cu: the kernels with GPU launchers and tests (strict); coverage.cu: the rest of kernels/.
if [ -n "$HIPCC" ]; then
  for arch in gfx90a gfx940; do
    "$HIPCC" "${FLAGS[@]}" --offload-arch=$arch "$SRC/gpu_backend/src/host_api.cu" -o "$B/$arch.s" &
    pids+=($!); inputs+=("$arch=$B/$arch.s")
    "$HIPCC" "${FLAGS[@]}" --offload-arch=$arch "$SRC/gpu_backend/src/coverage.cu" -o "$B/$arch.coverage.s" &
    pids+=($!); info+=(--informational "$arch=$B/$arch.coverage.s")
  done
else
  echo "hipcc not found: gfx90a/gfx940 not checked" >&2
fi
if [ -n "$CLANG19" ]; then
  "$CLANG19" "${FLAGS[@]}" --offload-arch=gfx942 -nogpulib \
    "$SRC/gpu_backend/src/host_api.cu" -o "$B/gfx942.s" &
  pids+=($!); inputs+=("gfx942=$B/gfx942.s")
  "$CLANG19" "${FLAGS[@]}" --offload-arch=gfx942 -nogpulib \
    "$SRC/gpu_backend/src/coverage.cu" -o "$B/gfx942.coverage.s" &
  pids+=($!); info+=(--informational "gfx942=$B/gfx942.coverage.s")
else
  echo "clang++-19 not found: gfx942 not checked" >&2
fi
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ $status -eq 0 ] || { echo "a device-only build failed (see above)"; exit 1; }
[ ${#inputs[@]} -gt 0 ] || { echo "no HIP compiler found"; exit 77; }
python3 "$SRC/gpu_backend/scripts/isa_check.py" --report "$REPORT" "${inputs[@]}" "${info[@]}"
