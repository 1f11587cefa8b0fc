// What a debugger front end asks the interpreter while a launch runs: the state of every program,
// the stopped program's live blocks, the memory accesses so far, and where to stop next (line
// breakpoints, a program to run to, the next diagnostic). The terminal prompt (l, w, p @LINE, n)
// and the viewer's live mode both use these, so they show the same things.
//
// Threads: the queries that take a program_state read the stopped launch and are meant for a
// stop handler (check.hpp set_stop_handler), on the launch's thread while the program waits. The
// setters may be called from any thread, also while a program is stopped.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bv/cpu/runtime.hpp"

namespace bv::debug {

// A program's state as a debugger shows it. `error`: it reported an error diagnostic and is not
// stopped now (a stopped program shows as stopped whatever it reported).
enum class program_status : uint8_t { not_started, running, waiting, stopped, done, error };
const char* status_name(program_status s);

struct program_row {
  std::array<int, 3> pid{0, 0, 0};
  program_status state = program_status::not_started;
  unsigned line = 0;  // running, waiting or stopped: the line of its last op (0: none)
};

// Every program of one launch, in launch order (linear program index).
struct launch_view {
  uint64_t serial = 0;  // the launch's, unique in the process
  std::string kernel;
  std::array<int, 3> grid{1, 1, 1};
  bool ended = false;  // the launch has finished: nothing runs any more
  std::vector<program_row> programs;
  int errors = 0;  // error diagnostics so far
};
// The launch `s` belongs to, from its thread while it is stopped.
launch_view program_states(const detail::program_state& s);

// A block the stopped program made: a memory op's lanes (their elements and current values) or a
// reduction's or dot's result as text. One per source line: the latest op there.
struct live_block {
  std::string file;
  unsigned line = 0;
  std::string op;
  bool store = false;
  std::string tensor, dtype;  // memory ops
  int64_t numel = 0;          // the tensor's
  int rows = 1, cols = 1, waves = 1, rank = 1;
  std::vector<int64_t> element;    // per lane: the element index it reads or writes
  std::vector<uint8_t> active;     // per lane: 1 unless masked off
  std::vector<std::string> value;  // per lane: memory there now, "-" masked off, "oob" outside
  std::string text;                // reductions and dots: the result; memory ops: empty
};
// What the ops of the stopped program `s` made so far (recorded while a debugger can stop it:
// stepping, BV_BREAK, a stop handler, or a breakpoint_if on a terminal).
std::vector<live_block> live_blocks(const detail::program_state& s);
// One block as the prompt prints it: dtype[v, v, -, oob] (rows on their own lines), or the text.
std::string block_text(const live_block& b);

// Memory accesses of the current launch so far, per tensor and element, the access a program is
// stopped at included (in-bounds lanes that are not masked off): by every program and by one.
// Recorded only while record_accesses(true) (it costs a little at every access).
struct tensor_accesses {
  std::string name, dtype;
  int64_t numel = 0;
  std::vector<uint32_t> reads, writes;                  // every program, per element
  std::vector<uint32_t> program_reads, program_writes;  // the program asked about
};
void record_accesses(bool on);
std::vector<tensor_accesses> accesses_so_far(const detail::program_state& s);

// Where programs stop besides BV_BREAK and breakpoint_if. All take effect at the next op.
struct line_breakpoint {
  std::string file;  // the end of the source path ("add.hpp", or the full path); empty: any file
  int line = 0;
  std::string cond;  // program ids, as BV_BREAK's ("=1", "=0,>1"); empty: every program
};
// Replaces the line breakpoints. A program stops at each op it runs on such a line.
void set_line_breakpoints(std::vector<line_breakpoint> bps);
// The next op of the program with this id stops it (once); nullopt: none.
void run_to_program(std::optional<std::array<int, 3>> pid);
// A program stops right after an op that reported a diagnostic, at that op.
void stop_on_diagnostics(bool on);

// Called on the launch's thread about every `every` while programs run (never while one is
// stopped), and once when a launch ends (launch_view::ended): a front end shows the states live.
// Empty: none.
void set_progress_handler(std::function<void(const launch_view&)> h,
                          std::chrono::milliseconds every = std::chrono::milliseconds(100));

}  // namespace bv::debug
