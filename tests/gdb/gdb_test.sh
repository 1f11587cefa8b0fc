#!/usr/bin/env bash
# blockvec's gdb extension on tests/gdb/gdb_target.cpp, in `gdb -batch`: found by itself through
# the program's .debug_gdb_scripts section; breakpoint_if stops in gdb with the kernel's frame
# selected; `bv programs`; the pretty-printers on blocks in each state and on a tensor; `bv break`;
# `bv program` on a parked program's stack and back.
#   gdb_test.sh PROGRAM SOURCE
set -uo pipefail
prog=$1
src=$2
brk=$(grep -n "// @break" "$src" | cut -d: -f1)
after=$(grep -n "// @after" "$src" | cut -d: -f1)
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
run_gdb() {  # run_gdb SCHEDULE COMMANDS...
  local sched=$1
  shift
  local args=()
  for c in "$@"; do args+=(-ex "$c"); done
  BV_SCHEDULE=$sched timeout 120 gdb -nx -batch -iex "set auto-load safe-path /" \
    -iex "set debuginfod enabled off" -ex "set pagination off" "${args[@]}" --args "$prog" 2>&1
}

# gdb before 14 cannot call functions in a program on a CPU whose register state includes AMX
# tiles (Linux takes that state back only whole, and gdb 13's buffer is smaller). The commands
# that call into the interpreter then say so (the extension's message is checked below); the rest
# of this test needs those calls and is skipped there.
probe=$(timeout 60 gdb -nx -batch -iex "set debuginfod enabled off" -ex "break main" -ex run \
          -ex "print (int)getpid()" --args "$prog" 2>&1)
calls=1
grep -q "Couldn't write extended state status" <<<"$probe" && calls=0

out=$(run_gdb sequential "break gdb_target.cpp:$after" run "bv programs" "print offs" "print m" \
        "print v" "print w" "continue" "print x" "continue")
echo "$out" > gdb_sequential.log
grep -q "blockvec: breakpoint_if hit" <<<"$out" || bad "no stop in gdb at breakpoint_if"
grep -qE "^#[0-9]+ .*scale_rows.*gdb_target.cpp:$brk" <<<"$out" || bad "the kernel's frame (line $brk) is not selected"
grep -q "block<int, 16> (1 waves, affine 32 + 0\*row + 1\*col)" <<<"$out" || bad "offs printed as its affine values"
grep -q "\[32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47\]" <<<"$out" || bad "offs's values"
grep -q "block<bool, 16>" <<<"$out" || bad "m printed"
grep -q "block<float, 16> (1 waves, " <<<"$out" || bad "v printed"
grep -q "tensor 'x' f32 shape \[60\]" <<<"$out" || bad "the tensor x in main"
grep -q "exited normally" <<<"$out" || bad "the program did not finish after continue"
if [ $calls -eq 0 ]; then
  grep -q "blockvec: this gdb cannot call functions in the program on this CPU" <<<"$out" ||
    bad "bv programs did not say why it cannot run"
  grep -q "fused, not computed: this gdb cannot call functions" <<<"$out" ||
    bad "w (fused) not printed with the reason its values are not computed"
  if [ $fail -ne 0 ]; then exit 1; fi
  echo "SKIPPED: this gdb ($(gdb --version | head -1)) cannot call functions in a program on this" \
       "CPU (AMX register state); bv programs, bv break and bv program need gdb 14 or later here." \
       "The stop, the printers and the messages were checked."
  exit 77
fi
grep -q "(0,0,0)  done" <<<"$out" || bad "bv programs: program 0 done"
grep -q "(2,0,0)  stopped .*gdb_target.cpp:$brk  <- current" <<<"$out" || bad "bv programs: program 2 stopped at line $brk, current"
grep -q "(3,0,0)  not started" <<<"$out" || bad "bv programs: program 3 not started"
grep -q "fused (computed for display)" <<<"$out" || bad "w printed as a fused value"
grep -q "\[65, 67, 69, 71, 73, 75, 77, 79, 81, 83, 85, 87, 89, 91, 93, 95\]" <<<"$out" || bad "w's values (2x+1)"

# bv break with the condition grammar, at a line: only program 1 stops there.
out=$(run_gdb sequential "break main" run "bv break =1 gdb_target.cpp:$brk" "continue" "bv programs" "continue")
echo "$out" > gdb_break.log
grep -q "(1,0,0)  stopped\|(1,0,0)  running .*<- current" <<<"$out" || bad "bv break =1 did not stop program 1"
[ "$(grep -c "<- current" <<<"$out")" -eq 1 ] || bad "bv break stopped more than once"

# A parked program's stack: program 0 waits for program 3's flag while program 2 is stopped.
wait=$(grep -n "// @wait" "$src" | cut -d: -f1)
out=$(BV_SCHEDULE=sequential timeout 120 gdb -nx -batch -iex "set auto-load safe-path /" \
        -iex "set debuginfod enabled off" -ex "set pagination off" -ex run -ex "bv programs" \
        -ex "bv program 0" -ex "bt" -ex "frame function handoff" -ex "print mine" \
        -ex "bv program back" -ex "bt 4" -ex "frame function handoff" -ex "print mine" -ex "continue" \
        --args "$prog" handoff 2>&1)
echo "$out" > gdb_parked.log
grep -q "(0,0,0)  parked at a wait .*gdb_target.cpp:$wait" <<<"$out" || bad "bv programs: program 0 parked at line $wait"
grep -q "program (0, 0, 0) (parked at a wait)" <<<"$out" || bad "bv program 0 did not switch"
grep -qE "^#[0-9]+ .*handoff.*gdb_target.cpp:$wait" <<<"$out" || bad "program 0's stack does not show handoff at line $wait"
grep -q "block<int, 4> (1 waves, affine 0 + 0\*row + 1\*col)" <<<"$out" || bad "program 0's local block 'mine' (0..3)"
grep -q "block<int, 4> (1 waves, affine 20 + 0\*row + 1\*col)" <<<"$out" || bad "program 2's 'mine' (20..23) after coming back"
grep -q "back on the running stack" <<<"$out" || bad "bv program back"
# Back where it stopped: the innermost frame is the stop again.
grep -A1 "back on the running stack" <<<"$out" | grep -q "bv_gdb_stop" || bad "bv program back did not restore the stopped stack"
grep -q "exited normally" <<<"$out" || bad "the handoff run did not finish after bv program and back"

# Continuing while looking at another program's stack puts the running one back first.
out=$(BV_SCHEDULE=sequential timeout 120 gdb -nx -batch -iex "set auto-load safe-path /" \
        -iex "set debuginfod enabled off" -ex run -ex "bv program 0" -ex "continue" \
        --args "$prog" handoff 2>&1)
echo "$out" > gdb_autoback.log
grep -q "exited normally" <<<"$out" || bad "continue after bv program 0 did not return to the running stack"

[ $fail -eq 0 ] && echo "gdb: ok"
exit $fail
