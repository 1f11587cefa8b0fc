// CLI entries: attention, attention_causal, attention_bwd (kernels/bv/kernels/attention.hpp).
#include "bv/kernels/attention.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/attention.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

std::vector<int64_t> shape4(const std::vector<int64_t>& s) { return {s[0], s[1], s[2], s[3]}; }

outcome run_fwd(const std::vector<int64_t>& s, uint64_t seed, bool causal) {
  auto q = tensor<float>::randn("q", shape4(s), seed);
  auto k = tensor<float>::randn("k", shape4(s), seed + 1);
  auto v = tensor<float>::randn("v", shape4(s), seed + 2);
  auto o = output<float>("o", shape4(s));
  auto lse = output<float>("lse", {s[0] * s[1], s[2]});
  checker c;
  c.launched(launch_warm([&] { return kernels::attention_fwd(q, k, v, o, lse, causal); }));
  const auto ref = kernels::ref::attention_fwd(q, k, v, causal);
  c.add(o, ref.o, 1e-5);
  c.add(lse, ref.lse, 1e-5);
  return c.done();
}

// Native: per head, S = Q K^T * scale as one GEMM, row softmax, O = P V: the unfused computation
// at its best on one core.
double native_fwd(const std::vector<int64_t>& s, uint64_t seed, bool causal) {
  auto q = tensor<float>::randn("q", shape4(s), seed);
  auto k = tensor<float>::randn("k", shape4(s), seed + 1);
  auto v = tensor<float>::randn("v", shape4(s), seed + 2);
  auto o = tensor<float>::empty("o", shape4(s));
  const int64_t n = s[2], d = s[3];
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  fmat sc(n, n);
  return time_it([&] {
    for (int64_t h = 0; h < s[0] * s[1]; ++h) {
      fmap Q(q.data() + h * n * d, n, d), K(k.data() + h * n * d, n, d),
          V(v.data() + h * n * d, n, d), O(o.data() + h * n * d, n, d);
      sc.noalias() = (Q * K.transpose()) * scale;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t len = causal ? i + 1 : n;
        auto row = sc.row(i).head(len).array();
        row = (row - row.maxCoeff()).exp();
        row /= row.sum();
        if (len < n) sc.row(i).tail(n - len).setZero();
      }
      O.noalias() = sc * V;
    }
  });
}

// The GPU build instantiates attention for f16 and head dim 64: the GPU run draws f16 inputs, and
// the interpreter (--backend both) runs the f16 kernel on the same ones.
gpu_outcome run_fwd_gpu(const std::vector<int64_t>& s, uint64_t seed, bool cpu, bool causal) {
  auto q = tensor<half>::randn("q", shape4(s), seed);
  auto k = tensor<half>::randn("k", shape4(s), seed + 1);
  auto v = tensor<half>::randn("v", shape4(s), seed + 2);
  auto o = output<half>("o", shape4(s));
  std::vector<float> lse(static_cast<size_t>(s[0] * s[1] * s[2]));
  const double ms = gpu::attention_fwd(gpu::dtype_id::f16, q.data(), k.data(), v.data(), o.data(),
                                       lse.data(), static_cast<int>(s[0]), static_cast<int>(s[1]),
                                       static_cast<int>(s[2]), static_cast<int>(s[3]), causal);
  return finish_gpu(o, ms, kernels::ref::attention_fwd(q, k, v, causal).o, 1e-2, cpu, 2e-2,
                    [&](tensor<half>& out) {
                      auto l = tensor<float>::empty("lse", {s[0] * s[1], s[2]});
                      return kernels::attention_fwd(q, k, v, out, l, causal);
                    });
}

emu_outcome run_fwd_emu(const std::vector<int64_t>& s, uint64_t seed, target t, bool causal) {
  auto q = tensor<float>::randn("q", shape4(s), seed);
  auto k = tensor<float>::randn("k", shape4(s), seed + 1);
  auto v = tensor<float>::randn("v", shape4(s), seed + 2);
  auto o = output<float>("o", shape4(s));
  auto lse = output<float>("lse", {s[0] * s[1], s[2]});
  const auto ref = kernels::ref::attention_fwd(q, k, v, causal);
  return emu_compare(causal ? "attention_causal" : "attention", t)
      .in(q)
      .in(k)
      .in(v)
      .cpu([&] { return kernels::attention_fwd(q, k, v, o, lse, causal); })
      .out(0, o, ref.o, 1e-5, 1e-4)
      .out(1, lse, ref.lse, 1e-5, 1e-4)
      .done();
}

registrar reg_fwd{{
    .name = "attention",
    .description = "flash attention forward, online softmax, f32, non-causal",
    .size_help = "B,H,S,D (D = 64 or 128)",
    .default_size = {1, 2, 200, 64},
    .bench_size = {1, 2, 256, 64},
    .run = [](const std::vector<int64_t>& s, uint64_t seed) { return run_fwd(s, seed, false); },
    .native = [](const std::vector<int64_t>& s,
                 uint64_t seed) { return native_fwd(s, seed, false); },
    .run_gpu = [](const std::vector<int64_t>& s, uint64_t seed,
                  bool cpu) { return run_fwd_gpu(s, seed, cpu, false); },
    .run_amd_emu = [](const std::vector<int64_t>& s, uint64_t seed,
                      target t) { return run_fwd_emu(s, seed, t, false); },
}};

registrar reg_causal{{
    .name = "attention_causal",
    .description = "flash attention forward, causal, f32, head dim 128",
    .size_help = "B,H,S,D (D = 64 or 128)",
    .default_size = {1, 2, 150, 128},
    .bench_size = {1, 2, 256, 128},
    .run = [](const std::vector<int64_t>& s, uint64_t seed) { return run_fwd(s, seed, true); },
    .native = [](const std::vector<int64_t>& s,
                 uint64_t seed) { return native_fwd(s, seed, true); },
    // GPU: head dim 64 only in this build (pass a size such as 1,2,150,64).
    .run_gpu = [](const std::vector<int64_t>& s, uint64_t seed,
                  bool cpu) { return run_fwd_gpu(s, seed, cpu, true); },
    .run_amd_emu = [](const std::vector<int64_t>& s, uint64_t seed,
                      target t) { return run_fwd_emu(s, seed, t, true); },
}};

registrar reg_bwd{{
    .name = "attention_bwd",
    .description = "flash attention backward (dq, dk, dv), recomputing P from lse, f32, causal",
    .size_help = "B,H,S,D (D = 64 or 128)",
    .default_size = {1, 2, 150, 64},
    .bench_size = {1, 2, 256, 64},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto q = tensor<float>::randn("q", shape4(s), seed);
          auto k = tensor<float>::randn("k", shape4(s), seed + 1);
          auto v = tensor<float>::randn("v", shape4(s), seed + 2);
          auto dout = tensor<float>::randn("dout", shape4(s), seed + 3);
          auto o = tensor<float>::empty("o", shape4(s));
          auto lse = tensor<float>::empty("lse", {s[0] * s[1], s[2]});
          kernels::attention_fwd(q, k, v, o, lse, true);
          auto dq = output<float>("dq", shape4(s));
          auto dk = output<float>("dk", shape4(s));
          auto dv = output<float>("dv", shape4(s));
          checker c;
          c.launched(launch_warm(
              [&] { return kernels::attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, true); }));
          const auto ref = kernels::ref::attention_bwd(q, k, v, dout, true);
          c.add(dq, ref.dq, 1e-5);
          c.add(dk, ref.dk, 1e-5);
          c.add(dv, ref.dv, 1e-5);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto q = tensor<float>::randn("q", shape4(s), seed);
          auto k = tensor<float>::randn("k", shape4(s), seed + 1);
          auto v = tensor<float>::randn("v", shape4(s), seed + 2);
          auto dout = tensor<float>::randn("dout", shape4(s), seed + 3);
          auto dq = tensor<float>::empty("dq", shape4(s));
          auto dk = tensor<float>::empty("dk", shape4(s));
          auto dv = tensor<float>::empty("dv", shape4(s));
          const int64_t n = s[2], d = s[3];
          const float scale = 1.0f / std::sqrt(static_cast<float>(d));
          fmat p(n, n), dp(n, n);
          return time_it([&] {
            for (int64_t h = 0; h < s[0] * s[1]; ++h) {
              const int64_t off = h * n * d;
              fmap Q(q.data() + off, n, d), K(k.data() + off, n, d), V(v.data() + off, n, d),
                  dO(dout.data() + off, n, d), dQ(dq.data() + off, n, d), dK(dk.data() + off, n, d),
                  dV(dv.data() + off, n, d);
              p.noalias() = (Q * K.transpose()) * scale;
              for (int64_t i = 0; i < n; ++i) {
                auto row = p.row(i).head(i + 1).array();
                row = (row - row.maxCoeff()).exp();
                row /= row.sum();
                p.row(i).tail(n - i - 1).setZero();
              }
              dV.noalias() = p.transpose() * dO;
              dp.noalias() = dO * V.transpose();
              const Eigen::VectorXf delta = (p.array() * dp.array()).rowwise().sum();
              dp = (p.array() * (dp.array().colwise() - delta.array())).matrix();
              dQ.noalias() = (dp * K) * scale;
              dK.noalias() = (dp.transpose() * Q) * scale;
            }
          });
        },
    // GPU: f16 inputs and head dim 64 in this build; the interpreter runs the f16 kernel too.
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto q = tensor<half>::randn("q", shape4(s), seed);
          auto k = tensor<half>::randn("k", shape4(s), seed + 1);
          auto v = tensor<half>::randn("v", shape4(s), seed + 2);
          auto dout = tensor<half>::randn("dout", shape4(s), seed + 3);
          auto o = tensor<half>::empty("o", shape4(s));
          auto lse = tensor<float>::empty("lse", {s[0] * s[1], s[2]});
          kernels::attention_fwd(q, k, v, o, lse, true);
          auto dq = output<half>("dq", shape4(s));
          auto dk = output<half>("dk", shape4(s));
          auto dv = output<half>("dv", shape4(s));
          const double ms = gpu::attention_bwd(
              gpu::dtype_id::f16, q.data(), k.data(), v.data(), o.data(), lse.data(), dout.data(),
              dq.data(), dk.data(), dv.data(), static_cast<int>(s[0]), static_cast<int>(s[1]),
              static_cast<int>(s[2]), static_cast<int>(s[3]), true);
          const auto ref = kernels::ref::attention_bwd(q, k, v, dout, true);
          // dq against the reference and the interpreter; dk and dv folded into the GPU's outcome.
          auto g = finish_gpu(dq, ms, ref.dq, 2e-2, cpu, 5e-2, [&](tensor<half>& out) {
            auto dk_cpu = tensor<half>::empty("dk(cpu)", shape4(s));
            auto dv_cpu = tensor<half>::empty("dv(cpu)", shape4(s));
            return kernels::attention_bwd(q, k, v, o, lse, dout, out, dk_cpu, dv_cpu, true).back();
          });
          checker c{g.gpu, true};
          c.add(dk, ref.dk, 2e-2);
          c.add(dv, ref.dv, 2e-2);
          g.gpu = c.done(g.gpu.note);
          return g;
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto q = tensor<float>::randn("q", shape4(s), seed);
          auto k = tensor<float>::randn("k", shape4(s), seed + 1);
          auto v = tensor<float>::randn("v", shape4(s), seed + 2);
          auto dout = tensor<float>::randn("dout", shape4(s), seed + 3);
          auto o = tensor<float>::empty("o", shape4(s));
          auto lse = tensor<float>::empty("lse", {s[0] * s[1], s[2]});
          kernels::attention_fwd(q, k, v, o, lse, true);  // o and lse, as the forward left them
          auto dq = output<float>("dq", shape4(s));
          auto dk = output<float>("dk", shape4(s));
          auto dv = output<float>("dv", shape4(s));
          const auto ref = kernels::ref::attention_bwd(q, k, v, dout, true);
          return emu_compare("attention_bwd", t)
              .in(q)
              .in(k)
              .in(v)
              .in(o)
              .in(dout)
              .in(lse)
              .cpu([&] { return kernels::attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, true); })
              .out(0, dq, ref.dq, 1e-5, 1e-4)
              .out(1, dk, ref.dk, 1e-5, 1e-4)
              .out(2, dv, ref.dv, 1e-5, 1e-4)
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
