// cross_entropy and cross_entropy_bwd: the kernels (bv/kernels/cross_entropy.hpp), their
// references (bv/kernels/ref/cross_entropy.hpp) and one registration each; Eigen arrays time
// bench's native column.
#include <random>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/ref/cross_entropy.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

tensor<int32_t> targets(int64_t m, int64_t v, uint64_t seed) {
  auto t = tensor<int32_t>("target", {m});
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < m; ++i) t(i) = static_cast<int32_t>(rng() % v);
  return t;
}

// Logits [ROWS, VOCAB] and one target per row; the forward's loss and lse (the backward's input,
// made by the forward on the interpreter); the backward's dloss and dx.
struct io {
  tensor<float> x;
  tensor<int32_t> t;
  tensor<float> loss, lse, dloss, dx;
  int rows() const { return static_cast<int>(x.size(0)); }
  int vocab() const { return static_cast<int>(x.size(1)); }
};

io make_fwd(const sizes& s, uint64_t seed) {
  return io{tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0),
            targets(s[0], s[1], seed),
            output<float>("loss", {s[0]}),
            output<float>("lse", {s[0]}),
            {},
            {}};
}

registrar reg_fwd{
    kernel<io, kernels::ref::cross_entropy_result>{
        .name = "cross_entropy",
        .description = "cross-entropy loss per row of logits, online log-sum-exp over 2048-wide "
                       "vocabulary chunks, f32",
        .size_help = "ROWS,VOCAB",
        .default_size = {16, 32000},
        .bench_size = {64, 32000},
        .make = make_fwd,
        .launch = [](io& a) { return kernels::cross_entropy_fwd(a.x, a.t, a.loss, a.lse); },
        .reference = [](const io& a) { return kernels::ref::cross_entropy_fwd(a.x, a.t); },
        .compare =
            [](checker& c, const io& a, const kernels::ref::cross_entropy_result& r) {
              c.expect(a.loss, r.loss, 1e-5);
              c.expect(a.lse, r.lse, 1e-5);
            },
        .native =
            [](io& a) {
              return [&a, rows = a.x.size(0), loss = std::vector<float>(a.x.size(0))]() mutable {
                famap X(a.x.data(), rows, a.x.size(1));
                for (int64_t r = 0; r < rows; ++r) {
                  const float m = X.row(r).maxCoeff();
                  loss[r] = m + std::log((X.row(r) - m).exp().sum()) - X(r, a.t(r));
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              std::vector<float> lse(a.x.size(0));
              const double ms =
                  gpu::cross_entropy_fwd(gpu::dtype_id::f32, a.x.data(), a.t.data(), a.loss.data(),
                                         lse.data(), a.rows(), a.vocab());
              return finish_gpu(a.loss, ms, kernels::ref::cross_entropy_fwd(a.x, a.t).loss, 1e-5,
                                cpu, 1e-4, [&](tensor<float>& o) {
                                  auto l = tensor<float>::empty("lse", a.lse.shape());
                                  return kernels::cross_entropy_fwd(a.x, a.t, o, l);
                                });
            },
        .amd_emu =
            [](io& a, const kernels::ref::cross_entropy_result& ref, target tg) {
              return emu_compare("cross_entropy", tg)
                  .in(a.x)
                  .in(a.t)
                  .cpu([&] { return kernels::cross_entropy_fwd(a.x, a.t, a.loss, a.lse); })
                  .out(0, a.loss, ref.loss, 1e-5, 1e-4)
                  .out(1, a.lse, ref.lse, 1e-5, 1e-4)
                  .done();
            },
    }};

registrar reg_bwd{
    kernel<io, doubles>{
        .name = "cross_entropy_bwd",
        .description = "cross-entropy backward: (softmax - onehot) * dloss per row, f32",
        .size_help = "ROWS,VOCAB",
        .default_size = {16, 32000},
        .bench_size = {64, 32000},
        .make =
            [](const sizes& s, uint64_t seed) {
              io a{tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0),
                   targets(s[0], s[1], seed),
                   tensor<float>::empty("loss", {s[0]}),
                   tensor<float>::empty("lse", {s[0]}),
                   tensor<float>::full("dloss", {s[0]}, 1.0f / static_cast<float>(s[0])),
                   output<float>("dx", {s[0], s[1]})};
              kernels::cross_entropy_fwd(a.x, a.t, a.loss, a.lse);  // as a training step has it
              return a;
            },
        .launch = [](io& a) { return kernels::cross_entropy_bwd(a.x, a.t, a.lse, a.dloss, a.dx); },
        .reference = [](const io& a) { return kernels::ref::cross_entropy_bwd(a.x, a.t, a.dloss); },
        .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.dx, r, 1e-5); },
        // With the forward's lse, as the kernel takes it.
        .native =
            [](io& a) {
              return [&a, rows = a.x.size(0), vocab = a.x.size(1)] {
                famap X(a.x.data(), rows, vocab), DX(a.dx.data(), rows, vocab);
                const float d = 1.0f / static_cast<float>(rows);
                for (int64_t r = 0; r < rows; ++r) {
                  DX.row(r) = (X.row(r) - a.lse(r)).exp() * d;
                  DX(r, a.t(r)) -= d;
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const double ms =
                  gpu::cross_entropy_bwd(gpu::dtype_id::f32, a.x.data(), a.t.data(), a.lse.data(),
                                         a.dloss.data(), a.dx.data(), a.rows(), a.vocab());
              return finish_gpu(a.dx, ms, kernels::ref::cross_entropy_bwd(a.x, a.t, a.dloss), 1e-5,
                                cpu, 1e-6, [&](tensor<float>& o) {
                                  return kernels::cross_entropy_bwd(a.x, a.t, a.lse, a.dloss, o);
                                });
            },
        .amd_emu =
            [](io& a, const doubles& ref, target tg) {
              return emu_compare("cross_entropy_bwd", tg)
                  .in(a.x)
                  .in(a.t)
                  .in(a.lse)
                  .in(a.dloss)
                  .cpu([&] { return kernels::cross_entropy_bwd(a.x, a.t, a.lse, a.dloss, a.dx); })
                  .out(0, a.dx, ref, 1e-5, 1e-6)
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
