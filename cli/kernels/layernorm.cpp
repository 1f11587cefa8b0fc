// CLI entries: layernorm, layernorm_bwd (lock), layernorm_bwd_two_stage
// (kernels/bv/kernels/layernorm.hpp).
#include "bv/kernels/layernorm.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/layernorm.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;
using row_arr = Eigen::Array<float, 1, Eigen::Dynamic>;

outcome run_bwd(const std::vector<int64_t>& s, uint64_t seed, kernels::reduction how) {
  auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
  auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
  auto b = tensor<float>::randn("b", {s[1]}, seed + 2);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
  auto y = tensor<float>::empty("y", {s[0], s[1]});
  auto mean = tensor<float>::empty("mean", {s[0]});
  auto rstd = tensor<float>::empty("rstd", {s[0]});
  kernels::layernorm_fwd(x, w, b, y, mean, rstd);
  auto dx = output<float>("dx", {s[0], s[1]});
  auto dw = output<float>("dw", {s[1]});
  auto db = output<float>("db", {s[1]});
  checker c;
  c.launched(
      launch_warm([&] { return kernels::layernorm_bwd(dy, x, w, mean, rstd, dx, dw, db, how); }));
  const auto ref = kernels::ref::layernorm_bwd(dy, x, w);
  c.add(dx, ref.dx, 1e-5);
  c.add(dw, ref.dw, 1e-5);
  c.add(db, ref.db, 1e-5);
  return c.done();
}

gpu_outcome run_bwd_gpu(const std::vector<int64_t>& s, uint64_t seed, bool cpu,
                        kernels::reduction how) {
  auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
  auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
  auto b = tensor<float>::randn("b", {s[1]}, seed + 2);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
  auto y = tensor<float>::empty("y", {s[0], s[1]});
  auto mean = tensor<float>::empty("mean", {s[0]});
  auto rstd = tensor<float>::empty("rstd", {s[0]});
  kernels::layernorm_fwd(x, w, b, y, mean, rstd);
  auto dx = output<float>("dx", {s[0], s[1]});
  auto dw = output<float>("dw", {s[1]});
  auto db = output<float>("db", {s[1]});
  const double ms =
      gpu::layernorm_bwd(gpu::dtype_id::f32, how == kernels::reduction::lock, dy.data(), x.data(),
                         w.data(), mean.data(), rstd.data(), dx.data(), dw.data(), db.data(),
                         static_cast<int>(s[0]), static_cast<int>(s[1]));
  const auto ref = kernels::ref::layernorm_bwd(dy, x, w);
  // dx against the reference and the interpreter; dw and db folded into the GPU's outcome.
  auto g = finish_gpu(dx, ms, ref.dx, 1e-5, cpu, 1e-5, [&](tensor<float>& o) {
    auto dw_cpu = tensor<float>::empty("dw(cpu)", {s[1]});
    auto db_cpu = tensor<float>::empty("db(cpu)", {s[1]});
    return kernels::layernorm_bwd(dy, x, w, mean, rstd, o, dw_cpu, db_cpu, how).front();
  });
  checker c{g.gpu, true};
  c.add(dw, ref.dw, 1e-5);
  c.add(db, ref.db, 1e-5);
  g.gpu = c.done(g.gpu.note);
  return g;
}

emu_outcome run_bwd_emu(const std::vector<int64_t>& s, uint64_t seed, target t,
                        kernels::reduction how) {
  auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
  auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
  auto b = tensor<float>::randn("b", {s[1]}, seed + 2);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
  auto y = tensor<float>::empty("y", {s[0], s[1]});
  auto mean = tensor<float>::empty("mean", {s[0]});
  auto rstd = tensor<float>::empty("rstd", {s[0]});
  kernels::layernorm_fwd(x, w, b, y, mean, rstd);
  auto dx = output<float>("dx", {s[0], s[1]});
  auto dw = output<float>("dw", {s[1]});
  auto db = output<float>("db", {s[1]});
  const auto ref = kernels::ref::layernorm_bwd(dy, x, w);
  // dw and db sum a column over every row (in an order the lock makes arbitrary): their
  // difference grows with the rows.
  const double col_tol = 1e-5 * static_cast<double>(s[0]);
  return emu_compare(how == kernels::reduction::lock ? "layernorm_bwd" : "layernorm_bwd_two_stage",
                     t)
      .in(dy)
      .in(x)
      .in(w)
      .in(mean)
      .in(rstd)
      .cpu([&] { return kernels::layernorm_bwd(dy, x, w, mean, rstd, dx, dw, db, how); })
      .out(0, dx, ref.dx, 1e-5, 1e-5)
      .out(1, dw, ref.dw, 1e-5, col_tol)
      .out(2, db, ref.db, 1e-5, col_tol)
      .done();
}

double native_bwd(const std::vector<int64_t>& s, uint64_t seed) {
  auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
  auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
  auto dx = tensor<float>::empty("dx", {s[0], s[1]});
  famap X(x.data(), s[0], s[1]), DY(dy.data(), s[0], s[1]), DX(dx.data(), s[0], s[1]);
  std::vector<float> mean(s[0]), rstd(s[0]);
  for (int64_t r = 0; r < s[0]; ++r) {
    mean[r] = X.row(r).mean();
    rstd[r] = 1.0f / std::sqrt((X.row(r) - mean[r]).square().mean() + 1e-5f);
  }
  row_arr dw(s[1]), db(s[1]);
  return time_it([&] {
    Eigen::Map<row_arr> W(w.data(), s[1]);
    dw.setZero();
    db.setZero();
    for (int64_t r = 0; r < s[0]; ++r) {
      const row_arr xhat = (X.row(r) - mean[r]) * rstd[r];
      const row_arr g = DY.row(r) * W;
      const float c1 = (xhat * g).sum() / s[1], c2 = g.sum() / s[1];
      DX.row(r) = (g - (xhat * c1 + c2)) * rstd[r];
      dw += DY.row(r) * xhat;
      db += DY.row(r);
    }
  });
}

registrar reg_fwd{{
    .name = "layernorm",
    .description = "LayerNorm forward, f32, one program per row, mean and rstd saved",
    .size_help = "ROWS,COLS",
    .default_size = {77, 1000},
    .bench_size = {256, 1024},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto b = tensor<float>::randn("b", {s[1]}, seed + 2);
          auto y = output<float>("y", {s[0], s[1]});
          auto mean = output<float>("mean", {s[0]});
          auto rstd = output<float>("rstd", {s[0]});
          checker c;
          c.launched(launch_warm([&] { return kernels::layernorm_fwd(x, w, b, y, mean, rstd); }));
          const auto ref = kernels::ref::layernorm_fwd(x, w, b);
          c.add(y, ref.y, 1e-5);
          c.add(mean, ref.mean, 1e-5);
          c.add(rstd, ref.rstd, 1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto b = tensor<float>::randn("b", {s[1]}, seed + 2);
          auto y = tensor<float>::empty("y", {s[0], s[1]});
          std::vector<float> mean(s[0]), rstd(s[0]);
          return time_it([&] {
            famap X(x.data(), s[0], s[1]), Y(y.data(), s[0], s[1]);
            Eigen::Map<row_arr> W(w.data(), s[1]), B(b.data(), s[1]);
            for (int64_t r = 0; r < s[0]; ++r) {
              mean[r] = X.row(r).mean();
              rstd[r] = 1.0f / std::sqrt((X.row(r) - mean[r]).square().mean() + 1e-5f);
              Y.row(r) = (X.row(r) - mean[r]) * rstd[r] * W + B;
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto b = tensor<float>::randn("b", {s[1]}, seed + 2);
          auto y = output<float>("y", {s[0], s[1]});
          std::vector<float> mean(s[0]), rstd(s[0]);
          const double ms = gpu::layernorm_fwd(
              gpu::dtype_id::f32, x.data(), w.data(), b.data(), y.data(), mean.data(), rstd.data(),
              static_cast<int>(s[0]), static_cast<int>(s[1]), 1e-5f);
          return finish_gpu(y, ms, kernels::ref::layernorm_fwd(x, w, b).y, 1e-5, cpu, 1e-5,
                            [&](tensor<float>& o) {
                              auto m = tensor<float>::empty("mean", {s[0]});
                              auto r = tensor<float>::empty("rstd", {s[0]});
                              return kernels::layernorm_fwd(x, w, b, o, m, r);
                            });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0);
          auto w = tensor<float>::randn("w", {s[1]}, seed + 1);
          auto b = tensor<float>::randn("b", {s[1]}, seed + 2);
          auto y = output<float>("y", {s[0], s[1]});
          auto mean = output<float>("mean", {s[0]});
          auto rstd = output<float>("rstd", {s[0]});
          const auto ref = kernels::ref::layernorm_fwd(x, w, b);
          return emu_compare("layernorm", t)
              .in(x)
              .in(w)
              .in(b)
              .cpu([&] { return kernels::layernorm_fwd(x, w, b, y, mean, rstd); })
              .out(0, y, ref.y, 1e-5, 1e-5)
              .out(1, mean, ref.mean, 1e-5, 1e-5)
              .out(2, rstd, ref.rstd, 1e-5, 1e-5)
              .done();
        },
}};

registrar reg_lock{{
    .name = "layernorm_bwd",
    .description = "LayerNorm backward, f32: dx per row, dw/db into lock-guarded group rows "
                   "(atomic_cas spin), then column sums",
    .size_help = "ROWS,COLS",
    .default_size = {77, 1000},
    .bench_size = {256, 1024},
    .run = [](const std::vector<int64_t>& s,
              uint64_t seed) { return run_bwd(s, seed, kernels::reduction::lock); },
    .native = native_bwd,
    .run_gpu = [](const std::vector<int64_t>& s, uint64_t seed,
                  bool cpu) { return run_bwd_gpu(s, seed, cpu, kernels::reduction::lock); },
    .run_amd_emu = [](const std::vector<int64_t>& s, uint64_t seed,
                      target t) { return run_bwd_emu(s, seed, t, kernels::reduction::lock); },
}};

registrar reg_two{{
    .name = "layernorm_bwd_two_stage",
    .description = "LayerNorm backward, f32: dx per row, dw/db as per-program partial rows "
                   "(no lock), then column sums",
    .size_help = "ROWS,COLS",
    .default_size = {77, 1000},
    .bench_size = {256, 1024},
    .run = [](const std::vector<int64_t>& s,
              uint64_t seed) { return run_bwd(s, seed, kernels::reduction::two_stage); },
    .native = native_bwd,
    .run_gpu = [](const std::vector<int64_t>& s, uint64_t seed,
                  bool cpu) { return run_bwd_gpu(s, seed, cpu, kernels::reduction::two_stage); },
    .run_amd_emu = [](const std::vector<int64_t>& s, uint64_t seed,
                      target t) { return run_bwd_emu(s, seed, t, kernels::reduction::two_stage); },
}};
}  // namespace
}  // namespace bv::cli
