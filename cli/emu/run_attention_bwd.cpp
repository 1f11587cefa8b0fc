// Emulated runner: flash attention backward, causal, f32, head dim 64 or 128, with the inputs the
// command's entry makes (cli/kernels/attention.cpp: o and lse from the interpreter's forward).
#include <stdexcept>

#include "bv/emu/lib/attention.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {

std::vector<runner> attention_bwd_runners() {
  return {
      // q, k, v, o, dout [B, H, S, D], lse [B*H, S] -> dq, dk, dv
      {"attention_bwd", 6, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto q = input<float>(in[0]), k = input<float>(in[1]), v = input<float>(in[2]);
         auto o = input<float>(in[3]), dout = input<float>(in[4]);
         auto lse = input<float>(in[5]);
         auto dq = output<float>(q.shape()), dk = output<float>(q.shape()),
              dv = output<float>(q.shape());
         if (q.size(3) == 64)
           collect(r, emu::lib::attention_bwd<64, true>(q, k, v, o, lse, dout, dq, dk, dv));
         else if (q.size(3) == 128)
           collect(r, emu::lib::attention_bwd<128, true>(q, k, v, o, lse, dout, dq, dk, dv));
         else
           throw std::invalid_argument("amd-emu: attention takes head dimension 64 or 128");
         put(r, dq);
         put(r, dk);
         put(r, dv);
       }},
  };
}

}  // namespace bv::cli::amd_emu
