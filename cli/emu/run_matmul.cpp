// Emulated runners: the matmuls (f32 and f16 tiles, the fused bias + GELU epilogue, split-K),
// with the inputs the command's entries make (cli/kernels/matmul.cpp, matmul_fused.cpp).
#include "bv/emu/lib/matmul.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {
namespace {

// a [M, K], b [K, N] -> c [M, N], c of the inputs' type
template <class T>
void plain(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  auto a = input<T>(in[0]), b = input<T>(in[1]);
  auto c = output<T>({a.size(0), b.size(1)});
  collect(r, emu::lib::matmul(a, b, c));
  put(r, c);
}

}  // namespace

std::vector<runner> matmul_runners() {
  return {
      {"matmul", 2, 0, plain<float>},
      {"matmul_f16", 2, 0, plain<half>},
      // a [M, K], b [K, N], bias [N] -> gelu_tanh(a @ b + bias)
      {"matmul_bias_gelu", 3, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto a = input<float>(in[0]), b = input<float>(in[1]), bias = input<float>(in[2]);
         auto c = output<float>({a.size(0), b.size(1)});
         collect(r, emu::lib::matmul_bias_act<kernels::epilogue::gelu_tanh>(a, b, bias, c));
         put(r, c);
       }},
      // a [M, K], b [K, N] -> c; params: the number of K splits
      {"matmul_splitk", 2, 1,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>& p) {
         auto a = input<float>(in[0]), b = input<float>(in[1]);
         auto c = output<float>({a.size(0), b.size(1)});
         collect(r, emu::lib::matmul_splitk(a, b, c, static_cast<int>(p[0])));
         put(r, c);
       }},
  };
}

}  // namespace bv::cli::amd_emu
