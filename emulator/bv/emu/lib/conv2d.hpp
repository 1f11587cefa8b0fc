// Emulated launch recipe: direct NCHW conv2d as an implicit GEMM. See bv/emu/library.hpp for what
// a recipe is.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/conv2d.hpp"

namespace bv::emu::lib {

// out [n, oc, oh, ow] = conv2d(x [n, c, h, w], w [oc, c, kh, kw]) + bias [oc], strides (sh, sw)
// and padding (ph, pw); out's shape gives oh and ow.
template <class T>
result conv2d(const device_tensor<T>& x, const device_tensor<T>& w, const device_tensor<T>& bias,
              device_tensor<T>& out, int sh, int sw, int ph, int pw) {
  const int n = static_cast<int>(x.size(0)), c = static_cast<int>(x.size(1)),
            h = static_cast<int>(x.size(2)), wd = static_cast<int>(x.size(3));
  const int oc = static_cast<int>(w.size(0)), kh = static_cast<int>(w.size(2)),
            kw = static_cast<int>(w.size(3));
  const int oh = static_cast<int>(out.size(2)), ow = static_cast<int>(out.size(3));
  return with_config<kernels::conv2d_configs>(oh * ow, "conv2d", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    return launch<kernels::conv2d_kernel<T, cf.bm, cf.bn, cf.bk, cf.waves>>(
        grid(cdiv(oh * ow, cf.bn), cdiv(oc, cf.bm), n), x, w, bias, out, c, h, wd, oc, kh, kw, oh,
        ow, sh, sw, ph, pw);
  });
}

}  // namespace bv::emu::lib
