// Emulated launch recipes: flash attention forward and backward over contiguous [B, H, S, D]
// q, k, v. The head dimension D and causality are template arguments, so a caller instantiates
// only the variants it runs. See bv/emu/library.hpp for what a recipe is.
#pragma once
#include <cmath>
#include <vector>

#include "bv/bv.hpp"
#include "bv/kernels/attention.hpp"

namespace bv::emu::lib {

// o = softmax(q k^T / sqrt(D) [+ causal mask]) v; lse [B*H, S] fp32 for the backward.
template <int D, bool Causal, class T>
result attention_fwd(const device_tensor<T>& q, const device_tensor<T>& k,
                     const device_tensor<T>& v, device_tensor<T>& o, device_tensor<float>& lse) {
  static_assert(D == 64 || D == 128, "attention takes head dimension 64 or 128");
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const auto go = [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    using K = kernels::attention_fwd_variant<T, D, cf.bm, cf.bn, Causal, cf.waves, cf.variant>;
    return launch<K::kernel>(grid(cdiv(s, cf.bm), bh), q, k, v, o, lse, s, scale);
  };
  return with_config_for<kernels::attention_fwd_configs<sizeof(T)>, D>("attention_fwd", go);
}

// dq, dk, dv from dout and the forward's o and lse: delta = rowsum(dO * O), then the dK/dV and dQ
// kernels (three launches), each in its table's row (attention_bwd_configs, and
// attention_bwd_dq_configs for dQ).
template <int D, bool Causal, class T>
std::vector<result> attention_bwd(const device_tensor<T>& q, const device_tensor<T>& k,
                                  const device_tensor<T>& v, const device_tensor<T>& o,
                                  const device_tensor<float>& lse, const device_tensor<T>& dout,
                                  device_tensor<T>& dq, device_tensor<T>& dk,
                                  device_tensor<T>& dv) {
  static_assert(D == 64 || D == 128, "attention takes head dimension 64 or 128");
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  auto delta = device_tensor<float>::empty("delta", {bh, s});
  std::vector<result> out;
  with_config_for<kernels::attention_bwd_configs<sizeof(T)>, D>("attention_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    out.push_back(launch<kernels::attention_bwd_preprocess_kernel<T, D, cf.bm, cf.waves>>(
        grid(cdiv(s, cf.bm), bh), o, dout, delta, s));
    using K = kernels::attention_bwd_dkdv_variant<T, D, cf.bm, cf.bn, Causal, cf.waves, cf.variant>;
    out.push_back(
        launch<K::kernel>(grid(cdiv(s, cf.bn), bh), q, k, v, dout, lse, delta, dk, dv, s, scale));
    return 0;
  });
  with_config_for<kernels::attention_bwd_dq_configs<sizeof(T)>, D>(
      "attention_bwd (dQ)", [&](auto c) {
        constexpr launch_config cf = decltype(c)::value;
        using K =
            kernels::attention_bwd_dq_variant<T, D, cf.bm, cf.bn, Causal, cf.waves, cf.variant>;
        out.push_back(
            launch<K::kernel>(grid(cdiv(s, cf.bm), bh), q, k, v, dout, lse, delta, dq, s, scale));
        return 0;
      });
  return out;
}

}  // namespace bv::emu::lib
