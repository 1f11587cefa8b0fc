// masked: use of the masked-off lanes of a load that had no `other`. On a GPU those lanes hold
// whatever the register held (Triton leaves them undefined). While this check is on, a masked
// load without `other` fills them with a tagged NaN (floats) or the pattern 0xCACACACA (integers);
// the check reports a tagged value where it is used: written by a store or atomic in a lane the
// store performs, or reduced (sum/max/min) or passed to a math function. Integer poison is only
// recognised when stored unchanged (integers cannot carry a tag through arithmetic).
#include "bv/cpu/values.hpp"
#include "checks/common.hpp"

namespace bv::detail {
namespace {

const char* const k_hint =
    "masked-off lanes of a load without `other` are undefined on the GPU: give the load an "
    "`other` (0 for a sum, -inf for a max), or mask the use with the same mask";

struct masked_check final : observer {
  uint32_t bit() const override { return checks::masked; }

  void on_access(const access& a, const bool* perform, program_state&) override {
    if (a.kind == access_kind::load || !a.value_class) return;
    std::vector<int> bad;
    for (int i = 0; i < a.lanes; ++i)
      if (performed(a, perform, i) && a.value_class[i] == vc_masked) bad.push_back(i);
    if (bad.empty()) return;
    diagnostic d = access_diag("masked", a, bad);
    d.headline = "Masked-off lanes used: " + plural(static_cast<int>(bad.size()), "lane") + " of " +
                 std::to_string(active_lanes(a)) + " active " + access_verb(a) +
                 " values from masked-off lanes of a load without `other` (" + a.op + ")";
    d.hint = k_hint;
    report(std::move(d));
  }

  void on_value(const value_event& e, program_state&) override {
    std::vector<int> bad;
    for (int i = 0; i < e.lanes; ++i)
      if (e.value_class[i] == vc_masked) bad.push_back(i);
    if (bad.empty()) return;
    diagnostic d;
    d.kind = "masked";
    d.headline = std::string("Masked-off lanes used by ") + e.op + ": " +
                 plural(static_cast<int>(bad.size()), "result element") +
                 " depend on masked-off lanes of a load without `other`";
    d.lanes = bad;
    d.hint = k_hint;
    complete(d, e.loc);
    report(std::move(d));
  }
};

}  // namespace

std::unique_ptr<observer> make_masked_check() { return std::make_unique<masked_check>(); }

}  // namespace bv::detail
