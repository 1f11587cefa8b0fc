// Emulated runners: flash attention backward, causal, f32 and f16, head dim 64 or 128, with the
// inputs the command's entries make (cli/kernels/attention.cpp: o and lse from the interpreter's
// forward).
#include <stdexcept>

#include "bv/emu/lib/attention.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {

namespace {

// q, k, v, o, dout [B, H, S, D], lse [B*H, S] -> dq, dk, dv
template <class T>
void backward(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  auto q = input<T>(in[0]), k = input<T>(in[1]), v = input<T>(in[2]);
  auto o = input<T>(in[3]), dout = input<T>(in[4]);
  auto lse = input<float>(in[5]);
  auto dq = output<T>(q.shape()), dk = output<T>(q.shape()), dv = output<T>(q.shape());
  if (q.size(3) == 64)
    collect(r, emu::lib::attention_bwd<64, true>(q, k, v, o, lse, dout, dq, dk, dv));
  else if (q.size(3) == 128)
    collect(r, emu::lib::attention_bwd<128, true>(q, k, v, o, lse, dout, dq, dk, dv));
  else
    throw std::invalid_argument("amd-emu: attention takes head dimension 64 or 128");
  put(r, dq);
  put(r, dk);
  put(r, dv);
}

}  // namespace

std::vector<runner> attention_bwd_runners() {
  return {
      {"attention_bwd", 6, 0, backward<float>},
      {"attention_bwd_f16", 6, 0, backward<half>},
  };
}

}  // namespace bv::cli::amd_emu
