// conv2d: the kernel (bv/kernels/conv2d.hpp), its reference (bv/kernels/ref/conv2d.hpp) and one
// registration; im2col and one Eigen GEMM per image time bench's native column.
#include "bv/kernels/conv2d.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/conv2d.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

// size: N, C, H, W, OC, K (square kernel), stride, pad
struct io {
  tensor<float> x, w, bias, out;
  kernels::conv2d_params prm;
  int64_t k() const { return w.size(2); }
};

int i32(int64_t v) { return static_cast<int>(v); }

registrar reg{
    kernel<io, doubles>{
        .name = "conv2d",
        .description = "direct conv2d NCHW with stride and padding, implicit GEMM on dot, f32",
        .size_help = "N,C,H,W,OC,K,STRIDE,PAD",
        .default_size = {2, 7, 30, 31, 20, 3, 2, 1},
        .bench_size = {2, 16, 32, 32, 32, 3, 1, 1},
        .make =
            [](const sizes& s, uint64_t seed) {
              const kernels::conv2d_params prm{i32(s[6]), i32(s[6]), i32(s[7]), i32(s[7])};
              const int64_t oh = kernels::conv2d_out_size(s[2], s[5], prm.stride_h, prm.pad_h);
              const int64_t ow = kernels::conv2d_out_size(s[3], s[5], prm.stride_w, prm.pad_w);
              return io{tensor<float>::randn("x", {s[0], s[1], s[2], s[3]}, seed),
                        tensor<float>::randn("w", {s[4], s[1], s[5], s[5]}, seed + 1, 0.3),
                        tensor<float>::randn("bias", {s[4]}, seed + 2),
                        output<float>("out", {s[0], s[4], oh, ow}), prm};
            },
        .launch = [](io& a) { return kernels::conv2d(a.x, a.w, a.bias, a.out, a.prm); },
        .reference =
            [](const io& a) {
              return kernels::ref::conv2d(a.x, a.w, a.bias, a.prm.stride_h, a.prm.stride_w,
                                          a.prm.pad_h, a.prm.pad_w);
            },
        .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.out, r, 1e-5); },
        // im2col + one GEMM per image: how a CPU library does it.
        .native = [](io& a) -> std::function<void()> {
          const int64_t c = a.x.size(1), k = a.k(), oh = a.out.size(2), ow = a.out.size(3);
          return [&a, c, k, oh, ow, col = fmat(c * k * k, oh * ow)]() mutable {
            const auto& prm = a.prm;
            const int64_t h = a.x.size(2), wd = a.x.size(3), oc = a.w.size(0);
            for (int64_t n = 0; n < a.x.size(0); ++n) {
              for (int64_t ci = 0; ci < c; ++ci)
                for (int64_t ky = 0; ky < k; ++ky)
                  for (int64_t kx = 0; kx < k; ++kx) {
                    float* dst = col.data() + ((ci * k + ky) * k + kx) * oh * ow;
                    for (int64_t y = 0; y < oh; ++y) {
                      const int64_t iy = y * prm.stride_h - prm.pad_h + ky;
                      for (int64_t z = 0; z < ow; ++z) {
                        const int64_t ix = z * prm.stride_w - prm.pad_w + kx;
                        dst[y * ow + z] = (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                                              ? a.x.data()[((n * c + ci) * h + iy) * wd + ix]
                                              : 0.0f;
                      }
                    }
                  }
              fmap O(a.out.data() + n * oc * oh * ow, oc, oh * ow);
              O.noalias() = fmap(a.w.data(), oc, c * k * k) * col;
              O.colwise() += Eigen::Map<Eigen::VectorXf>(a.bias.data(), oc);
            }
          };
        },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const auto& prm = a.prm;
              const double ms =
                  gpu::conv2d(gpu::dtype_id::f32, a.x.data(), a.w.data(), a.bias.data(),
                              a.out.data(), i32(a.x.size(0)), i32(a.x.size(1)), i32(a.x.size(2)),
                              i32(a.x.size(3)), i32(a.w.size(0)), i32(a.k()), i32(a.k()),
                              prm.stride_h, prm.stride_w, prm.pad_h, prm.pad_w);
              return finish_gpu(a.out, ms,
                                kernels::ref::conv2d(a.x, a.w, a.bias, prm.stride_h, prm.stride_w,
                                                     prm.pad_h, prm.pad_w),
                                1e-5, cpu, 1e-5, [&](tensor<float>& o) {
                                  return kernels::conv2d(a.x, a.w, a.bias, o, prm);
                                });
            },
        .amd_emu =
            [](io& a, const doubles& ref, target t) {
              return emu_compare("conv2d", t)
                  .in(a.x)
                  .in(a.w)
                  .in(a.bias)
                  .param(a.prm.stride_h)
                  .param(a.prm.pad_h)
                  .param(a.out.size(2))
                  .param(a.out.size(3))
                  .cpu([&] { return kernels::conv2d(a.x, a.w, a.bias, a.out, a.prm); })
                  // (Emulator against interpreter as matmul's: sums of C KH KW products, added in
                  // the matrix cores' order on one side, k by k on the other.)
                  .out(0, a.out, ref, 1e-5,
                       1e-5 * std::sqrt(static_cast<double>(a.x.size(1) * a.k() * a.k())))
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
