#!/usr/bin/env bash
# blockvec --lib on a library whose kernels go wrong in every way a host must report
# (buggy_library.cpp), and on files that are not kernel libraries: each run's exit status
# (0 ok, 1 a kernel that failed, 2 a usage error) and what it says.
#   library_cli.sh BLOCKVEC BUGGY_LIBRARY WRONG_ABI_LIBRARY OTHER_LIBRARY MALFORMED [ABI1_PLUGIN]
set -uo pipefail
BV=${1:?usage: library_cli.sh BLOCKVEC BUGGY WRONG_ABI OTHER MALFORMED [ABI1_PLUGIN]}
LIB=${2:?}
WRONG=${3:?}
OTHER=${4:?}
MALFORMED=${5:?}
ABI1=${6:-}
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
expect() {
  local want=$1 what=$2
  shift 2
  out=$("$BV" "$@" 2>&1)
  local rc=$?
  [ "$rc" -eq "$want" ] || bad "$what: 'blockvec $*' exited $rc, expected $want: ${out:0:600}"
}
has() { grep -qE -- "$2" <<<"$out" || bad "$1: no /$2/ in: ${out:0:600}"; }

# list: the built-in kernels, then the library's, in its registration order.
expect 0 "list" list --lib "$LIB"
has "list built-in" "^add +vector add"
has "list library" "^lib_shift_add_oob +x\[i\] \+ x\[i\+1\] with an off-by-one mask.*--size N, default 1000"
has "list two outputs" "^lib_two_outputs +-x and 2x.*default 777"

# Two libraries at once: each keeps its own entries (their registries are private to each
# shared object), both run.
expect 0 "two libraries" list --lib "$OTHER" --lib "$LIB"
has "two libraries: other" "^row_center "
has "two libraries: buggy" "^lib_two_outputs "
[ "$(grep -c '^row_center ' <<<"$out")" -eq 1 ] || bad "row_center listed more than once: $out"
expect 0 "two libraries run" run row_center --lib "$OTHER" --lib "$LIB" --seed 1
has "two libraries run" "matches the reference"

# The out-of-bounds read is the host's diagnostic, with the library's source line.
line=$(grep -n "BUGGY-LOAD" "$(dirname "$0")/buggy_library.cpp" | cut -d: -f1)
expect 1 "oob run" run lib_shift_add_oob --lib "$LIB" --seed 1
has "oob diagnostic" "ERROR out-of-bounds"
has "oob line" "buggy_library.cpp:$line"
has "oob summary" "ERROR SUMMARY: [1-9][0-9]* error"
expect 1 "oob json" run lib_shift_add_oob --lib "$LIB" --seed 1 --json
python3 -c 'import json,sys; j=json.load(sys.stdin); sys.exit(0 if j["errors"]>=1 and not j["ok"] and any(d["kind"]=="out-of-bounds" for d in j["diagnostics"]) else 1)' <<<"$out" \
  || bad "oob --json: ${out:0:600}"

# The fixed kernel: matches, its note shown; the parallel schedule and every check run it too.
expect 0 "fixed run" run lib_shift_add --lib "$LIB" --size 4097 --seed 2 --schedule parallel --check all
has "fixed match" "matches the reference"
has "fixed programs" "programs +17 in 1 launch"
has "fixed note" "note +a test kernel"
expect 0 "two outputs" run lib_two_outputs --lib "$LIB" --seed 3
has "two outputs match" "matches the reference"

expect 1 "wrong result" run lib_wrong_result --lib "$LIB" --seed 4
has "wrong result" "DOES NOT MATCH"
expect 1 "throws" run lib_throws --lib "$LIB"
has "throws message" "lib_throws failed: cannot make inputs of this size"

# Sizes: the arity from size_help, then the library's own rule; both usage errors.
expect 2 "arity" run lib_shift_add --lib "$LIB" --size 3,4
has "arity message" "takes --size N \(1 number"
expect 2 "refused" run lib_shift_add --lib "$LIB" --size 2000000
has "refused message" "does not take --size 2000000: N above 1000000 is more than this test needs"

# bench: the library's reference is the native column; a mismatching kernel voids the bench.
expect 0 "bench" bench lib_shift_add --lib "$LIB" --repeat 1 --json
python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]; sys.exit(0 if len(r)==1 and r[0]["kernel"]=="lib_shift_add" and r[0]["native_s"]>0 and r[0]["size"]==[100000] and r[0]["match"] else 1)' <<<"$out" \
  || bad "bench --json: ${out:0:600}"
expect 1 "bench mismatch" bench lib_wrong_result --lib "$LIB" --repeat 1
has "bench mismatch message" "lib_wrong_result did not match the reference"

# demo runs the library's kernels with the built-in ones: here four of them fail.
expect 1 "demo" demo --lib "$LIB"
has "demo fixed" "lib_shift_add +1000 .* ok"
has "demo count" "of [0-9]+ kernels match"

# Files that are not kernel libraries: exit 2, the file named, what to do.
expect 2 "missing" list --lib /nonexistent/k.so
has "missing" "--lib /nonexistent/k.so: no such file"
expect 2 "not a library" list --lib "$0"
has "not a library" "not a loadable shared library.*blockvec_add_kernel_library"
expect 2 "no entry points" list --lib "$(ldd "$BV" | grep -o '/[^ ]*libc\.so[^ ]*' | head -1)"
has "no entry points" "not a blockvec kernel library: it exports no bv_kernel_library_abi"
expect 2 "wrong abi" list --lib "$WRONG"
has "wrong abi" "built for kernel-library ABI 99; this blockvec loads ABI 3"
expect 2 "malformed" list --lib "$MALFORMED"
has "malformed" "malformed_library.so: a kernel did not register: kernel entry 'incomplete' needs a name, default_size, make, launch, reference and compare"
if [ -n "$ABI1" ]; then
  expect 2 "abi 1" list --lib "$ABI1"
  has "abi 1" "live plugin of kernel-library ABI 1, which only blockvec-viewer runs"
fi
expect 2 "clash" run add --lib "$LIB" --lib "$LIB"
has "clash" "kernel 'lib_shift_add_oob' has the name of a kernel already loaded"

[ "$fail" -eq 0 ] && echo "library_cli: all checks passed"
exit "$fail"
