// Cross-entropy over rows of logits: loss[r] = logsumexp(x[r, :]) - x[r, target[r]], with the
// log-sum-exp computed online over the vocabulary in BLOCK-wide chunks (a running max m and sum l
// of exp(x - m), rescaled when m grows), so a 32000-word vocabulary never needs one huge block.
// The forward saves lse per row; the backward streams the row again:
// dx = (softmax(x) - onehot(target)) * dloss[r]. A negative target (PyTorch's ignore_index -100)
// gives loss 0 and a zero gradient row.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

template <class T, int BLOCK, int W = 4>
BV_KERNEL void cross_entropy_fwd_kernel(program<W> p, ptr<const T> x, ptr<const int32_t> target,
                                        ptr<float> loss, ptr<float> lse, int sx, int v) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  float m = -INFINITY, l = 0.0f;
  for (int start = 0; start < v; start += BLOCK) {
    auto mask = start + cols < v;
    auto xv = load(x + row * sx + start + cols, mask, -INFINITY).to(f32);
    const float bm = max(xv);
    const float m_new = m > bm ? m : bm;
    l = l * exp(m - m_new) + sum(exp(xv - m_new));
    m = m_new;
  }
  const float s = m + log(l);
  store(lse + row, s);
  const int t = load(target + row);
  if (t >= 0) {
    const float xt = static_cast<float>(load(x + row * sx + t));
    store(loss + row, s - xt);
  } else {
    store(loss + row, 0.0f);
  }
}

template <class T, int BLOCK, int W = 4>
BV_KERNEL void cross_entropy_bwd_kernel(program<W> p, ptr<const T> x, ptr<const int32_t> target,
                                        ptr<const float> lse, ptr<const float> dloss, ptr<T> dx,
                                        int sx, int sdx, int v) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  const int t = load(target + row);
  const float s = load(lse + row);
  const float d = t >= 0 ? load(dloss + row) : 0.0f;
  for (int start = 0; start < v; start += BLOCK) {
    auto mask = start + cols < v;
    auto xv = load(x + row * sx + start + cols, mask, 0.0f).to(f32);
    auto prob = exp(xv - s);
    store(dx + row * sdx + start + cols, (prob - where(start + cols == t, 1.0f, 0.0f)) * d, mask);
  }
}

// Launch configurations (bv/launch_config.hpp): the vocabulary in 2048-wide chunks, 8 waves, on
// every target (the GPU's choice: one program streams a whole row, so it takes many
// lanes).
struct cross_entropy_configs {
  static constexpr launch_config table[] = {
      {.block = 2048, .waves = 8},
  };
};

// loss [M] and lse [M] (fp32) from logits x [M, V] and targets [M] (i32).
template <class T>
launch_result cross_entropy_fwd(const tensor<T>& x, const tensor<int32_t>& target,
                                tensor<float>& loss, tensor<float>& lse) {
  const int m = detail::i32(x.size(0)), v = detail::i32(x.size(1));
  return with_config<cross_entropy_configs>(v, "cross_entropy_fwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<cross_entropy_fwd_kernel<T, k.block, k.waves>>(grid(m), x, target, loss, lse,
                                                                 detail::i32(x.stride(0)), v);
  });
}

// dx [M, V] from dloss [M] (the gradient of each row's loss; 1/M for a mean).
template <class T>
launch_result cross_entropy_bwd(const tensor<T>& x, const tensor<int32_t>& target,
                                const tensor<float>& lse, const tensor<float>& dloss,
                                tensor<T>& dx) {
  const int m = detail::i32(x.size(0)), v = detail::i32(x.size(1));
  return with_config<cross_entropy_configs>(v, "cross_entropy_bwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<cross_entropy_bwd_kernel<T, k.block, k.waves>>(
        grid(m), x, target, lse, dloss, dx, detail::i32(x.stride(0)), detail::i32(dx.stride(0)), v);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_CROSS_ENTROPY_INSTANCES_OF(X, T)                                                   \
  X(launch_result cross_entropy_fwd(const tensor<T>&, const tensor<int32_t>&, tensor<float>&, \
                                    tensor<float>&))                                          \
  X(launch_result cross_entropy_bwd(const tensor<T>&, const tensor<int32_t>&,                 \
                                    const tensor<float>&, const tensor<float>&, tensor<T>&))
#define BV_CROSS_ENTROPY_INSTANCES(X)     \
  BV_CROSS_ENTROPY_INSTANCES_OF(X, float) \
  BV_CROSS_ENTROPY_INSTANCES_OF(X, half)  \
  BV_CROSS_ENTROPY_INSTANCES_OF(X, bfloat16)
BV_EXTERN_INSTANCES(BV_CROSS_ENTROPY_INSTANCES)

}  // namespace bv::kernels
