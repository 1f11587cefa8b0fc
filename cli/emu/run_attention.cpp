// Emulated runners: flash attention forward, f32 and f16, head dim 64 or 128, with the inputs the
// command's entries make (cli/kernels/attention.cpp).
#include <stdexcept>

#include "bv/emu/lib/attention.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {
namespace {

// q, k, v [B, H, S, D] -> o, lse [B*H, S]
template <class T, bool Causal>
void forward(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  auto q = input<T>(in[0]), k = input<T>(in[1]), v = input<T>(in[2]);
  auto o = output<T>(q.shape());
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
      {"attention", 3, 0, forward<float, false>},
      {"attention_causal", 3, 0, forward<float, true>},
      {"attention_f16", 3, 0, forward<half, true>},
  };
}

}  // namespace bv::cli::amd_emu
