// Emulated launch recipes: the tiled matmul, the fused bias-and-activation matmul and split-K. On
// a GPU, the matmul launcher in kernels/ compiles unit strides in (gpu_tuning); here they are
// passed as arguments, which the kernels take either way. See bv/emu/library.hpp for what a
// recipe is.
#pragma once
#include <vector>

#include "bv/bv.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/matmul_fused.hpp"

namespace bv::emu::lib {

// c = a @ b, contiguous row-major, in the configuration declared for the inputs' element size.
template <class T, class O>
result matmul(const device_tensor<T>& a, const device_tensor<T>& b, device_tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1)),
            N = static_cast<int>(b.size(1));
  return with_config_for<kernels::matmul_configs, sizeof(T)>("matmul", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    return launch<
        kernels::matmul_kernel<T, O, cf.bm, cf.bn, cf.bk, cf.group_m, cf.waves, cf.stages>>(
        grid(cdiv(M, cf.bm) * cdiv(N, cf.bn)), a, b, c, M, N, K, K, 1, N, 1, N, 1);
  });
}

// c = act(a @ b + bias) for contiguous a [M, K], b [K, N], bias [N].
template <kernels::epilogue E, class T, class O>
result matmul_bias_act(const device_tensor<T>& a, const device_tensor<T>& b,
                       const device_tensor<T>& bias, device_tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1)),
            N = static_cast<int>(b.size(1));
  return with_config<kernels::matmul_bias_act_configs>(M, "matmul_bias_act", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    return launch<kernels::matmul_bias_act_for<T, O, E, cf>>(
        grid(cdiv(M, cf.bm) * cdiv(N, cf.bn)), a, b, bias, c, M, N, K, K, 1, N, 1, N, 1);
  });
}

// c = a @ b with K split `splits` ways into a contiguous fp32 c: zero c, then the split products
// added in with atomics (two launches).
template <class T>
std::vector<result> matmul_splitk(const device_tensor<T>& a, const device_tensor<T>& b,
                                  device_tensor<float>& c, int splits) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1)),
            N = static_cast<int>(b.size(1));
  const int n = static_cast<int>(c.numel());
  std::vector<result> out;
  out.push_back(launch<kernels::zero_kernel>(grid(cdiv(n, 1024)), c, n));
  out.push_back(with_config<kernels::matmul_splitk_configs>(K, "matmul_splitk", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    const int k_per_split = kernels::splitk_slice(K, splits, cf.bk);
    return launch<kernels::matmul_splitk_kernel<T, cf.bm, cf.bn, cf.bk, cf.waves>>(
        grid(cdiv(M, cf.bm) * cdiv(N, cf.bn), cdiv(K, k_per_split)), a, b, c, M, N, K, k_per_split,
        K, 1, N, 1, N, 1);
  }));
  return out;
}

}  // namespace bv::emu::lib
