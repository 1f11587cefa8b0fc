#!/bin/bash
# Program-id conditions, checked by compiling (no GPU needed):
#   1. condition_device.cu, the GPU side of condition_cases.hpp's table as static_asserts, with
#      every GPU compiler found: nvcc -arch=sm_90a (a full compile), hipcc --offload-arch=gfx90a
#      and clang++-19 --offload-arch=gfx942 (device only: the front end over the whole table, then
#      code for a few kernels);
#   2. every malformed literal of the table, through print_if and breakpoint_if, must not compile
#      on each of those compilers nor on the interpreter (the host C++ compiler), with an error at
#      the line of each use. g++ and clang name the reason (malformed_program_id_condition__...).
#      nvcc does not enforce consteval in device code as the standard says: it rejects the
#      literal anyway, but with --expt-relaxed-constexpr (the tree's flag) only as an internal
#      LLVM error with no line, and without it as "cond_literal ... is undefined in device code"
#      at each use; both are checked.
# usage: condition_compile.sh WORK_DIR
# env: CXX (the host compiler, required), EIGEN_INC (Eigen's include directory), BV_NVCC,
# BV_HIPCC, BV_CLANG19 (empty: not checked).
# Exit 77 (ctest: skipped) when no GPU compiler is found and the host check passed.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
W=${1:?usage: condition_compile.sh WORK_DIR}
CXX=${CXX:?set CXX to the host C++ compiler}
mkdir -p "$W"
INC=(-I"$SRC/gpu_backend" -I"$SRC/lang" -I"$SRC/kernels" -I"$SRC/tests/lang")
HIP_FLAGS=(-std=c++20 -x hip --cuda-device-only -Wno-unused-command-line-argument "${INC[@]}")
NV_FLAGS=(-std=c++20 -arch=sm_90a --expt-relaxed-constexpr -diag-suppress 20012 "${INC[@]}")
status=0

# The malformed literals, as written in the table (none holds a quote or a backslash).
mapfile -t bad < <(sed -n '/^#define BV_COND_MALFORMED/,$p' "$SRC/tests/lang/condition_cases.hpp" |
                   grep -o 'X("[^"]*"' | sed 's/^X(//')
[ ${#bad[@]} -ge 10 ] || { echo "found only ${#bad[@]} malformed rows in condition_cases.hpp"; exit 1; }

# gen FILE PRELUDE FUNCTION: after the prelude, one function per line, each with one use of one
# malformed literal (FUNCTION's @N@ is a serial number, @USE@ the use); `lines` gets their numbers.
gen() {
  local out=$1 fn=$3 n=0 line
  printf '%s\n' "$2" >"$out"
  lines=()
  for lit in "${bad[@]}"; do
    for use in "bv::print_if(p, $lit, \"x\", 1);" "bv::breakpoint_if(p, $lit);"; do
      n=$((n + 1))
      line=${fn//@N@/"$n"}
      printf '%s\n' "${line//@USE@/"$use"}" >>"$out"
      lines+=("$(wc -l <"$out")")
    done
  done
}

# expect_rejected NAME FILE REASON COMMAND...: the command must fail, its output must match the
# regex REASON, and it must report an error at every line in `lines`.
expect_rejected() {
  local name=$1 file=$2 reason=$3 log="$W/$1.rejected.log"
  shift 3
  if "$@" >"$log" 2>&1; then
    echo "FAIL $name: the malformed literals compiled"; status=1; return
  fi
  if ! grep -Eq "$reason" "$log"; then
    echo "FAIL $name: the errors do not say '$reason' (see $log)"; status=1; return
  fi
  local base missing=()
  base=$(basename "$file")
  for l in "${lines[@]}"; do
    grep -Eq "$base(:$l:|\($l\))" "$log" || missing+=("$(sed -n "${l}p" "$file")")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "FAIL $name: no error for ${#missing[@]} use(s), e.g. ${missing[0]} (see $log)"; status=1
    return
  fi
  echo "ok   $name: ${#lines[@]} uses of ${#bad[@]} malformed literals rejected"
}

expect_compiles() {
  local name=$1 log="$W/$1.log"
  shift
  if "$@" >"$log" 2>&1; then echo "ok   $name"; else
    echo "FAIL $name:"; grep -v 'rocm_agent_enumerator\|^Traceback\|^  File\|^    \|main()' "$log" |
      cut -c1-400 | head -30; status=1
  fi
}

# The interpreter.
gen "$W/bad_cpu.cpp" '#include "bv/bv.hpp"' 'void f@N@(const bv::program<4>& p) { @USE@ }'
checked='malformed_program_id_condition__'
expect_rejected cpu "$W/bad_cpu.cpp" "$checked" "$CXX" -std=c++20 -fsyntax-only -I"$SRC/lang" \
  -I"$SRC/interpreter" -I"$SRC/kernels" ${EIGEN_INC:+-I"$EIGEN_INC"} "$W/bad_cpu.cpp"

gpu_prelude=$'#include <cstdio>\n#include "bv/bv.hpp"'
gpu_fn='__global__ void f@N@() { const bv::program<4> p{}; @USE@ }'
found=0
if [ -n "${BV_NVCC:-}" ]; then
  found=1
  expect_compiles nvcc_sm_90a "$BV_NVCC" "${NV_FLAGS[@]}" -c "$SRC/tests/lang/condition_device.cu" \
    -o "$W/condition_device.sm_90a.o"
  gen "$W/bad_nv.cu" "$gpu_prelude" "$gpu_fn"
  nv_plain=()
  for f in "${NV_FLAGS[@]}"; do [ "$f" = --expt-relaxed-constexpr ] || nv_plain+=("$f"); done
  expect_rejected nvcc_sm_90a "$W/bad_nv.cu" 'cond_literal.*is undefined in device code' \
    "$BV_NVCC" "${nv_plain[@]}" -c "$W/bad_nv.cu" -o "$W/bad_nv.o"
  # With the tree's flags the same file fails too, in LLVM, without naming a line.
  if "$BV_NVCC" "${NV_FLAGS[@]}" -c "$W/bad_nv.cu" -o "$W/bad_nv.o" >"$W/bad_nv.relaxed.log" 2>&1
  then
    echo "FAIL nvcc_sm_90a (relaxed constexpr): the malformed literals compiled"; status=1
  else
    echo "ok   nvcc_sm_90a (relaxed constexpr): the malformed literals do not compile"
  fi
fi
hip_check() {  # $1 name, $2 compiler, rest: its target flags
  local name=$1 cc=$2
  shift 2
  expect_compiles "$name.front_end" "$cc" "${HIP_FLAGS[@]}" "$@" -fsyntax-only \
    -DBV_CONDITION_SYNTAX_ONLY=1 "$SRC/tests/lang/condition_device.cu"
  expect_compiles "$name" "$cc" "${HIP_FLAGS[@]}" "$@" -O3 -S \
    "$SRC/tests/lang/condition_device.cu" -o "$W/condition_device.$name.s"
  gen "$W/bad_$name.hip" "$gpu_prelude" "$gpu_fn"
  expect_rejected "$name" "$W/bad_$name.hip" "$checked" "$cc" "${HIP_FLAGS[@]}" "$@" -fsyntax-only \
    -ferror-limit=0 "$W/bad_$name.hip"
}
if [ -n "${BV_HIPCC:-}" ]; then
  found=1
  hip_check hipcc_gfx90a "$BV_HIPCC" --offload-arch=gfx90a
fi
if [ -n "${BV_CLANG19:-}" ]; then
  found=1
  hip_check clang19_gfx942 "$BV_CLANG19" --offload-arch=gfx942 -nogpulib
fi

[ $status -eq 0 ] || exit 1
[ $found -eq 1 ] || { echo "no GPU compiler found (nvcc, hipcc, clang++-19): GPU side not checked"; exit 77; }
