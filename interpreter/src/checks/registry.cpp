// The built-in checks. run_launch calls register_builtin_checks() once: an explicit call, rather
// than static registrars in each file, because a static library drops object files that nothing
// references, and their registrars with them.
#include "checks/common.hpp"

namespace bv::detail {

void register_builtin_checks() {
  register_observer(make_uninit_check);
  register_observer(make_race_check);
  register_observer(make_contiguity_check);
  register_observer(make_overflow_check);
  register_observer(make_nan_check);
  register_observer(make_masked_check);
  register_observer(make_coalescing_check);
  register_observer(make_stream_store_check);
}

}  // namespace bv::detail
