#!/bin/sh
# Fuzzes the trace reader for a bounded time: builds ui/trace/trace_db.cpp with libFuzzer and
# AddressSanitizer (clang), seeds it with real traces, runs it for SECONDS. Exit 77 (ctest: skipped)
# with a message when no clang with a libFuzzer runtime is installed.
# usage: fuzz.sh SOURCE_DIR WORK_DIR MAKE_TRACES SECONDS
set -u
src=$1 work=$2 make_traces=$3 seconds=$4
mkdir -p "$work/corpus"
cxx=""
for c in clang++-19 clang++-15 clang++-14 clang++; do
  command -v $c >/dev/null 2>&1 || continue
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$work/probe.cpp"
  if $c -fsanitize=fuzzer "$work/probe.cpp" -o "$work/probe" 2>/dev/null; then cxx=$c; break; fi
done
if [ -z "$cxx" ]; then
  echo "SKIPPED: no clang++ with a libFuzzer runtime (Debian: libclang-rt-19-dev or libclang-rt-14-dev)"
  exit 77
fi
echo "fuzzing the trace reader with $cxx for $seconds s"
$cxx -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I"$src/ui" \
  "$src/ui/trace/trace_db.cpp" "$src/tests/ui/fuzz_trace.cpp" -lsqlite3 -o "$work/fuzz_trace" || exit 1
"$make_traces" "$work/traces" >/dev/null 2>&1 || { mkdir -p "$work/traces"; "$make_traces" "$work/traces" >/dev/null; }
cp "$work"/traces/*.bvtrace "$work/corpus/" 2>/dev/null
printf 'not a trace' > "$work/corpus/text"
ASAN_OPTIONS=detect_leaks=0 "$work/fuzz_trace" "$work/corpus" -max_total_time="$seconds" \
  -rss_limit_mb=2048 -timeout=10 -max_len=300000 -print_final_stats=1 > "$work/fuzz.log" 2>&1
status=$?
tail -25 "$work/fuzz.log"
exit $status
