#!/bin/bash
# usage: library_amd_emu.sh BLOCKVEC ROW_CENTER_LIB EMU_BUGGY_LIB
# --backend amd-emu for kernel libraries: each library's AMD-emulator build (NAME.amd-emu.so,
# made by blockvec_add_kernel_library beside NAME.so) runs in the command's emulator.
#  - the sample's row_center on gfx942 and gfx90a, default and ragged sizes: exit 0, both backends
#    match the reference and agree, global traffic counted; `bench --backend amd-emu --lib`.
#  - a planted bug only the emulator sees (tile_matmul's tiles need more LDS than AMD has): exit 1,
#    the lds-capacity diagnostic at the kernel's line, the interpreter's result still matching;
#    the same kernel with smaller tiles passes.
#  - a library without its emulated build says so (exit 1); an emulated build given to --lib is
#    refused (exit 2).
set -uo pipefail
BV=${1:?usage: library_amd_emu.sh BLOCKVEC ROW_CENTER_LIB EMU_BUGGY_LIB}
RC=${2:?row_center library}
EB=${3:?emulator-buggy library}
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
sib() { echo "${1%.so}.amd-emu.so"; }
[ -f "$(sib "$RC")" ] || bad "no $(sib "$RC") beside $RC"
[ -f "$(sib "$EB")" ] || bad "no $(sib "$EB") beside $EB"

check=$(cat <<'PY'
import json, sys
t = sys.argv[1]
j = json.load(sys.stdin)
e, c = j["amd_emu"], j["amd_emu"]["counters"]
assert j["ok"] and j["agree"] and j["target"] == t, "not ok"
assert e["match"] and e["errors"] == 0 and j["cpu"]["match"], "mismatch"
assert c["global_read_bytes"] > 0 and c["global_write_bytes"] > 0, "no global traffic counted"
assert 0 < c["active_lane_fraction"] <= 1, "active-lane fraction"
PY
)
for t in gfx942 gfx90a; do
  for s in "" "--size 7,333" "--size 1,1"; do
    # shellcheck disable=SC2086
    j=$("$BV" run row_center --lib "$RC" --backend amd-emu --target $t $s --seed 3 --json 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { bad "row_center $t $s exited $rc: $j"; continue; }
    python3 -c "$check" "$t" <<<"$j" || bad "row_center $t $s: $j"
  done
done
out=$("$BV" run row_center --lib "$RC" --backend amd-emu --target gfx90a --size 5,100 --seed 1 2>&1)
rc=$?
[ $rc -eq 0 ] || bad "row_center text exited $rc: $out"
grep -q "^target      gfx90a (AMD emulator" <<<"$out" || bad "row_center header: $out"
grep -q "^emu result .*: matches the reference" <<<"$out" || bad "row_center emu result: $out"
grep -q "^emu vs cpu .*: agree" <<<"$out" || bad "row_center comparison: $out"
# Every output element written once: 5 x 100 f32.
# (Its row reductions meet barriers.)
grep -Eq "^counters    MFMA 0, barriers [1-9][0-9]*, global read [1-9][0-9]* B, global write 2000 B" \
  <<<"$out" ||
  bad "row_center counters: $out"

out=$("$BV" bench row_center --lib "$RC" --backend amd-emu --target gfx942 --size 9,200 2>/dev/null)
rc=$?
[ $rc -eq 0 ] || bad "bench row_center --backend amd-emu exited $rc: $out"
grep -Eq "^row_center +9x200 +1 +0 .* [0-9.]+x +ok$" <<<"$out" || bad "bench row: $out"

# The planted bug: the emulator's lds-capacity at the dot's line; exit 1.
for t in gfx942 gfx90a; do
  out=$("$BV" run tile_matmul --lib "$EB" --backend amd-emu --target $t --size 37,45,29 --seed 2 2>&1)
  rc=$?
  [ $rc -eq 1 ] || bad "tile_matmul $t: expected exit 1, got $rc: $out"
  grep -q "^ERROR lds-capacity: Static LDS of 67584 bytes, more than the 65536 a workgroup has on $t" \
    <<<"$out" || bad "tile_matmul $t diagnostic: $out"
  grep -q "emu_buggy_library.cpp:$(grep -n BIG-TILE-DOT "$(dirname "$0")/emu_buggy_library.cpp" |
    cut -d: -f1))" <<<"$out" || bad "tile_matmul $t: the diagnostic names no kernel line: $out"
  grep -q "^cpu result .*: matches the reference" <<<"$out" || bad "tile_matmul $t cpu: $out"
  out=$("$BV" run small_tile_matmul --lib "$EB" --backend amd-emu --target $t --size 37,45,29 2>&1) ||
    bad "small_tile_matmul $t exited $?: $out"
done

# Without its emulated build beside it: said, exit 1. The emulated build itself: exit 2.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$RC" "$tmp/alone.so"
out=$("$BV" run row_center --lib "$tmp/alone.so" --backend amd-emu 2>&1)
rc=$?
[ $rc -eq 1 ] || bad "library without its emulated build: expected exit 1, got $rc: $out"
grep -q "no AMD emulator entry for row_center (its library has no AMD-emulator build $tmp/alone.amd-emu.so" \
  <<<"$out" || bad "library without its emulated build, message: $out"
out=$("$BV" run row_center --lib "$(sib "$RC")" 2>&1)
rc=$?
[ $rc -eq 2 ] || bad "--lib on the emulated build: expected exit 2, got $rc: $out"
grep -q "the amd-emu build of a kernel library; pass its interpreter build" <<<"$out" ||
  bad "--lib on the emulated build, message: $out"
# An interpreter build where the emulated one belongs.
cp "$RC" "$tmp/alone.amd-emu.so"
out=$("$BV" run row_center --lib "$tmp/alone.so" 2>&1)
rc=$?
[ $rc -eq 2 ] || bad "a non-emulated sibling: expected exit 2, got $rc: $out"
grep -q "but not its AMD-emulator build" <<<"$out" || bad "a non-emulated sibling, message: $out"

[ $fail -eq 0 ] && echo "library amd-emu: ok"
exit $fail
