// layernorm, layernorm_bwd (lock) and layernorm_bwd_two_stage: the kernels
// (bv/kernels/layernorm.hpp), their references (bv/kernels/ref/layernorm.hpp) and one
// registration each, the two backwards made by one function of the reduction; Eigen arrays time
// bench's native column.
#include "bv/kernels/layernorm.hpp"

#include <cmath>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/layernorm.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;
using row_arr = Eigen::Array<float, 1, Eigen::Dynamic>;
using kernels::reduction;

// x [ROWS, COLS], w and b [COLS]; the forward's y, mean and rstd (the backward's inputs, made by
// the forward on the interpreter); the backward's dy in, dx, dw and db out.
struct io {
  tensor<float> x, w, b, y, mean, rstd, dy, dx, dw, db;
  int rows() const { return static_cast<int>(x.size(0)); }
  int cols() const { return static_cast<int>(x.size(1)); }
};

io make_fwd(const sizes& s, uint64_t seed) {
  return io{tensor<float>::randn("x", {s[0], s[1]}, seed, 2.0),
            tensor<float>::randn("w", {s[1]}, seed + 1),
            tensor<float>::randn("b", {s[1]}, seed + 2),
            output<float>("y", {s[0], s[1]}),
            output<float>("mean", {s[0]}),
            output<float>("rstd", {s[0]})};
}

registrar reg_fwd{
    kernel<io, kernels::ref::layernorm_result>{
        .name = "layernorm",
        .description = "LayerNorm forward, f32, one program per row, mean and rstd saved",
        .size_help = "ROWS,COLS",
        .default_size = {77, 1000},
        .bench_size = {256, 1024},
        .make = make_fwd,
        .launch = [](io& a) { return kernels::layernorm_fwd(a.x, a.w, a.b, a.y, a.mean, a.rstd); },
        .reference = [](const io& a) { return kernels::ref::layernorm_fwd(a.x, a.w, a.b); },
        .compare =
            [](checker& c, const io& a, const kernels::ref::layernorm_result& r) {
              c.expect(a.y, r.y, 1e-5);
              c.expect(a.mean, r.mean, 1e-5);
              c.expect(a.rstd, r.rstd, 1e-5);
            },
        .native =
            [](io& a) {
              return [&a, rows = a.x.size(0), cols = a.x.size(1)] {
                famap X(a.x.data(), rows, cols), Y(a.y.data(), rows, cols);
                Eigen::Map<row_arr> W(a.w.data(), cols), B(a.b.data(), cols);
                float *mean = a.mean.data(), *rstd = a.rstd.data();
                for (int64_t r = 0; r < rows; ++r) {
                  mean[r] = X.row(r).mean();
                  rstd[r] = 1.0f / std::sqrt((X.row(r) - mean[r]).square().mean() + 1e-5f);
                  Y.row(r) = (X.row(r) - mean[r]) * rstd[r] * W + B;
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              std::vector<float> mean(a.rows()), rstd(a.rows());
              const double ms = gpu::layernorm_fwd(gpu::dtype_id::f32, a.x.data(), a.w.data(),
                                                   a.b.data(), a.y.data(), mean.data(), rstd.data(),
                                                   a.rows(), a.cols(), 1e-5f);
              return finish_gpu(a.y, ms, kernels::ref::layernorm_fwd(a.x, a.w, a.b).y, 1e-5, cpu,
                                1e-5, [&](tensor<float>& o) {
                                  auto m = tensor<float>::empty("mean", a.mean.shape());
                                  auto r = tensor<float>::empty("rstd", a.rstd.shape());
                                  return kernels::layernorm_fwd(a.x, a.w, a.b, o, m, r);
                                });
            },
        .amd_emu =
            [](io& a, const kernels::ref::layernorm_result& ref, target t) {
              return emu_compare("layernorm", t)
                  .in(a.x)
                  .in(a.w)
                  .in(a.b)
                  .cpu([&] { return kernels::layernorm_fwd(a.x, a.w, a.b, a.y, a.mean, a.rstd); })
                  .out(0, a.y, ref.y, 1e-5, 1e-5)
                  .out(1, a.mean, ref.mean, 1e-5, 1e-5)
                  .out(2, a.rstd, ref.rstd, 1e-5, 1e-5)
                  .done();
            },
    }};

// The backward's inputs: the forward's on the interpreter, then dy and the outputs.
io make_bwd(const sizes& s, uint64_t seed) {
  io a = make_fwd(s, seed);
  a.y = tensor<float>::empty("y", {s[0], s[1]});
  a.mean = tensor<float>::empty("mean", {s[0]});
  a.rstd = tensor<float>::empty("rstd", {s[0]});
  kernels::layernorm_fwd(a.x, a.w, a.b, a.y, a.mean, a.rstd);
  a.dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 3);
  a.dx = output<float>("dx", {s[0], s[1]});
  a.dw = output<float>("dw", {s[1]});
  a.db = output<float>("db", {s[1]});
  return a;
}

// The backward's kernels into dx (a.dx, or the interpreter's copy beside a GPU run).
launches launch_bwd(io& a, tensor<float>& dx, tensor<float>& dw, tensor<float>& db, reduction how) {
  return kernels::layernorm_bwd(a.dy, a.x, a.w, a.mean, a.rstd, dx, dw, db, how);
}

// Native: dx per row, dw and db summed over rows, with the forward's statistics.
std::function<void()> native_bwd(io& a) {
  return [&a, rows = a.x.size(0), cols = a.x.size(1), dw = row_arr(a.x.size(1)),
          db = row_arr(a.x.size(1))]() mutable {
    famap X(a.x.data(), rows, cols), DY(a.dy.data(), rows, cols), DX(a.dx.data(), rows, cols);
    Eigen::Map<row_arr> W(a.w.data(), cols);
    const float *mean = a.mean.data(), *rstd = a.rstd.data();
    dw.setZero();
    db.setZero();
    for (int64_t r = 0; r < rows; ++r) {
      const row_arr xhat = (X.row(r) - mean[r]) * rstd[r];
      const row_arr g = DY.row(r) * W;
      const float c1 = (xhat * g).sum() / cols, c2 = g.sum() / cols;
      DX.row(r) = (g - (xhat * c1 + c2)) * rstd[r];
      dw += DY.row(r) * xhat;
      db += DY.row(r);
    }
  };
}

registrar reg_bwd(reduction how, const char* name, const char* description) {
  return registrar{
      kernel<io, kernels::ref::layernorm_grads>{
          .name = name,
          .description = description,
          .size_help = "ROWS,COLS",
          .default_size = {77, 1000},
          .bench_size = {256, 1024},
          .make = make_bwd,
          .launch = [how](io& a) { return launch_bwd(a, a.dx, a.dw, a.db, how); },
          .reference = [](const io& a) { return kernels::ref::layernorm_bwd(a.dy, a.x, a.w); },
          .compare =
              [](checker& c, const io& a, const kernels::ref::layernorm_grads& r) {
                c.expect(a.dx, r.dx, 1e-5);
                c.expect(a.dw, r.dw, 1e-5);
                c.expect(a.db, r.db, 1e-5);
              },
          .native = native_bwd,
      },
      {
          .gpu =
              [how](io& a, bool cpu) {
                const double ms =
                    gpu::layernorm_bwd(gpu::dtype_id::f32, how == reduction::lock, a.dy.data(),
                                       a.x.data(), a.w.data(), a.mean.data(), a.rstd.data(),
                                       a.dx.data(), a.dw.data(), a.db.data(), a.rows(), a.cols());
                const auto ref = kernels::ref::layernorm_bwd(a.dy, a.x, a.w);
                // dx against the reference and the interpreter; dw and db folded into the GPU's.
                auto g = finish_gpu(a.dx, ms, ref.dx, 1e-5, cpu, 1e-5, [&](tensor<float>& o) {
                  auto dw_cpu = tensor<float>::empty("dw(cpu)", a.dw.shape());
                  auto db_cpu = tensor<float>::empty("db(cpu)", a.db.shape());
                  return launch_bwd(a, o, dw_cpu, db_cpu, how).front();
                });
                fold_into(g.gpu, a.dw, ref.dw, 1e-5);
                fold_into(g.gpu, a.db, ref.db, 1e-5);
                return g;
              },
          .amd_emu =
              [how, name](io& a, const kernels::ref::layernorm_grads& ref, target t) {
                // dw and db sum a column over every row (in an order the lock makes arbitrary):
                // their difference grows with the rows.
                const double col_tol = 1e-5 * a.rows();
                return emu_compare(name, t)
                    .in(a.dy)
                    .in(a.x)
                    .in(a.w)
                    .in(a.mean)
                    .in(a.rstd)
                    .cpu([&] { return launch_bwd(a, a.dx, a.dw, a.db, how); })
                    .out(0, a.dx, ref.dx, 1e-5, 1e-5)
                    .out(1, a.dw, ref.dw, 1e-5, col_tol)
                    .out(2, a.db, ref.db, 1e-5, col_tol)
                    .done();
              },
      }};
}

registrar reg_lock = reg_bwd(reduction::lock, "layernorm_bwd",
                             "LayerNorm backward, f32: dx per row, dw/db into lock-guarded group "
                             "rows (atomic_cas spin), then column sums");
registrar reg_two = reg_bwd(reduction::two_stage, "layernorm_bwd_two_stage",
                            "LayerNorm backward, f32: dx per row, dw/db as per-program partial "
                            "rows (no lock), then column sums");

}  // namespace
}  // namespace bv::cli
