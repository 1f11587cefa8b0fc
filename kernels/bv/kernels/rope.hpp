// Rotary position embedding (RoPE, Llama's rotate-half form) fused with the head layout change
// attention needs. rope_split reads head h of row s from a [S, *] activation (q, k or v columns
// of a fused QKV projection, at column col0 + h * D) and writes it to [H, S, D], rotated:
//   out[:D/2] = x1 * cos - x2 * sin,   out[D/2:] = x2 * cos + x1 * sin
// with x1, x2 the two halves and (cos, sin) of angle pos * base^(-2i/D) from host tables [S, D/2].
// rope_merge goes back from [H, S, D] to columns of a [S, *] matrix, rotating by -angle (the
// inverse, and the transpose, of the rotation: what the backward needs) or not at all.
#pragma once
#include <cmath>
#include <utility>
#include <vector>

#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

// sign: +1 rotates by the angle, -1 by minus the angle, 0 copies (a plain layout change).
template <class T, int D, int W = 1>
BV_KERNEL void rope_split_kernel(program<W> p, ptr<const T> src, ptr<T> dst, ptr<const float> cos_t,
                                 ptr<const float> sin_t, int s, int src_stride, int col0,
                                 float sign) {
  constexpr int HALF = D / 2;
  const int pos = p.id(0), h = p.id(1);
  auto i = arange<HALF>(p);
  auto row = src + pos * src_stride + col0 + h * D;
  auto x1 = load(row + i).to(f32);
  auto x2 = load(row + HALF + i).to(f32);
  auto c = load(cos_t + pos * HALF + i);
  auto sn = load(sin_t + pos * HALF + i) * sign;
  if (sign == 0.0f) c = full<float, HALF>(p, 1.0f);
  auto out = dst + (h * s + pos) * D;
  store(out + i, x1 * c - x2 * sn);
  store(out + HALF + i, x2 * c + x1 * sn);
}

template <class T, int D, int W = 1>
BV_KERNEL void rope_merge_kernel(program<W> p, ptr<const T> src, ptr<T> dst, ptr<const float> cos_t,
                                 ptr<const float> sin_t, int s, int dst_stride, int col0,
                                 float sign) {
  constexpr int HALF = D / 2;
  const int pos = p.id(0), h = p.id(1);
  auto i = arange<HALF>(p);
  auto in = src + (h * s + pos) * D;
  auto x1 = load(in + i).to(f32);
  auto x2 = load(in + HALF + i).to(f32);
  auto c = load(cos_t + pos * HALF + i);
  auto sn = load(sin_t + pos * HALF + i) * sign;
  if (sign == 0.0f) c = full<float, HALF>(p, 1.0f);
  auto row = dst + pos * dst_stride + col0 + h * D;
  store(row + i, x1 * c - x2 * sn);
  store(row + HALF + i, x2 * c + x1 * sn);
}

// Launch configurations (bv/launch_config.hpp): one wave per (position, head) on every target;
// the head's D elements are the block, so D alone fixes its width.
struct rope_configs {
  static constexpr launch_config table[] = {
      {.waves = 1},
  };
};

// The tables hold the backend's tensors: a type of each backend's own (BV_TENSORS, bv/config.hpp).
inline namespace BV_TENSORS {
// cos and sin tables [S, D/2] of angle pos * base^(-2i/D), computed in double on the host.
struct rope_tables {
  tensor<float> cos, sin;
  rope_tables(int64_t s, int64_t d, double base = 10000.0)
      : cos(table("rope_cos", s, d, base, false)), sin(table("rope_sin", s, d, base, true)) {}
  // Tables computed elsewhere (a caller's own angles), each [S, D/2] fp32.
  rope_tables(tensor<float> c, tensor<float> s) : cos(std::move(c)), sin(std::move(s)) {}

 private:
  static tensor<float> table(const char* name, int64_t s, int64_t d, double base, bool sine) {
    std::vector<float> v(static_cast<size_t>(s * (d / 2)));
    for (int64_t pos = 0; pos < s; ++pos)
      for (int64_t i = 0; i < d / 2; ++i) {
        const double a = static_cast<double>(pos) * std::pow(base, -2.0 * i / d);
        v[static_cast<size_t>(pos * (d / 2) + i)] =
            static_cast<float>(sine ? std::sin(a) : std::cos(a));
      }
    return tensor<float>::from_host(name, {s, d / 2}, v.data());
  }
};
}  // namespace BV_TENSORS

// dst [.., H, S, D] (contiguous) = rope(src[:, col0 : col0 + H * D]) (sign +1), its inverse (-1) or
// a copy (0).
template <int D, class T>
launch_result rope_split(const tensor<T>& src, int64_t col0, tensor<T>& dst, const rope_tables& t,
                         float sign) {
  const int h = detail::i32(dst.size(dst.dim() - 3)), s = detail::i32(dst.size(dst.dim() - 2));
  return with_config<rope_configs>(D, "rope_split", [&](auto c) {
    return launch<rope_split_kernel<T, D, decltype(c)::value.waves>>(
        grid(s, h), src, dst, t.cos, t.sin, s, detail::i32(src.stride(0)), detail::i32(col0), sign);
  });
}
// dst[:, col0 : col0 + H * D] = rope(src [.., H, S, D]) with the same signs.
template <int D, class T>
launch_result rope_merge(const tensor<T>& src, tensor<T>& dst, int64_t col0, const rope_tables& t,
                         float sign) {
  const int h = detail::i32(src.size(src.dim() - 3)), s = detail::i32(src.size(src.dim() - 2));
  return with_config<rope_configs>(D, "rope_merge", [&](auto c) {
    return launch<rope_merge_kernel<T, D, decltype(c)::value.waves>>(
        grid(s, h), src, dst, t.cos, t.sin, s, detail::i32(dst.stride(0)), detail::i32(col0), sign);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_ROPE_INSTANCES_OF(X, D, T)                                                              \
  X(launch_result rope_split<D>(const tensor<T>&, int64_t, tensor<T>&, const rope_tables&, float)) \
  X(launch_result rope_merge<D>(const tensor<T>&, tensor<T>&, int64_t, const rope_tables&, float))
#define BV_ROPE_INSTANCES(X)            \
  BV_ROPE_INSTANCES_OF(X, 64, float)    \
  BV_ROPE_INSTANCES_OF(X, 64, half)     \
  BV_ROPE_INSTANCES_OF(X, 64, bfloat16) \
  BV_ROPE_INSTANCES_OF(X, 128, float)   \
  BV_ROPE_INSTANCES_OF(X, 128, half)    \
  BV_ROPE_INSTANCES_OF(X, 128, bfloat16)
BV_EXTERN_INSTANCES(BV_ROPE_INSTANCES)

}  // namespace bv::kernels
