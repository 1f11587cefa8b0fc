#!/bin/bash
# Device-only AMD builds of every launch configuration the kernels declare for AMD targets
# (gpu_backend/src/coverage.cu) and the ISA check on them (isa_check.py): gfx942 with clang-19,
# gfx90a with hipcc (Debian's HIP 5.2, clang-15). Every kernel is checked strictly: a spill or
# scratch use in any declared configuration fails, except the known ones that
# isa_known_spills.txt lists with their counts (more fails; so does an entry that is fixed). A
# declared configuration whose LDS exceeds 64 KiB fails the device-only build itself.
# usage: gpu_backend/scripts/isa_build.sh BUILD_DIR [REPORT.md]
#   BV_ISA_ARCHS="gfx942 gfx90a" (default both) picks the targets; BV_HIPCC, BV_CLANG19 the compilers.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
B=${1:?usage: isa_build.sh BUILD_DIR [REPORT.md]}
REPORT=${2:-$B/isa_report.md}
HIPCC=${BV_HIPCC:-$(command -v hipcc || true)}
CLANG19=${BV_CLANG19:-$(command -v clang++-19 || true)}
ARCHS=${BV_ISA_ARCHS:-gfx942 gfx90a}
mkdir -p "$B"
FLAGS=(-std=c++20 -x hip --cuda-device-only -O3 -S -I"$SRC/gpu_backend" -I"$SRC/lang" -I"$SRC/kernels"
       -Wno-unused-command-line-argument)
TU="$SRC/gpu_backend/src/coverage.cu"
pids=() inputs=()
for arch in $ARCHS; do
  case $arch in
    gfx942)
      # Debian's HIP 5.2 does not know gfx942; clang-19 without its device libraries does.
      [ -n "$CLANG19" ] || { echo "clang++-19 not found: gfx942 not checked" >&2; continue; }
      "$CLANG19" "${FLAGS[@]}" --offload-arch=gfx942 -nogpulib "$TU" -o "$B/gfx942.s" &;;
    gfx90a)
      [ -n "$HIPCC" ] || { echo "hipcc not found: gfx90a not checked" >&2; continue; }
      "$HIPCC" "${FLAGS[@]}" --offload-arch=gfx90a "$TU" -o "$B/gfx90a.s" &;;
    *)
      echo "isa_build.sh: unknown target '$arch' (gfx942 or gfx90a)" >&2; exit 2;;
  esac
  pids+=($!); inputs+=("$arch=$B/$arch.s")
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ $status -eq 0 ] || { echo "a device-only build failed (see above)"; exit 1; }
[ ${#inputs[@]} -gt 0 ] || { echo "no HIP compiler found"; exit 77; }
python3 "$SRC/gpu_backend/scripts/isa_check.py" --report "$REPORT" \
  --known "$SRC/gpu_backend/scripts/isa_known_spills.txt" "${inputs[@]}"
