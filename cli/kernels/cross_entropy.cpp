// CLI entries: cross_entropy, cross_entropy_bwd (kernels/bv/kernels/cross_entropy.hpp).
#include <random>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/ref/cross_entropy.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
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

registrar reg_fwd{{
    .name = "cross_entropy",
    .description = "cross-entropy loss per row of logits, online log-sum-exp over 2048-wide "
                   "vocabulary chunks, f32",
    .size_help = "ROWS,VOCAB",
    .default_size = {16, 32000},
    .bench_size = {64, 32000},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          auto loss = output<float>("loss", {s[0]});
          auto lse = output<float>("lse", {s[0]});
          checker c;
          c.launched(launch_warm([&] { return kernels::cross_entropy_fwd(x, t, loss, lse); }));
          const auto ref = kernels::ref::cross_entropy_fwd(x, t);
          c.add(loss, ref.loss, 1e-5);
          c.add(lse, ref.lse, 1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          std::vector<float> loss(s[0]);
          return time_it([&] {
            famap X(x.data(), s[0], s[1]);
            for (int64_t r = 0; r < s[0]; ++r) {
              const float m = X.row(r).maxCoeff();
              loss[r] = m + std::log((X.row(r) - m).exp().sum()) - X(r, t(r));
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          auto loss = output<float>("loss", {s[0]});
          std::vector<float> lse(s[0]);
          const double ms =
              gpu::cross_entropy_fwd(gpu::dtype_id::f32, x.data(), t.data(), loss.data(),
                                     lse.data(), static_cast<int>(s[0]), static_cast<int>(s[1]));
          return finish_gpu(loss, ms, kernels::ref::cross_entropy_fwd(x, t).loss, 1e-5, cpu, 1e-4,
                            [&](tensor<float>& o) {
                              auto l = tensor<float>::empty("lse", {s[0]});
                              return kernels::cross_entropy_fwd(x, t, o, l);
                            });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target tg) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          auto loss = output<float>("loss", {s[0]});
          auto lse = output<float>("lse", {s[0]});
          const auto ref = kernels::ref::cross_entropy_fwd(x, t);
          return emu_compare("cross_entropy", tg)
              .in(x)
              .in(t)
              .cpu([&] { return kernels::cross_entropy_fwd(x, t, loss, lse); })
              .out(0, loss, ref.loss, 1e-5, 1e-4)
              .out(1, lse, ref.lse, 1e-5, 1e-4)
              .done();
        },
}};

registrar reg_bwd{{
    .name = "cross_entropy_bwd",
    .description = "cross-entropy backward: (softmax - onehot) * dloss per row, f32",
    .size_help = "ROWS,VOCAB",
    .default_size = {16, 32000},
    .bench_size = {64, 32000},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          auto dloss = tensor<float>::full("dloss", {s[0]}, 1.0f / static_cast<float>(s[0]));
          auto loss = tensor<float>::empty("loss", {s[0]});
          auto lse = tensor<float>::empty("lse", {s[0]});
          kernels::cross_entropy_fwd(x, t, loss, lse);
          auto dx = output<float>("dx", {s[0], s[1]});
          checker c;
          c.launched(launch_warm([&] { return kernels::cross_entropy_bwd(x, t, lse, dloss, dx); }));
          c.add(dx, kernels::ref::cross_entropy_bwd(x, t, dloss), 1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          auto dx = tensor<float>::empty("dx", {s[0], s[1]});
          famap X(x.data(), s[0], s[1]), DX(dx.data(), s[0], s[1]);
          std::vector<float> lse(s[0]);
          for (int64_t r = 0; r < s[0]; ++r) {
            const float m = X.row(r).maxCoeff();
            lse[r] = m + std::log((X.row(r) - m).exp().sum());
          }
          const float d = 1.0f / static_cast<float>(s[0]);
          return time_it([&] {
            for (int64_t r = 0; r < s[0]; ++r) {
              DX.row(r) = (X.row(r) - lse[r]).exp() * d;
              DX(r, t(r)) -= d;
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          auto dloss = tensor<float>::full("dloss", {s[0]}, 1.0f / static_cast<float>(s[0]));
          auto loss = tensor<float>::empty("loss", {s[0]});
          auto lse = tensor<float>::empty("lse", {s[0]});
          kernels::cross_entropy_fwd(x, t, loss, lse);  // lse, as a training step would have it
          auto dx = output<float>("dx", {s[0], s[1]});
          const double ms = gpu::cross_entropy_bwd(gpu::dtype_id::f32, x.data(), t.data(),
                                                   lse.data(), dloss.data(), dx.data(),
                                                   static_cast<int>(s[0]), static_cast<int>(s[1]));
          return finish_gpu(
              dx, ms, kernels::ref::cross_entropy_bwd(x, t, dloss), 1e-5, cpu, 1e-6,
              [&](tensor<float>& o) { return kernels::cross_entropy_bwd(x, t, lse, dloss, o); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target tg) {
          auto x = tensor<float>::randn("logits", {s[0], s[1]}, seed, 3.0);
          auto t = targets(s[0], s[1], seed);
          auto dloss = tensor<float>::full("dloss", {s[0]}, 1.0f / static_cast<float>(s[0]));
          auto loss = tensor<float>::empty("loss", {s[0]});
          auto lse = tensor<float>::empty("lse", {s[0]});
          kernels::cross_entropy_fwd(x, t, loss, lse);  // lse, as a training step would have it
          auto dx = output<float>("dx", {s[0], s[1]});
          return emu_compare("cross_entropy_bwd", tg)
              .in(x)
              .in(t)
              .in(lse)
              .in(dloss)
              .cpu([&] { return kernels::cross_entropy_bwd(x, t, lse, dloss, dx); })
              .out(0, dx, kernels::ref::cross_entropy_bwd(x, t, dloss), 1e-5, 1e-6)
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
