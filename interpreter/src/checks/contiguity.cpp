// contiguity: non-contiguous tensor arguments at launch (a performance note, shown with --notes:
// a transposed or strided view passed on purpose is correct code for a kernel that takes its
// strides, and one that ignores them gets wrong values, which its reference test catches). The multiple_of / max_contiguous hints are verified where they are written
// (bv/cpu/debug.hpp) under the same bit, as errors: a false hint makes the GPU compiler emit
// wrong vector loads.
#include <set>

#include "checks/common.hpp"

namespace bv::detail {
namespace {

struct contiguity_check final : observer {
  uint32_t bit() const override { return checks::contiguity; }

  void begin(launch_state& L) override {
    if (!L.desc) return;
    std::set<const alloc_info*> seen;
    int index = 0;
    for (const alloc_info* t : L.desc->tensors) {
      ++index;
      if (!t || t->contiguous || !seen.insert(t).second) continue;
      diagnostic d;
      d.kind = "non-contiguous";
      d.sev = severity::note;
      d.kernel = L.kernel;
      d.has_pid = false;
      d.headline =
          "tensor argument " + std::to_string(index) + " '" + t->name + "' is not contiguous";
      d.has_tensor = true;
      d.tensor = t->describe();
      d.hint =
          "a kernel indexing with row-major offsets reads the wrong elements: pass "
          ".contiguous(), or pass the strides and use them in the kernel";
      report_in(L, std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<observer> make_contiguity_check() { return std::make_unique<contiguity_check>(); }

}  // namespace bv::detail
