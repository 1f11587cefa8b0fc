// ring-lds: a read-only block pointer's LDS ring on the target's GPU (bv/rings.hpp) beyond the
// dynamic LDS its launch gives (gpu_tuning's lds_bytes). The GPU lowering lays each ring out as
// make_block_ptr runs and traps where they overflow; the interpreter counts the same bytes as it
// runs the same calls, and says so at the make_block_ptr that overflows, once a launch.
#include <string>

#include "bv/cpu/check.hpp"
#include "bv/cpu/launch.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/rings.hpp"

namespace bv::detail {

void claim_ring(program_state& s, bool float16, int R, int C, int W, int max_slots,
                const std::source_location& loc) {
  if (s.launch == nullptr || s.launch->desc == nullptr) return;
  const launch_desc& d = *s.launch->desc;
  const target t = config().tgt;
  const int bytes = rings::lds_bytes(t, float16, R, C, W, d.ring_stages, max_slots);
  if (bytes == 0) return;
  s.ring_lds_taken += bytes;
  if (s.ring_lds_taken <= d.ring_lds || s.launch->ring_lds_said.exchange(true)) return;
  diagnostic dg;
  dg.kind = "ring-lds";
  dg.sev = severity::error;
  dg.headline = "make_block_ptr<" + std::to_string(R) + ", " + std::to_string(C) + ">: on " +
                std::string(target_name(t)) + " the kernel's block-pointer rings need " +
                std::to_string(s.ring_lds_taken) + " bytes of dynamic LDS here (this one " +
                std::to_string(rings::slot_count(d.ring_stages, max_slots)) +
                " slots); the launch gives " + std::to_string(d.ring_lds);
  dg.hint =
      "size the launch's LDS (gpu_tuning{lds}) with block_ptr_lds_bytes<T, R, C, W[, N]>(stages) "
      "summed over every block pointer the kernel makes over a read-only 16-bit tensor, or cap "
      "this one's ring with max_slots<N>; on the GPU the kernel traps here";
  complete(dg, &loc);
  dg.pid = s.pid;
  report(std::move(dg));
}

}  // namespace bv::detail
