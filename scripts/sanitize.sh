#!/usr/bin/env bash
# Checking the checker: builds the interpreter, its tests and the diagnostics corpus under
# AddressSanitizer + UndefinedBehaviorSanitizer (build-asan) and ThreadSanitizer (build-tsan), and
# runs them. Boost.Context switches stacks: under ASan the build uses Boost's ucontext fibers,
# which annotate switches themselves (BOOST_USE_ASAN + BOOST_USE_UCONTEXT, set by the root
# CMakeLists for BV_SANITIZE=address); under TSan scheduler.cpp announces every switch with
# __tsan_switch_to_fiber.
#   scripts/sanitize.sh [address|thread]...   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${BV_JOBS:-2}
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(address thread)
# Only the interpreter's own suites: the corpus, and the interpreter/lang tests when present.
targets=(test_diagnostics diag_exit_helper)
for t in interpreter lang; do [ -f "tests/$t/CMakeLists.txt" ] && targets+=("test_$t"); done
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    address) dir=build-asan ;;
    thread) dir=build-tsan ;;
    *) echo "sanitize.sh: unknown sanitizer '$kind' (address or thread)" >&2; exit 2 ;;
  esac
  echo "== $kind: configuring $dir"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBV_SANITIZE="$kind" \
    -DBV_BUILD_CLI=OFF "${launcher[@]}" >/dev/null
  echo "== $kind: building ${targets[*]}"
  cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  echo "== $kind: running"
  regex="^(diagnostics|exit|interpreter|lang)/"
  if ! (cd "$dir" && ctest -j "$jobs" --output-on-failure -R "$regex" --timeout 300); then
    echo "== $kind: FAILED" >&2
    status=1
  fi
done
exit $status
