// Emulated runners: softmax and cross-entropy (one program per row), f32, with the inputs the
// command's entries make (cli/kernels/softmax.cpp, cross_entropy.cpp).
#include "bv/emu/lib/cross_entropy.hpp"
#include "bv/emu/lib/softmax.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {

std::vector<runner> row_runners() {
  return {
      // x [rows, cols] -> out
      {"softmax", 1, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]);
         auto o = output<float>(x.shape());
         collect(r, emu::lib::softmax(x, o));
         put(r, o);
       }},
      // logits [m, v], targets [m] (int32) -> loss [m], lse [m]
      {"cross_entropy", 2, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]);
         auto t = input<int32_t>(in[1]);
         auto loss = output<float>({x.size(0)}), lse = output<float>({x.size(0)});
         collect(r, emu::lib::cross_entropy_fwd(x, t, loss, lse));
         put(r, loss);
         put(r, lse);
       }},
      // logits [m, v], targets [m] (int32), the forward's lse [m], dloss [m] -> dx [m, v]
      {"cross_entropy_bwd", 4, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]);
         auto t = input<int32_t>(in[1]);
         auto lse = input<float>(in[2]), dloss = input<float>(in[3]);
         auto dx = output<float>(x.shape());
         collect(r, emu::lib::cross_entropy_bwd(x, t, lse, dloss, dx));
         put(r, dx);
       }},
  };
}

}  // namespace bv::cli::amd_emu
