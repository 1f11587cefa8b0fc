// nan (opt-in): the first op of each program that produced NaN or Inf. Observed ops: math
// functions (exp, log, sqrt, rsqrt, ...) and reductions whose inputs were all finite but whose
// result is not, and stores or atomics writing NaN/Inf that the program made itself (the program
// read no NaN/Inf from memory before, so the value cannot have been passed through). Tagged NaNs
// (uninit, masked) belong to those checks and are not counted here.
#include "bv/cpu/values.hpp"
#include "bv/cpu/views.hpp"
#include "checks/common.hpp"

namespace bv::detail {
namespace {

struct nan_check final : observer {
  uint32_t bit() const override { return checks::nan; }

  void on_access(const access& a, const bool* perform, program_state& s) override {
    if (a.kind == access_kind::load || !a.value_class) return;
    if (s.chk.nan_reported || s.chk.saw_nonfinite) return;
    std::vector<int> bad;
    for (int i = 0; i < a.lanes; ++i)
      if (performed(a, perform, i) && a.value_class[i] == vc_nonfinite) bad.push_back(i);
    if (bad.empty()) return;
    scan_deferred_views();  // loads whose values are not tested yet (views.hpp)
    if (s.chk.saw_nonfinite) return;
    s.chk.nan_reported = true;
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
    if (!e.inputs_finite || s.chk.nan_reported) return;
    std::vector<int> bad;
    for (int i = 0; i < e.lanes; ++i)
      if (e.value_class[i] == vc_nonfinite) bad.push_back(i);
    if (bad.empty()) return;
    s.chk.nan_reported = true;
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

}  // namespace bv::detail
