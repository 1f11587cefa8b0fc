// LayerNorm forward variants for the device bench (`blockvec bench --backend gpu --variants`),
// written in the block language like kernels/bv/kernels/layernorm.hpp, GPU-compiled only. The one
// that wins moves into kernels/ (where the interpreter runs it too).
//  - hoist: w and b loaded before the reductions (their latency overlaps the row's load and the
//    reductions, instead of following them behind the barriers).
//  - fused: one reduction instead of two: sum2 carries sum(d) and sum(d^2) of d = x - x[0]
//    through one butterfly and one trip through LDS (2 barriers, not 4); mean = x[0] + sum(d)/n,
//    var = sum(d^2)/n - (sum(d)/n)^2. The shift by the row's first element keeps the
//    cancellation small when |mean| >> std (the shifted-data variance).
#pragma once
#include "bv/bv.hpp"

namespace bv::gpu::lnvar {

template <class T, int BLOCK, int W, bool HOIST>
BV_KERNEL void ln_two_pass(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b, ptr<T> y,
                           ptr<float> mean, ptr<float> rstd, int sx, int sy, int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  auto xv = load(x + row * sx + cols, mask, 0.0f).to(f32);
  if constexpr (!HOIST) {  // as kernels/: w and b loaded after the reductions
    const float mu = sum(xv) / n;
    auto xc = where(mask, xv - mu, 0.0f);
    const float r = rsqrt(sum(xc * xc) / n + eps);
    store(mean + row, mu);
    store(rstd + row, r);
    auto wv = load(w + cols, mask, 0.0f).to(f32);
    auto bv_ = load(b + cols, mask, 0.0f).to(f32);
    store(y + row * sy + cols, xc * r * wv + bv_, mask);
  } else {
    auto wh = load(w + cols, mask, 0.0f);
    auto bh = load(b + cols, mask, 0.0f);
    const float mu = sum(xv) / n;
    auto xc = where(mask, xv - mu, 0.0f);
    const float r = rsqrt(sum(xc * xc) / n + eps);
    store(mean + row, mu);
    store(rstd + row, r);
    store(y + row * sy + cols, xc * r * wh.to(f32) + bh.to(f32), mask);
  }
}

template <class T, int BLOCK, int W, bool HOIST>
BV_KERNEL void ln_fused(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b, ptr<T> y,
                        ptr<float> mean, ptr<float> rstd, int sx, int sy, int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  auto xv = load(x + row * sx + cols, mask, 0.0f).to(f32);
  const float shift = static_cast<float>(load(x + row * sx));
  auto d = where(mask, xv - shift, 0.0f);
  if constexpr (HOIST) {
    auto wh = load(w + cols, mask, 0.0f);
    auto bh = load(b + cols, mask, 0.0f);
    const auto s = sum2(d, d * d);
    const float dm = s.first / n;
    const float var = s.second / n - dm * dm;
    const float r = rsqrt((var > 0.0f ? var : 0.0f) + eps);
    store(mean + row, shift + dm);
    store(rstd + row, r);
    store(y + row * sy + cols, (d - dm) * r * wh.to(f32) + bh.to(f32), mask);
  } else {
    const auto s = sum2(d, d * d);
    const float dm = s.first / n;
    const float var = s.second / n - dm * dm;
    const float r = rsqrt((var > 0.0f ? var : 0.0f) + eps);
    store(mean + row, shift + dm);
    store(rstd + row, r);
    auto wv = load(w + cols, mask, 0.0f).to(f32);
    auto bv_ = load(b + cols, mask, 0.0f).to(f32);
    store(y + row * sy + cols, (d - dm) * r * wv + bv_, mask);
  }
}

}  // namespace bv::gpu::lnvar
