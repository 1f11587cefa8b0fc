// Direct 2-D convolution, NCHW, with stride and zero padding (the textbook kernel done
// right): out[n, oc, oh, ow] = bias[oc] + sum_{c, kh, kw} w[oc, c, kh, kw] *
// x[n, c, oh * sh - ph + kh, ow * sw - pw + kw]. Each program computes a BOC x BP tile (output
// channels x output pixels of one image) as an implicit GEMM: the weights [OC, C*KH*KW] times the
// input patches gathered on the fly in BK-deep slices, with the padding as load masks, so the
// products run on dot (the matrix cores on a GPU) and no im2col buffer is ever written.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

template <class T, int BOC, int BP, int BK, int W = 4>
BV_KERNEL void conv2d_kernel(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> bias,
                             ptr<T> out, int c_in, int h, int wd, int oc, int kh, int kw, int oh,
                             int ow, int sh, int sw, int ph, int pw) {
  const int n = p.id(2);
  auto rp = p.id(0) * BP + arange<BP>(p);  // output pixels, oh * OW + ow
  auto roc = p.id(1) * BOC + arange<BOC>(p);
  auto rk = arange<BK>(p);
  auto out_y = rp / ow, out_x = rp % ow;
  const int ktot = c_in * kh * kw;
  const int npix = oh * ow;
  auto acc = zeros<float, BOC, BP>(p);
  for (int k0 = 0; k0 < ktot; k0 += BK) {
    auto kk = k0 + rk;  // (c, ky, kx) flattened, the layout of w's last three dimensions
    auto c = kk / (kh * kw);
    auto ky = (kk % (kh * kw)) / kw;
    auto kx = kk % kw;
    auto wt = load(w + (roc.col() * ktot + kk.row()), (roc.col() < oc) & (kk.row() < ktot), 0.0f);
    auto iy = out_y.row() * sh - ph + ky.col();
    auto ix = out_x.row() * sw - pw + kx.col();
    auto in_mask =
        (kk.col() < ktot) & (rp.row() < npix) & (iy >= 0) & (iy < h) & (ix >= 0) & (ix < wd);
    auto patch = load(x + (n * c_in * h * wd + c.col() * (h * wd) + iy * wd + ix), in_mask, 0.0f);
    acc = dot(wt, patch, acc);
  }
  acc += load(bias + roc, roc < oc, 0.0f).to(f32).col();
  store(out + (n * oc * npix + roc.col() * npix + rp.row()), acc,
        (roc.col() < oc) & (rp.row() < npix));
}

// Launch configurations (bv/launch_config.hpp): BOC (bm) output channels by BP (bn) output
// pixels a program, BK (bk) deep slices of the reduction, 4 waves. AMD: 64 x 64 x 32, so that each
// wave's part (32 x 32) takes the MFMA path (docs/isa_report.md: no spills, 2 waves a SIMD on
// gfx942 and gfx90a); 32 x 32 multiplied on the vector ALUs.
struct conv2d_configs {
  // clang-format off
  static constexpr launch_config table[] = {
      {.targets = amd_targets, .waves = 4, .bm = 64, .bn = 64, .bk = 32},
      {                        .waves = 4, .bm = 32, .bn = 64, .bk = 32},
  };
  // clang-format on
};

struct conv2d_params {
  int stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
};
inline int64_t conv2d_out_size(int64_t in, int64_t k, int stride, int pad) {
  return (in + 2 * pad - k) / stride + 1;
}

// out [N, OC, OH, OW] = conv2d(x [N, C, H, W], w [OC, C, KH, KW]) + bias [OC]; all contiguous.
template <class T>
launch_result conv2d(const tensor<T>& x, const tensor<T>& w, const tensor<T>& bias, tensor<T>& out,
                     conv2d_params prm = {}) {
  const int n = detail::i32(x.size(0)), c = detail::i32(x.size(1)), h = detail::i32(x.size(2)),
            wd = detail::i32(x.size(3));
  const int oc = detail::i32(w.size(0)), kh = detail::i32(w.size(2)), kw = detail::i32(w.size(3));
  const int oh = detail::i32(out.size(2)), ow = detail::i32(out.size(3));
  if (w.size(1) != c || out.size(1) != oc ||
      oh != conv2d_out_size(h, kh, prm.stride_h, prm.pad_h) ||
      ow != conv2d_out_size(wd, kw, prm.stride_w, prm.pad_w))
    throw std::invalid_argument("conv2d: shapes of x, w and out do not agree");
  return with_config<conv2d_configs>(oh * ow, "conv2d", [&](auto cfg) {
    constexpr launch_config k = decltype(cfg)::value;
    return launch<conv2d_kernel<T, k.bm, k.bn, k.bk, k.waves>>(
        grid(cdiv(oh * ow, k.bn), cdiv(oc, k.bm), n), x, w, bias, out, c, h, wd, oc, kh, kw, oh, ow,
        prm.stride_h, prm.stride_w, prm.pad_h, prm.pad_w);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_CONV2D_INSTANCES_OF(X, T)                                                       \
  X(launch_result conv2d(const tensor<T>&, const tensor<T>&, const tensor<T>&, tensor<T>&, \
                         conv2d_params))
#define BV_CONV2D_INSTANCES(X)     \
  BV_CONV2D_INSTANCES_OF(X, float) \
  BV_CONV2D_INSTANCES_OF(X, half)
BV_EXTERN_INSTANCES(BV_CONV2D_INSTANCES)

}  // namespace bv::kernels
