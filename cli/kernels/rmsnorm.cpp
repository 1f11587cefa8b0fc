// CLI entries: rmsnorm, rmsnorm_bwd, add_rmsnorm (kernels/bv/kernels/rmsnorm.hpp).
#include "bv/kernels/rmsnorm.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/rmsnorm.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

registrar reg_fwd{{
    .name = "rmsnorm",
    .description = "RMSNorm forward y = x * rstd * w, f32, one program per row, rstd saved",
    .size_help = "ROWS,COLS",
    .default_size = {77, 1000},
    .bench_size = {256, 1024},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto y = output<float>("y", {s[0], s[1]});
          auto rstd = output<float>("rstd", {s[0]});
          checker c;
          c.launched(launch_warm([&] { return kernels::rmsnorm_fwd(x, w, y, rstd); }));
          const auto ref = kernels::ref::rmsnorm_fwd(x, w);
          c.add(y, ref.y, 1e-5);
          c.add(rstd, ref.rstd, 1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto y = tensor<float>::empty("y", {s[0], s[1]});
          std::vector<float> rstd(s[0]);
          return time_it([&] {
            famap X(x.data(), s[0], s[1]), Y(y.data(), s[0], s[1]);
            Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>> W(w.data(), s[1]);
            for (int64_t r = 0; r < s[0]; ++r) {
              rstd[r] = 1.0f / std::sqrt(X.row(r).square().sum() / s[1] + 1e-6f);
              Y.row(r) = X.row(r) * rstd[r] * W;
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto y = output<float>("y", {s[0], s[1]});
          std::vector<float> rstd(s[0]);
          const double ms =
              gpu::rmsnorm_fwd(gpu::dtype_id::f32, x.data(), w.data(), y.data(), rstd.data(),
                               static_cast<int>(s[0]), static_cast<int>(s[1]), 1e-6f);
          return finish_gpu(y, ms, kernels::ref::rmsnorm_fwd(x, w).y, 1e-5, cpu, 1e-5,
                            [&](tensor<float>& o) {
                              auto r = tensor<float>::empty("rstd", {s[0]});
                              return kernels::rmsnorm_fwd(x, w, o, r);
                            });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto y = output<float>("y", {s[0], s[1]});
          auto rstd = output<float>("rstd", {s[0]});
          const auto ref = kernels::ref::rmsnorm_fwd(x, w);
          return emu_compare("rmsnorm", t)
              .in(x)
              .in(w)
              .cpu([&] { return kernels::rmsnorm_fwd(x, w, y, rstd); })
              .out(0, y, ref.y, 1e-5, 1e-5)
              .out(1, rstd, ref.rstd, 1e-5, 1e-5)
              .done();
        },
}};

registrar reg_add{{
    .name = "add_rmsnorm",
    .description = "fused residual add + RMSNorm: h = x + res and rmsnorm(h) * w, f32",
    .size_help = "ROWS,COLS",
    .default_size = {77, 1000},
    .bench_size = {256, 1024},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto res = tensor<float>::randn("res", {s[0], s[1]}, seed + 2);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto h = output<float>("h", {s[0], s[1]});
          auto y = output<float>("y", {s[0], s[1]});
          auto rstd = output<float>("rstd", {s[0]});
          checker c;
          c.launched(launch_warm([&] { return kernels::add_rmsnorm_fwd(x, res, w, h, y, rstd); }));
          const auto ref = kernels::ref::add_rmsnorm_fwd(x, res, w);
          c.add(h, ref.h, 1e-5);
          c.add(y, ref.y, 1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto res = tensor<float>::randn("res", {s[0], s[1]}, seed + 2);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto h = tensor<float>::empty("h", {s[0], s[1]});
          auto y = tensor<float>::empty("y", {s[0], s[1]});
          return time_it([&] {
            famap X(x.data(), s[0], s[1]), R(res.data(), s[0], s[1]), H(h.data(), s[0], s[1]),
                Y(y.data(), s[0], s[1]);
            Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>> W(w.data(), s[1]);
            for (int64_t r = 0; r < s[0]; ++r) {
              H.row(r) = X.row(r) + R.row(r);
              const float rs = 1.0f / std::sqrt(H.row(r).square().sum() / s[1] + 1e-6f);
              Y.row(r) = H.row(r) * rs * W;
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto res = tensor<float>::randn("res", {s[0], s[1]}, seed + 2);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto h = output<float>("h", {s[0], s[1]});
          auto y = output<float>("y", {s[0], s[1]});
          std::vector<float> rstd(s[0]);
          const double ms = gpu::add_rmsnorm_fwd(
              gpu::dtype_id::f32, x.data(), res.data(), w.data(), h.data(), y.data(), rstd.data(),
              static_cast<int>(s[0]), static_cast<int>(s[1]), 1e-6f);
          // y is compared; h = x + res is one rounding of the same sum on both devices.
          return finish_gpu(y, ms, kernels::ref::add_rmsnorm_fwd(x, res, w).y, 1e-5, cpu, 1e-5,
                            [&](tensor<float>& o) {
                              auto hh = tensor<float>::empty("h", {s[0], s[1]});
                              auto r = tensor<float>::empty("rstd", {s[0]});
                              return kernels::add_rmsnorm_fwd(x, res, w, hh, o, r);
                            });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto res = tensor<float>::randn("res", {s[0], s[1]}, seed + 2);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto h = output<float>("h", {s[0], s[1]});
          auto y = output<float>("y", {s[0], s[1]});
          auto rstd = output<float>("rstd", {s[0]});
          const auto ref = kernels::ref::add_rmsnorm_fwd(x, res, w);
          return emu_compare("add_rmsnorm", t)
              .in(x)
              .in(res)
              .in(w)
              .cpu([&] { return kernels::add_rmsnorm_fwd(x, res, w, h, y, rstd); })
              .out(0, h, ref.h, 1e-5, 0.0)
              .out(1, y, ref.y, 1e-5, 1e-5)
              .done();
        },
}};

registrar reg_bwd{{
    .name = "rmsnorm_bwd",
    .description = "RMSNorm backward: dx per row, dw by a two-stage reduction, f32",
    .size_help = "ROWS,COLS",
    .default_size = {77, 1000},
    .bench_size = {256, 1024},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
          auto y = tensor<float>::empty("y", {s[0], s[1]});
          auto rstd = tensor<float>::empty("rstd", {s[0]});
          auto dx = output<float>("dx", {s[0], s[1]});
          auto dw = output<float>("dw", {s[1]});
          kernels::rmsnorm_fwd(x, w, y, rstd);  // rstd, as a training step would have it
          checker c;
          c.launched(launch_warm([&] { return kernels::rmsnorm_bwd(dy, x, w, rstd, dx, dw); }));
          const auto ref = kernels::ref::rmsnorm_bwd(dy, x, w);
          c.add(dx, ref.dx, 1e-5);
          c.add(dw, ref.dw, 1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
          auto dx = tensor<float>::empty("dx", {s[0], s[1]});
          std::vector<float> rstd(s[0]);
          for (int64_t r = 0; r < s[0]; ++r) {
            float q = 0;
            for (int64_t j = 0; j < s[1]; ++j) q += x(r, j) * x(r, j);
            rstd[r] = 1.0f / std::sqrt(q / s[1] + 1e-6f);
          }
          Eigen::Array<float, 1, Eigen::Dynamic> dw(s[1]);
          return time_it([&] {
            famap X(x.data(), s[0], s[1]), DY(dy.data(), s[0], s[1]), DX(dx.data(), s[0], s[1]);
            Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>> W(w.data(), s[1]);
            dw.setZero();
            for (int64_t r = 0; r < s[0]; ++r) {
              const float rs = rstd[r];
              const float cc = (DY.row(r) * W * X.row(r)).sum() / s[1];
              DX.row(r) = rs * DY.row(r) * W - X.row(r) * (rs * rs * rs * cc);
              dw += DY.row(r) * X.row(r) * rs;
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
          auto y = tensor<float>::empty("y", {s[0], s[1]});
          auto rstd = tensor<float>::empty("rstd", {s[0]});
          kernels::rmsnorm_fwd(x, w, y, rstd);
          auto dx = output<float>("dx", {s[0], s[1]});
          auto dw = output<float>("dw", {s[1]});
          const double ms = gpu::rmsnorm_bwd(gpu::dtype_id::f32, dy.data(), x.data(), w.data(),
                                             rstd.data(), dx.data(), dw.data(),
                                             static_cast<int>(s[0]), static_cast<int>(s[1]));
          const auto ref = kernels::ref::rmsnorm_bwd(dy, x, w);
          // dx against the reference and the interpreter; dw folded into the GPU's outcome.
          auto g = finish_gpu(dx, ms, ref.dx, 1e-5, cpu, 1e-5, [&](tensor<float>& o) {
            auto dw_cpu = tensor<float>::empty("dw(cpu)", {s[1]});
            return kernels::rmsnorm_bwd(dy, x, w, rstd, o, dw_cpu).front();
          });
          checker c{g.gpu, true};
          c.add(dw, ref.dw, 1e-5);
          g.gpu = c.done(g.gpu.note);
          return g;
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
          auto y = tensor<float>::empty("y", {s[0], s[1]});
          auto rstd = tensor<float>::empty("rstd", {s[0]});
          kernels::rmsnorm_fwd(x, w, y, rstd);  // rstd, as a training step would have it
          auto dx = output<float>("dx", {s[0], s[1]});
          auto dw = output<float>("dw", {s[1]});
          const auto ref = kernels::ref::rmsnorm_bwd(dy, x, w);
          // dw sums a column over every row: its difference grows with the rows.
          return emu_compare("rmsnorm_bwd", t)
              .in(dy)
              .in(x)
              .in(w)
              .in(rstd)
              .cpu([&] { return kernels::rmsnorm_bwd(dy, x, w, rstd, dx, dw); })
              .out(0, dx, ref.dx, 1e-5, 1e-5)
              .out(1, dw, ref.dw, 1e-5, 1e-5 * static_cast<double>(s[0]))
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
