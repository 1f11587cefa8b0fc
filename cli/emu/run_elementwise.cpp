// Emulated runners: add, copy, dropout and the gated activations, f32, with the inputs the
// command's entries make (cli/kernels/add.cpp, copy.cpp, dropout.cpp, act_mul.cpp).
#include "bv/emu/lib/act_mul.hpp"
#include "bv/emu/lib/elementwise.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {
namespace {
using kernels::gate_act;

// x [m, 2n] -> y [m, n]
template <gate_act A>
void act_fwd(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  auto x = input<float>(in[0]);
  auto y = output<float>({x.size(0), x.size(1) / 2});
  collect(r, emu::lib::act_mul_fwd<A>(x, y));
  put(r, y);
}
// dy [m, n], x [m, 2n] -> dx [m, 2n]
template <gate_act A>
void act_bwd(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  auto dy = input<float>(in[0]), x = input<float>(in[1]);
  auto dx = output<float>(x.shape());
  collect(r, emu::lib::act_mul_bwd<A>(dy, x, dx));
  put(r, dx);
}

}  // namespace

std::vector<runner> elementwise_runners() {
  return {
      // x, y -> out
      {"add", 2, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]), y = input<float>(in[1]);
         auto o = output<float>(x.shape());
         collect(r, emu::lib::add(x, y, o));
         put(r, o);
       }},
      // x -> out
      {"copy", 1, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]);
         auto o = output<float>(x.shape());
         collect(r, emu::lib::copy(x, o));
         put(r, o);
       }},
      // x -> out; params: the mask's seed (p = 0.3, as the entry)
      {"dropout", 1, 1,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>& p) {
         auto x = input<float>(in[0]);
         auto o = output<float>(x.shape());
         collect(r, emu::lib::dropout(x, o, 0.3f, static_cast<int>(p[0])));
         put(r, o);
       }},
      {"silu_mul", 1, 0, act_fwd<gate_act::silu>},
      {"gelu_mul", 1, 0, act_fwd<gate_act::gelu_tanh>},
      {"silu_mul_bwd", 2, 0, act_bwd<gate_act::silu>},
      {"gelu_mul_bwd", 2, 0, act_bwd<gate_act::gelu_tanh>},
  };
}

}  // namespace bv::cli::amd_emu
