// Reference for conv2d, NCHW, stride and zero padding, in double, by the definition. Host only.
#pragma once
#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

template <class T>
std::vector<double> conv2d(const tensor<T>& x, const tensor<T>& w, const tensor<T>& bias,
                           int stride_h, int stride_w, int pad_h, int pad_w) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
  const int64_t oc = w.size(0), kh = w.size(2), kw = w.size(3);
  const int64_t oh = (h + 2 * pad_h - kh) / stride_h + 1, ow = (wd + 2 * pad_w - kw) / stride_w + 1;
  auto f = [](auto v) { return static_cast<double>(static_cast<float>(v)); };
  std::vector<double> out;
  out.reserve(static_cast<size_t>(n * oc * oh * ow));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double acc = f(bias(o));
          for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = y * stride_h - pad_h + ky, ix = z * stride_w - pad_w + kx;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                acc += f(w(o, ci, ky, kx)) * f(x(b, ci, iy, ix));
              }
          out.push_back(acc);
        }
  return out;
}

}  // namespace bv::kernels::ref
