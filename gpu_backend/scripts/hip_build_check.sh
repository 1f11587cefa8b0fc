#!/bin/bash
# The HIP build on a machine without an AMD GPU (CI): configures this tree with -DBV_GPU_HIP=ON in
# BUILD_DIR, builds its GPU programs, checks their fat binaries (hip_fatbin_check.py) and runs
# them, each of which must say that no GPU was found and exit as it does in the NVIDIA build:
#   conformance_gpu      77, "no GPU found"
#   readme_example_hip   not 0 (an uncaught bv::gpu::error), "blockvec GPU: no GPU device found"
#   hip_link_probe       77, "no GPU device found" (all of libblockvec_gpu linked, --whole-archive)
#   bv_gpu_tests         (BV_HIP_BUILD_ALL=1) 77, "SKIPPED: GPU tests need a GPU: no GPU device found"
#   blockvec             (BV_HIP_BUILD_ALL=1) run add --backend gpu: 1, "no GPU device found"
# The default set compiles every GPU translation unit and links all of them, but none of the
# host-only code (the interpreter, bv_gpu_tests' and the command's sources), which the main build
# compiles anyway: about half the cost.
# usage: gpu_backend/scripts/hip_build_check.sh BUILD_DIR
#   BV_HIPCC, BV_CLANG19: the compilers (default: from PATH); JOBS: parallel jobs (default 2);
#   BV_HIP_BUILD_ALL=1: build and run bv_gpu_tests and the blockvec command too.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
B=${1:?usage: hip_build_check.sh BUILD_DIR}
HIPCC=${BV_HIPCC:-$(command -v hipcc || true)}
CLANG19=${BV_CLANG19:-$(command -v clang++-19 || true)}
if [ -z "$HIPCC" ]; then echo "hipcc not found: no HIP build to check"; exit 77; fi
ARCHS="gfx90a;gfx942"  # the default BLOCKVEC_HIP_ARCHS
start=$(date +%s)
if [ ! -f "$B/CMakeCache.txt" ]; then
  LAUNCHER=()
  if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$SRC" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" -DBV_GPU_HIP=ON \
    -DBV_BUILD_UI=OFF "-DBLOCKVEC_HIP_ARCHS=$ARCHS" -DBV_HIPCC="$HIPCC" ${CLANG19:+-DBV_CLANG19="$CLANG19"} >"$B.configure.log" 2>&1 \
    || { cat "$B.configure.log"; exit 1; }
  grep "blockvec HIP build" "$B.configure.log" || true
fi
targets=(conformance_gpu readme_example_hip hip_link_probe)
if [ "${BV_HIP_BUILD_ALL:-0}" = 1 ]; then targets+=(bv_gpu_tests blockvec); fi
nice -n 10 ninja -C "$B" -j "${JOBS:-2}" "${targets[@]}" >"$B.build.log" 2>&1 \
  || { grep -vE '^\[[0-9]+/[0-9]+\] ' "$B.build.log" | tail -60; echo "error: the HIP build failed (log: $B.build.log)"; exit 1; }
echo "built ${targets[*]} in $(( $(date +%s) - start )) s"

BUNDLER=$("$HIPCC" -print-prog-name=clang-offload-bundler 2>/dev/null)
NM=$(dirname "$BUNDLER")/llvm-nm
[ -x "$NM" ] || NM=$(command -v llvm-nm)
python3 "$SRC/gpu_backend/scripts/hip_fatbin_check.py" --bundler "$BUNDLER" --nm "$NM" \
  --archs "${ARCHS//;/,}" "$B"

fail=0
# expect NAME STATUS TEXT CMD...: CMD must exit with STATUS ("nonzero": anything but 0) and print TEXT.
expect() {
  local name=$1 want=$2 text=$3
  shift 3
  local out rc=0
  out=$(env -u BV_INTERPRET "$@" 2>&1) || rc=$?
  if { [ "$want" = nonzero ] && [ $rc -ne 0 ]; } || [ "$rc" = "$want" ]; then
    if grep -qF -- "$text" <<<"$out"; then
      echo "$name: exit $rc, \"$text\""
      return
    fi
  fi
  echo "error: $name: expected exit $want and \"$text\", got exit $rc:" >&2
  sed 's/^/  | /' <<<"$out" >&2
  fail=1
}
expect conformance_gpu 77 "conformance_gpu: no GPU found" "$B/tests/gpu/conformance_gpu"
expect readme_example_hip nonzero "blockvec GPU: no GPU device found" "$B/tests/gpu/readme_example_hip"
expect hip_link_probe 77 "hip_link_probe: no GPU: no GPU device found" "$B/tests/gpu/hip_link_probe"
bins=("$B/tests/gpu/conformance_gpu" "$B/tests/gpu/readme_example_hip" "$B/tests/gpu/hip_link_probe")
if [ "${BV_HIP_BUILD_ALL:-0}" = 1 ]; then
  expect bv_gpu_tests 77 "SKIPPED: GPU tests need a GPU: no GPU device found" "$B/tests/gpu/bv_gpu_tests"
  expect "blockvec run add --backend gpu" 1 "no GPU device found" "$B/cli/blockvec" run add --backend gpu
  bins+=("$B/tests/gpu/bv_gpu_tests" "$B/cli/blockvec")
fi
# Every program links the HIP runtime (not the stub that a build without a GPU backend has).
for b in "${bins[@]}"; do
  deps=$(ldd "$b")  # not piped into grep -q, whose early exit would fail the pipe under pipefail
  grep -q libamdhip64 <<<"$deps" || { echo "error: $b does not link libamdhip64" >&2; fail=1; }
done
echo "HIP build checked in $(( $(date +%s) - start )) s"
exit $fail
