#!/usr/bin/env bash
# The interpreter, the CLI and their tests must compile warning-free with clang as well as g++:
# clang-19 checks every translation unit (full semantic analysis, -Wall -Wextra -Werror) without
# generating code, two at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG=${CLANG:-clang++-19}
if ! command -v "$CLANG" >/dev/null; then
  echo "clang_check: $CLANG not found (scripts/setup.sh installs clang-19)" >&2
  exit 1
fi
flags=(-std=c++20 -Wall -Wextra -Werror -fsyntax-only -DEIGEN_STACK_ALLOCATION_LIMIT=0
       -I lang -I interpreter -I interpreter/src -I kernels -I cli -I gpu_backend -I tests/support
       -I /usr/include/eigen3)
files=(interpreter/src/*.cpp interpreter/src/checks/*.cpp cli/*.cpp tests/lang/*.cpp
       tests/interpreter/*.cpp)
printf '%s\n' "${files[@]}" | xargs -P 2 -I{} sh -c '"$0" "$@" {} || { echo "clang_check: {} FAILED"; exit 255; }' "$CLANG" "${flags[@]}"
echo "clang_check: ${#files[@]} translation units clean with $CLANG -Wall -Wextra"
