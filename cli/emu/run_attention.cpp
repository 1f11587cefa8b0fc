// Emulated runners: flash attention forward, f32, head dim 64 or 128, with the inputs the
// command's entries make (cli/kernels/attention.cpp).
#include <stdexcept>

#include "bv/emu/lib/attention.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {
namespace {

// q, k, v [B, H, S, D] -> o, lse [B*H, S]
template <bool Causal>
void forward(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  auto q = input<float>(in[0]), k = input<float>(in[1]), v = input<float>(in[2]);
  auto o = output<float>(q.shape());
  auto lse = output<float>({q.size(0) * q.size(1), q.size(2)});
  if (q.size(3) == 64)
    collect(r, emu::lib::attention_fwd<64, Causal>(q, k, v, o, lse));
  else if (q.size(3) == 128)
    collect(r, emu::lib::attention_fwd<128, Causal>(q, k, v, o, lse));
  else
    throw std::invalid_argument("amd-emu: attention takes head dimension 64 or 128");
  put(r, o);
  put(r, lse);
}

}  // namespace

std::vector<runner> attention_runners() {
  return {
      {"attention", 3, 0, forward<false>},
      {"attention_causal", 3, 0, forward<true>},
  };
}

}  // namespace bv::cli::amd_emu
