// rmsnorm, add_rmsnorm and rmsnorm_bwd: the kernels (bv/kernels/rmsnorm.hpp), their references
// (bv/kernels/ref/rmsnorm.hpp) and one registration each; Eigen arrays time bench's native column.
#include "bv/kernels/rmsnorm.hpp"

#include <cmath>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/rmsnorm.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;
using row_map = Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>>;

// x [ROWS, COLS], w [COLS]; add_rmsnorm's residual res and sum h; y and rstd (the backward's
// input, made by the forward on the interpreter); the backward's dy in, dx and dw out.
struct io {
  tensor<float> x, w, res, h, y, rstd, dy, dx, dw;
  int rows() const { return static_cast<int>(x.size(0)); }
  int cols() const { return static_cast<int>(x.size(1)); }
};

io inputs(const sizes& s, uint64_t seed) {
  io a;
  a.x = tensor<float>::randn("x", {s[0], s[1]}, seed);
  a.w = tensor<float>::randn("w", {s[1]}, seed + 1);
  return a;
}

registrar reg_fwd{
    kernel<io, kernels::ref::rmsnorm_result>{
        .name = "rmsnorm",
        .description = "RMSNorm forward y = x * rstd * w, f32, one program per row, rstd saved",
        .size_help = "ROWS,COLS",
        .default_size = {77, 1000},
        .bench_size = {256, 1024},
        .make =
            [](const sizes& s, uint64_t seed) {
              io a = inputs(s, seed);
              a.y = output<float>("y", {s[0], s[1]});
              a.rstd = output<float>("rstd", {s[0]});
              return a;
            },
        .launch = [](io& a) { return kernels::rmsnorm_fwd(a.x, a.w, a.y, a.rstd); },
        .reference = [](const io& a) { return kernels::ref::rmsnorm_fwd(a.x, a.w); },
        .compare =
            [](checker& c, const io& a, const kernels::ref::rmsnorm_result& r) {
              c.expect(a.y, r.y, 1e-5);
              c.expect(a.rstd, r.rstd, 1e-5);
            },
        .native =
            [](io& a) {
              return [&a, rows = a.x.size(0), cols = a.x.size(1)] {
                famap X(a.x.data(), rows, cols), Y(a.y.data(), rows, cols);
                row_map W(a.w.data(), cols);
                float* rstd = a.rstd.data();
                for (int64_t r = 0; r < rows; ++r) {
                  rstd[r] = 1.0f / std::sqrt(X.row(r).square().sum() / cols + 1e-6f);
                  Y.row(r) = X.row(r) * rstd[r] * W;
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              std::vector<float> rstd(a.rows());
              const double ms =
                  gpu::rmsnorm_fwd(gpu::dtype_id::f32, a.x.data(), a.w.data(), a.y.data(),
                                   rstd.data(), a.rows(), a.cols(), 1e-6f);
              return finish_gpu(a.y, ms, kernels::ref::rmsnorm_fwd(a.x, a.w).y, 1e-5, cpu, 1e-5,
                                [&](tensor<float>& o) {
                                  auto r = tensor<float>::empty("rstd", a.rstd.shape());
                                  return kernels::rmsnorm_fwd(a.x, a.w, o, r);
                                });
            },
        .amd_emu =
            [](io& a, const kernels::ref::rmsnorm_result& ref, target t) {
              return emu_compare("rmsnorm", t)
                  .in(a.x)
                  .in(a.w)
                  .cpu([&] { return kernels::rmsnorm_fwd(a.x, a.w, a.y, a.rstd); })
                  .out(0, a.y, ref.y, 1e-5, 1e-5)
                  .out(1, a.rstd, ref.rstd, 1e-5, 1e-5)
                  .done();
            },
    }};

registrar reg_add{
    kernel<io, kernels::ref::add_rmsnorm_result>{
        .name = "add_rmsnorm",
        .description = "fused residual add + RMSNorm: h = x + res and rmsnorm(h) * w, f32",
        .size_help = "ROWS,COLS",
        .default_size = {77, 1000},
        .bench_size = {256, 1024},
        .make =
            [](const sizes& s, uint64_t seed) {
              io a = inputs(s, seed);
              a.res = tensor<float>::randn("res", {s[0], s[1]}, seed + 2);
              a.h = output<float>("h", {s[0], s[1]});
              a.y = output<float>("y", {s[0], s[1]});
              a.rstd = output<float>("rstd", {s[0]});
              return a;
            },
        .launch = [](io& a) { return kernels::add_rmsnorm_fwd(a.x, a.res, a.w, a.h, a.y, a.rstd); },
        .reference = [](const io& a) { return kernels::ref::add_rmsnorm_fwd(a.x, a.res, a.w); },
        .compare =
            [](checker& c, const io& a, const kernels::ref::add_rmsnorm_result& r) {
              c.expect(a.h, r.h, 1e-5);
              c.expect(a.y, r.y, 1e-5);
            },
        .native =
            [](io& a) {
              return [&a, rows = a.x.size(0), cols = a.x.size(1)] {
                famap X(a.x.data(), rows, cols), R(a.res.data(), rows, cols),
                    H(a.h.data(), rows, cols), Y(a.y.data(), rows, cols);
                row_map W(a.w.data(), cols);
                for (int64_t r = 0; r < rows; ++r) {
                  H.row(r) = X.row(r) + R.row(r);
                  const float rs = 1.0f / std::sqrt(H.row(r).square().sum() / cols + 1e-6f);
                  Y.row(r) = H.row(r) * rs * W;
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              std::vector<float> rstd(a.rows());
              const double ms = gpu::add_rmsnorm_fwd(gpu::dtype_id::f32, a.x.data(), a.res.data(),
                                                     a.w.data(), a.h.data(), a.y.data(),
                                                     rstd.data(), a.rows(), a.cols(), 1e-6f);
              // y is compared; h = x + res is one rounding of the same sum on both devices.
              return finish_gpu(a.y, ms, kernels::ref::add_rmsnorm_fwd(a.x, a.res, a.w).y, 1e-5,
                                cpu, 1e-5, [&](tensor<float>& o) {
                                  auto hh = tensor<float>::empty("h", a.h.shape());
                                  auto r = tensor<float>::empty("rstd", a.rstd.shape());
                                  return kernels::add_rmsnorm_fwd(a.x, a.res, a.w, hh, o, r);
                                });
            },
        .amd_emu =
            [](io& a, const kernels::ref::add_rmsnorm_result& ref, target t) {
              return emu_compare("add_rmsnorm", t)
                  .in(a.x)
                  .in(a.res)
                  .in(a.w)
                  .cpu([&] { return kernels::add_rmsnorm_fwd(a.x, a.res, a.w, a.h, a.y, a.rstd); })
                  .out(0, a.h, ref.h, 1e-5, 0.0)
                  .out(1, a.y, ref.y, 1e-5, 1e-5)
                  .done();
            },
    }};

registrar reg_bwd{
    kernel<io, kernels::ref::rmsnorm_grads>{
        .name = "rmsnorm_bwd",
        .description = "RMSNorm backward: dx per row, dw by a two-stage reduction, f32",
        .size_help = "ROWS,COLS",
        .default_size = {77, 1000},
        .bench_size = {256, 1024},
        .make =
            [](const sizes& s, uint64_t seed) {
              io a = inputs(s, seed);
              a.dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
              a.y = tensor<float>::empty("y", {s[0], s[1]});
              a.rstd = tensor<float>::empty("rstd", {s[0]});
              a.dx = output<float>("dx", {s[0], s[1]});
              a.dw = output<float>("dw", {s[1]});
              kernels::rmsnorm_fwd(a.x, a.w, a.y, a.rstd);  // rstd, as a training step has it
              return a;
            },
        .launch = [](io& a) { return kernels::rmsnorm_bwd(a.dy, a.x, a.w, a.rstd, a.dx, a.dw); },
        .reference = [](const io& a) { return kernels::ref::rmsnorm_bwd(a.dy, a.x, a.w); },
        .compare =
            [](checker& c, const io& a, const kernels::ref::rmsnorm_grads& r) {
              c.expect(a.dx, r.dx, 1e-5);
              c.expect(a.dw, r.dw, 1e-5);
            },
        // With the forward's rstd, as the kernel takes it.
        .native =
            [](io& a) {
              return [&a, rows = a.x.size(0), cols = a.x.size(1),
                      dw = Eigen::Array<float, 1, Eigen::Dynamic>(a.x.size(1))]() mutable {
                famap X(a.x.data(), rows, cols), DY(a.dy.data(), rows, cols),
                    DX(a.dx.data(), rows, cols);
                row_map W(a.w.data(), cols);
                const float* rstd = a.rstd.data();
                dw.setZero();
                for (int64_t r = 0; r < rows; ++r) {
                  const float rs = rstd[r];
                  const float cc = (DY.row(r) * W * X.row(r)).sum() / cols;
                  DX.row(r) = rs * DY.row(r) * W - X.row(r) * (rs * rs * rs * cc);
                  dw += DY.row(r) * X.row(r) * rs;
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const double ms =
                  gpu::rmsnorm_bwd(gpu::dtype_id::f32, a.dy.data(), a.x.data(), a.w.data(),
                                   a.rstd.data(), a.dx.data(), a.dw.data(), a.rows(), a.cols());
              const auto ref = kernels::ref::rmsnorm_bwd(a.dy, a.x, a.w);
              // dx against the reference and the interpreter; dw folded into the GPU's outcome.
              auto g = finish_gpu(a.dx, ms, ref.dx, 1e-5, cpu, 1e-5, [&](tensor<float>& o) {
                auto dw_cpu = tensor<float>::empty("dw(cpu)", a.dw.shape());
                return kernels::rmsnorm_bwd(a.dy, a.x, a.w, a.rstd, o, dw_cpu).front();
              });
              fold_into(g.gpu, a.dw, ref.dw, 1e-5);
              return g;
            },
        .amd_emu =
            [](io& a, const kernels::ref::rmsnorm_grads& ref, target t) {
              // dw sums a column over every row: its difference grows with the rows.
              return emu_compare("rmsnorm_bwd", t)
                  .in(a.dy)
                  .in(a.x)
                  .in(a.w)
                  .in(a.rstd)
                  .cpu([&] { return kernels::rmsnorm_bwd(a.dy, a.x, a.w, a.rstd, a.dx, a.dw); })
                  .out(0, a.dx, ref.dx, 1e-5, 1e-5)
                  .out(1, a.dw, ref.dw, 1e-5, 1e-5 * a.rows())
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
