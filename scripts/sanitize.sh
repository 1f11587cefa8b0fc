#!/usr/bin/env bash
# Checking the checker: builds the interpreter and its test suites under AddressSanitizer +
# UndefinedBehaviorSanitizer (build-asan) and ThreadSanitizer (build-tsan), and runs them. Exits
# non-zero if a build fails or any test fails (a sanitizer report fails the test that triggered it).
#
# Boost.Context stays on Debian's fcontext build (its ucontext fibers need symbols that library
# lacks); interpreter/src/scheduler.cpp announces every stack switch to both sanitizers itself.
#
#   scripts/sanitize.sh [address|thread]...   (default: both)
#
# Budget (CI: 2 cores, ~6-8 minutes per sanitizer): -O1 with line tables only and only the test
# binaries each sanitizer runs. ASan: tests/interpreter, the corpus, tests/lang and the first
# kernels' tests (tests/kernels/CMakeLists.txt); BV_SAN_FULL=1 adds every kernel test. TSan:
# tests/interpreter (the scheduler's tests) and the corpus, whose every case also runs under the
# parallel schedule on 2 threads; the language and kernel tests add no threading of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${BV_JOBS:-2}
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(address thread)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    address)
      dir=build-asan
      targets=(test_interpreter test_diagnostics diag_exit_helper test_lang readme_example test_kernels_seed)
      regex="^(interpreter|diagnostics|lang|kernels-seed)/"
      if [ "${BV_SAN_FULL:-0}" = 1 ]; then
        targets+=(test_kernels)
        regex="^(interpreter|diagnostics|lang|kernels)/"
      fi
      ;;
    thread)
      dir=build-tsan
      targets=(test_interpreter test_diagnostics diag_exit_helper)
      regex="^(interpreter|diagnostics)/"
      ;;
    *) echo "sanitize.sh: unknown sanitizer '$kind' (address or thread)" >&2; exit 2 ;;
  esac
  t0=$SECONDS
  echo "== $kind: configuring $dir"
  if ! cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DBV_SANITIZE="$kind" \
      -DBV_BUILD_CLI=OFF -DBV_BUILD_UI=OFF "${launcher[@]}" >/dev/null; then
    echo "== $kind: configure FAILED" >&2
    status=1
    continue
  fi
  echo "== $kind: building ${targets[*]}"
  if ! cmake --build "$dir" -j "$jobs" --target "${targets[@]}"; then
    echo "== $kind: build FAILED" >&2
    status=1
    continue
  fi
  t1=$SECONDS
  # halt_on_error / abort: the first report kills the test binary, so ctest sees a failure.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp"
  export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp"
  echo "== $kind: running tests matching $regex"
  # The GPU compile tests build nothing a sanitizer could check: left to the main run.
  if ! (cd "$dir" && ctest -j "$jobs" --output-on-failure -R "$regex" -LE gpu-compile \
        --timeout 300 --no-tests=error); then
    echo "== $kind: FAILED" >&2
    status=1
  fi
  echo "== $kind: build $((t1 - t0))s, tests $((SECONDS - t1))s"
done
exit $status
