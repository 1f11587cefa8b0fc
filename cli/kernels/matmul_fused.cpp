// CLI entries: matmul_bias_gelu (fused epilogue), matmul_splitk
// (kernels/bv/kernels/matmul_fused.hpp).
#include "bv/kernels/matmul_fused.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/matmul_fused.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

registrar reg_epi{{
    .name = "matmul_bias_gelu",
    .description = "tiled matmul with a fused epilogue: GELU-tanh(A @ B + bias), f32",
    .size_help = "M,N,K",
    .default_size = {200, 136, 97},
    .bench_size = {256, 256, 256},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed, 0.2);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1, 0.2);
          auto bias = tensor<float>::randn("bias", {s[1]}, seed + 2);
          auto c = output<float>("c", {s[0], s[1]});
          checker ch;
          ch.launched(launch_warm([&] {
            return kernels::matmul_bias_act<kernels::epilogue::gelu_tanh>(a, b, bias, c);
          }));
          ch.add(c, kernels::ref::matmul_bias_act(a, b, bias, 3), 1e-5);
          return ch.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed, 0.2);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1, 0.2);
          auto bias = tensor<float>::randn("bias", {s[1]}, seed + 2);
          auto c = tensor<float>::empty("c", {s[0], s[1]});
          return time_it([&] {
            fmap C(c.data(), s[0], s[1]);
            C.noalias() = fmap(a.data(), s[0], s[2]) * fmap(b.data(), s[2], s[1]);
            famap G(c.data(), s[0], s[1]);
            G.rowwise() += Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>>(bias.data(), s[1]);
            const farr e =
                (2.0f * (0.7978845608028654f * (G + 0.044715f * G.cube())).min(10.0f).max(-10.0f))
                    .exp();
            G = 0.5f * G * (1.0f + (e - 1.0f) / (e + 1.0f));
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed, 0.2);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1, 0.2);
          auto bias = tensor<float>::randn("bias", {s[1]}, seed + 2);
          auto c = output<float>("c", {s[0], s[1]});
          const double ms = gpu::matmul_bias_gelu(gpu::dtype_id::f32, a.data(), b.data(),
                                                  bias.data(), c.data(), static_cast<int>(s[0]),
                                                  static_cast<int>(s[1]), static_cast<int>(s[2]));
          return finish_gpu(c, ms, kernels::ref::matmul_bias_act(a, b, bias, 3), 1e-5, cpu, 1e-5,
                            [&](tensor<float>& o) {
                              return kernels::matmul_bias_act<kernels::epilogue::gelu_tanh>(
                                  a, b, bias, o);
                            });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed, 0.2);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1, 0.2);
          auto bias = tensor<float>::randn("bias", {s[1]}, seed + 2);
          auto c = output<float>("c", {s[0], s[1]});
          return emu_compare("matmul_bias_gelu", t)
              .in(a)
              .in(b)
              .in(bias)
              .cpu([&] {
                return kernels::matmul_bias_act<kernels::epilogue::gelu_tanh>(a, b, bias, c);
              })
              .out(0, c, kernels::ref::matmul_bias_act(a, b, bias, 3), 1e-5, 1e-5)
              .done();
        },
}};

registrar reg_splitk{{
    .name = "matmul_splitk",
    .description = "split-K matmul: K cut 8 ways, partial tiles added into C with atomic_add, f32",
    .size_help = "M,N,K",
    .default_size = {64, 96, 1000},
    .bench_size = {128, 128, 2048},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = output<float>("c", {s[0], s[1]});
          checker ch;
          ch.launched(launch_warm([&] { return kernels::matmul_splitk(a, b, c, 8); }));
          ch.add(c, kernels::ref::matmul_splitk(a, b), 1e-5);
          return ch.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = tensor<float>::empty("c", {s[0], s[1]});
          return time_it([&] {
            fmap(c.data(), s[0], s[1]).noalias() =
                fmap(a.data(), s[0], s[2]) * fmap(b.data(), s[2], s[1]);
          });
        },
    // The GPU adds the 8 partial tiles with atomics in whatever order they land: the sum's
    // rounding differs from the interpreter's by a few ulps of the dot products.
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = output<float>("c", {s[0], s[1]});
          const double ms = gpu::matmul_splitk(gpu::dtype_id::f32, a.data(), b.data(), c.data(),
                                               static_cast<int>(s[0]), static_cast<int>(s[1]),
                                               static_cast<int>(s[2]), 8);
          return finish_gpu(c, ms, kernels::ref::matmul_splitk(a, b), 1e-5, cpu,
                            1e-4 * std::sqrt(static_cast<double>(s[2])),
                            [&](tensor<float>& o) { return kernels::matmul_splitk(a, b, o, 8); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = output<float>("c", {s[0], s[1]});
          return emu_compare("matmul_splitk", t)
              .in(a)
              .in(b)
              .param(8)
              .cpu([&] { return kernels::matmul_splitk(a, b, c, 8); })
              .out(0, c, kernels::ref::matmul_splitk(a, b), 1e-5,
                   1e-4 * std::sqrt(static_cast<double>(s[2])))
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
