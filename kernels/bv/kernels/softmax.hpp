// Row-wise softmax. A row that fits one block is read once (the Triton tutorial's kernel); longer
// rows take two passes with an online max and sum.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/launch_config.hpp"

namespace bv::kernels {

template <class T, int BLOCK, int W = 4>
BV_KERNEL void softmax_kernel(program<W> p, ptr<const T> x, ptr<T> out, int x_stride,
                              int out_stride, int n_cols) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n_cols;
  auto v = load(x + row * x_stride + cols, mask, -INFINITY).to(f32);
  auto e = exp(v - max(v));
  store(out + row * out_stride + cols, e / sum(e), mask);
}

template <class T, int BLOCK, int W = 4>
BV_KERNEL void softmax_looped_kernel(program<W> p, ptr<const T> x, ptr<T> out, int x_stride,
                                     int out_stride, int n_cols) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  float m = -INFINITY, l = 0.0f;
  for (int start = 0; start < n_cols; start += BLOCK) {
    auto mask = start + cols < n_cols;
    auto v = load(x + row * x_stride + start + cols, mask, -INFINITY).to(f32);
    const float m_new = m > max(v) ? m : max(v);
    l = l * exp(m - m_new) + sum(exp(v - m_new));
    m = m_new;
  }
  for (int start = 0; start < n_cols; start += BLOCK) {
    auto mask = start + cols < n_cols;
    auto v = load(x + row * x_stride + start + cols, mask, -INFINITY).to(f32);
    store(out + row * out_stride + start + cols, exp(v - m) / l, mask);
  }
}

// Launch configurations (bv/launch_config.hpp), by row length: the smallest block that holds the
// row, one pass, with 2 to 16 waves (4 to 16 elements a thread on 32-lane warps); longer rows take
// the looped kernel (variant 1) over 4096-wide chunks with 8 waves. At 8192 columns, 16 waves of
// 512 threads run two programs per SM, whose barriers overlap each other's memory traffic (1.5x
// over one, bv/gpu/runtime.hpp); sm_90 takes 8 warps there, measured at 8192 x 8192 f32 on an H200
// (bench/gpu/softmax_family.cu, back to back): 0.133 ms at 8 warps, 0.137 at 4, 0.139 at 16.
// Programs that walk rows with the next row's load in flight were slower on every count tried
// (0.144 ms at best), so each row stays its own program.
struct softmax_configs {
  static constexpr const char* key = "row length";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        columns up to  kernel         block           waves
      {                                .up_to = 256,                  .block = 256,   .waves = 2},
      {                                .up_to = 1024,                 .block = 1024,  .waves = 4},
      {                                .up_to = 4096,                 .block = 4096,  .waves = 8},
      {.targets = only(target::sm_90), .up_to = 8192,                 .block = 8192,  .waves = 8},
      {                                .up_to = 8192,                 .block = 8192,  .waves = 16},
      {                                .up_to = 0,    .variant = 1,   .block = 4096,  .waves = 8},  // looped
  };
  // clang-format on
};

// softmax over the last dimension of a 2-D tensor.
template <class T>
launch_result softmax(const tensor<T>& x, tensor<T>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  const int sx = static_cast<int>(x.stride(0)), so = static_cast<int>(out.stride(0));
  return with_config<softmax_configs>(cols, "softmax", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    if constexpr (k.variant == 1)
      return launch<softmax_looped_kernel<T, k.block, k.waves>>(grid(rows), x, out, sx, so, cols);
    else
      return launch<softmax_kernel<T, k.block, k.waves>>(grid(rows), x, out, sx, so, cols);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_SOFTMAX_INSTANCES_OF(X, T) X(launch_result softmax(const tensor<T>&, tensor<T>&))
#define BV_SOFTMAX_INSTANCES(X)     \
  BV_SOFTMAX_INSTANCES_OF(X, float) \
  BV_SOFTMAX_INSTANCES_OF(X, half)
BV_EXTERN_INSTANCES(BV_SOFTMAX_INSTANCES)

}  // namespace bv::kernels
