// Emulated runner: conv2d, f32, with the inputs the command's entry makes (cli/kernels/conv2d.cpp).
#include "bv/emu/lib/conv2d.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {

std::vector<runner> conv2d_runners() {
  return {
      // x [n, c, h, w], w [oc, c, kh, kw], bias [oc] -> out [n, oc, oh, ow];
      // params: stride, padding (both axes), oh, ow
      {"conv2d", 3, 4,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>& p) {
         auto x = input<float>(in[0]), w = input<float>(in[1]), bias = input<float>(in[2]);
         auto o = output<float>({x.size(0), w.size(0), p[2], p[3]});
         const int s = static_cast<int>(p[0]), pad = static_cast<int>(p[1]);
         collect(r, emu::lib::conv2d(x, w, bias, o, s, s, pad, pad));
         put(r, o);
       }},
  };
}

}  // namespace bv::cli::amd_emu
