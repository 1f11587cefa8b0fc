// nan (opt-in): the first op of each program that produced NaN or Inf. Observed ops: math
// functions (exp, log, sqrt, rsqrt, ...) and reductions whose inputs were all finite but whose
// result is not, and stores or atomics writing NaN/Inf that the program made itself (the program
// read no NaN/Inf from memory before, so the value cannot have been passed through). Tagged NaNs
// (uninit, masked) belong to those checks and are not counted here.
//
// Whether a program read NaN/Inf from memory is learnt from its loads (nan_reads.hpp): a copied
// load is tested at once, a view through a watch (views.hpp). A view of a read-only buffer is
// steady: its memory cannot change in the launch, so its watch does not test it but leaves the
// test on its program, until a store of NaN asks whether the program read any (most programs
// store none, and never run it); a test that runs is remembered for the launch (the w of a row
// norm, loaded by every program, is tested at most once).
#include <cstdint>

#include "bv/cpu/nan_reads.hpp"
#include "bv/cpu/values.hpp"
#include "bv/cpu/views.hpp"
#include "checks/common.hpp"

namespace bv::detail {
namespace {

// Per program: whether a NaN/Inf it made was reported (the first per program is), whether it
// read NaN/Inf from memory (then its NaNs may be passed on, not made), and the tests of steady
// views it left for later.
struct nan_program {
  bool reported;
  bool saw_nonfinite;
  int nsteady;
  struct {
    const char* lo;
    view_test test;
  } steady[8];
};

// The launch's answers for steady views: a few slots, by address.
struct scan_memo {
  uint64_t serial = 0;
  const char* lo = nullptr;
  view_test test = nullptr;
  bool nonfinite = false;
};
thread_local constinit scan_memo t_scan_memo[8]{};
// Whether the lanes at lo of a read-only buffer hold NaN/Inf, remembered for the launch.
bool steady_nonfinite(const char* lo, view_test test) {
  if (!t_read_only) return test(lo);
  scan_memo& m = t_scan_memo[(reinterpret_cast<uintptr_t>(lo) >> 12) & 7];
  if (m.serial == t_read_only->serial && m.lo == lo && m.test == test) return m.nonfinite;
  const bool nonfinite = test(lo);
  m = {t_read_only->serial, lo, test, nonfinite};
  return nonfinite;
}

// The tests of steady views the running program left for later: run them now.
void run_steady_scans(nan_program& c) {
  for (int i = 0; i < c.nsteady && !c.saw_nonfinite; ++i)
    if (steady_nonfinite(c.steady[i].lo, c.steady[i].test)) c.saw_nonfinite = true;
  c.nsteady = 0;
}

// Every test not run yet: a store of NaN asks whether the program read any.
void run_deferred_tests(nan_program& c) {
  run_view_watches();
  run_steady_scans(c);
}

struct nan_check final : observer {
  uint32_t bit() const override { return checks::nan; }

  void on_access(const access& a, const bool* perform, program_state& s) override {
    if (a.kind == access_kind::load || !a.value_class) return;
    auto& c = program_scratch<nan_program>(s);
    if (c.reported || c.saw_nonfinite) return;
    std::vector<int> bad;
    for (int i = 0; i < a.lanes; ++i)
      if (performed(a, perform, i) && a.value_class[i] == vc_nonfinite) bad.push_back(i);
    if (bad.empty()) return;
    run_deferred_tests(c);  // loads whose values are not tested yet
    if (c.saw_nonfinite) return;
    c.reported = true;
    diagnostic d = access_diag("nan", a, bad);
    d.headline = "NaN/Inf produced: " + plural(static_cast<int>(bad.size()), "lane") + " of " +
                 std::to_string(active_lanes(a)) + " active " + access_verb(a) +
                 " NaN or Inf computed by this program from finite inputs (" + a.op + ")";
    d.hint =
        "arithmetic since the previous checked op made it (x / 0, inf - inf, overflow of a "
        "large value); math functions and reductions are checked on their own lines, so the "
        "culprit is an operator between them";
    report(std::move(d));
  }

  void on_value(const value_event& e, program_state& s) override {
    auto& c = program_scratch<nan_program>(s);
    if (!e.inputs_finite || c.reported) return;
    std::vector<int> bad;
    for (int i = 0; i < e.lanes; ++i)
      if (e.value_class[i] == vc_nonfinite) bad.push_back(i);
    if (bad.empty()) return;
    c.reported = true;
    diagnostic d;
    d.kind = "nan";
    d.headline = std::string("NaN/Inf produced by ") + e.op + " from finite inputs in " +
                 plural(static_cast<int>(bad.size()), "element");
    d.lanes = bad;
    d.hint = std::string(e.op) +
             " left the finite range: check its domain (log and sqrt of negatives or zero), "
             "subtract the maximum before exp, or accumulate in a wider type";
    complete(d, e.loc);
    report(std::move(d));
  }
};

}  // namespace

std::unique_ptr<observer> make_nan_check() { return std::make_unique<nan_check>(); }

void nan_note_read() {
  if (program_state* s = current()) program_scratch<nan_program>(*s).saw_nonfinite = true;
}

void nan_view_watch(const view_entry& e) {
  program_state* s = current();
  if (!s) return;  // no program to note a NaN on
  auto& c = program_scratch<nan_program>(*s);
  if (c.saw_nonfinite) return;  // the answer is known
  if (!e.steady || !t_read_only) {
    if (e.test(e.lo)) c.saw_nonfinite = true;
    return;
  }
  // The memory stays as it is for the launch: the test waits until a store of NaN asks.
  if (c.nsteady == 8) run_steady_scans(c);
  if (c.saw_nonfinite) return;
  c.steady[c.nsteady++] = {e.lo, e.test};
}

}  // namespace bv::detail
