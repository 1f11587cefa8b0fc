// Row-wise softmax. A row that fits one block is read once (the Triton tutorial's kernel); longer
// rows take two passes with an online max and sum.
#pragma once
#include "bv/bv.hpp"

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

#if !BV_GPU
namespace detail {
template <class T, int B>
launch_result softmax_fit(const tensor<T>& x, tensor<T>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  return launch<softmax_kernel<T, B>>(grid(rows), x, out, static_cast<int>(x.stride(0)),
                                      static_cast<int>(out.stride(0)), cols);
}
}  // namespace detail

// softmax over the last dimension of a 2-D tensor.
template <class T>
launch_result softmax(const tensor<T>& x, tensor<T>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  if (cols <= 64) return detail::softmax_fit<T, 64>(x, out);
  if (cols <= 256) return detail::softmax_fit<T, 256>(x, out);
  if (cols <= 1024) return detail::softmax_fit<T, 1024>(x, out);
  if (cols <= 4096) return detail::softmax_fit<T, 4096>(x, out);
  return launch<softmax_looped_kernel<T, 1024>>(grid(rows), x, out, static_cast<int>(x.stride(0)),
                                                static_cast<int>(out.stride(0)), cols);
}
#endif

}  // namespace bv::kernels
