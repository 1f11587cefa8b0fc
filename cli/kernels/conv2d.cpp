// CLI entry: conv2d (kernels/bv/kernels/conv2d.hpp).
#include "bv/kernels/conv2d.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/conv2d.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

// size: N, C, H, W, OC, K (square kernel), stride, pad
kernels::conv2d_params params(const std::vector<int64_t>& s) {
  return {static_cast<int>(s[6]), static_cast<int>(s[6]), static_cast<int>(s[7]),
          static_cast<int>(s[7])};
}

registrar reg{{
    .name = "conv2d",
    .description = "direct conv2d NCHW with stride and padding, implicit GEMM on dot, f32",
    .size_help = "N,C,H,W,OC,K,STRIDE,PAD",
    .default_size = {2, 7, 30, 31, 20, 3, 2, 1},
    .bench_size = {2, 16, 32, 32, 32, 3, 1, 1},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          const auto prm = params(s);
          auto x = tensor<float>::randn("x", {s[0], s[1], s[2], s[3]}, seed);
          auto w = tensor<float>::randn("w", {s[4], s[1], s[5], s[5]}, seed + 1, 0.3);
          auto bias = tensor<float>::randn("bias", {s[4]}, seed + 2);
          const int64_t oh = kernels::conv2d_out_size(s[2], s[5], prm.stride_h, prm.pad_h);
          const int64_t ow = kernels::conv2d_out_size(s[3], s[5], prm.stride_w, prm.pad_w);
          auto out = output<float>("out", {s[0], s[4], oh, ow});
          checker c;
          c.launched(launch_warm([&] { return kernels::conv2d(x, w, bias, out, prm); }));
          c.add(out,
                kernels::ref::conv2d(x, w, bias, prm.stride_h, prm.stride_w, prm.pad_h, prm.pad_w),
                1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          const auto prm = params(s);
          auto x = tensor<float>::randn("x", {s[0], s[1], s[2], s[3]}, seed);
          auto w = tensor<float>::randn("w", {s[4], s[1], s[5], s[5]}, seed + 1, 0.3);
          auto bias = tensor<float>::randn("bias", {s[4]}, seed + 2);
          const int64_t c = s[1], h = s[2], wd = s[3], oc = s[4], k = s[5];
          const int64_t oh = kernels::conv2d_out_size(h, k, prm.stride_h, prm.pad_h);
          const int64_t ow = kernels::conv2d_out_size(wd, k, prm.stride_w, prm.pad_w);
          auto out = tensor<float>::empty("out", {s[0], oc, oh, ow});
          // im2col + one GEMM per image: how a CPU library does it.
          fmat col(c * k * k, oh * ow);
          return time_it([&] {
            for (int64_t n = 0; n < s[0]; ++n) {
              for (int64_t ci = 0; ci < c; ++ci)
                for (int64_t ky = 0; ky < k; ++ky)
                  for (int64_t kx = 0; kx < k; ++kx) {
                    float* dst = col.data() + ((ci * k + ky) * k + kx) * oh * ow;
                    for (int64_t y = 0; y < oh; ++y) {
                      const int64_t iy = y * prm.stride_h - prm.pad_h + ky;
                      for (int64_t z = 0; z < ow; ++z) {
                        const int64_t ix = z * prm.stride_w - prm.pad_w + kx;
                        dst[y * ow + z] = (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                                              ? x.data()[((n * c + ci) * h + iy) * wd + ix]
                                              : 0.0f;
                      }
                    }
                  }
              fmap O(out.data() + n * oc * oh * ow, oc, oh * ow);
              O.noalias() = fmap(w.data(), oc, c * k * k) * col;
              O.colwise() += Eigen::Map<Eigen::VectorXf>(bias.data(), oc);
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          const auto prm = params(s);
          auto x = tensor<float>::randn("x", {s[0], s[1], s[2], s[3]}, seed);
          auto w = tensor<float>::randn("w", {s[4], s[1], s[5], s[5]}, seed + 1, 0.3);
          auto bias = tensor<float>::randn("bias", {s[4]}, seed + 2);
          const int64_t oh = kernels::conv2d_out_size(s[2], s[5], prm.stride_h, prm.pad_h);
          const int64_t ow = kernels::conv2d_out_size(s[3], s[5], prm.stride_w, prm.pad_w);
          auto out = output<float>("out", {s[0], s[4], oh, ow});
          auto i = [](int64_t v) { return static_cast<int>(v); };
          const double ms =
              gpu::conv2d(gpu::dtype_id::f32, x.data(), w.data(), bias.data(), out.data(), i(s[0]),
                          i(s[1]), i(s[2]), i(s[3]), i(s[4]), i(s[5]), i(s[5]), prm.stride_h,
                          prm.stride_w, prm.pad_h, prm.pad_w);
          return finish_gpu(
              out, ms,
              kernels::ref::conv2d(x, w, bias, prm.stride_h, prm.stride_w, prm.pad_h, prm.pad_w),
              1e-5, cpu, 1e-5,
              [&](tensor<float>& o) { return kernels::conv2d(x, w, bias, o, prm); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          const auto prm = params(s);
          auto x = tensor<float>::randn("x", {s[0], s[1], s[2], s[3]}, seed);
          auto w = tensor<float>::randn("w", {s[4], s[1], s[5], s[5]}, seed + 1, 0.3);
          auto bias = tensor<float>::randn("bias", {s[4]}, seed + 2);
          const int64_t oh = kernels::conv2d_out_size(s[2], s[5], prm.stride_h, prm.pad_h);
          const int64_t ow = kernels::conv2d_out_size(s[3], s[5], prm.stride_w, prm.pad_w);
          auto out = output<float>("out", {s[0], s[4], oh, ow});
          return emu_compare("conv2d", t)
              .in(x)
              .in(w)
              .in(bias)
              .param(prm.stride_h)
              .param(prm.pad_h)
              .param(oh)
              .param(ow)
              .cpu([&] { return kernels::conv2d(x, w, bias, out, prm); })
              .out(0, out,
                   kernels::ref::conv2d(x, w, bias, prm.stride_h, prm.stride_w, prm.pad_h,
                                        prm.pad_w),
                   1e-5, 1e-5)
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
