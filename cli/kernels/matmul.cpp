#include "bv/kernels/matmul.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/matmul.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "outcome.hpp"

namespace bv::cli {
namespace {
using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

registrar reg_f32{{
    .name = "matmul",
    .description = "tiled matmul C = A @ B, f32, 64x64x32 tiles, grouped ordering",
    .size_help = "M,N,K",
    .default_size = {200, 136, 97},
    .bench_size = {256, 256, 256},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = tensor<float>::empty("c", {s[0], s[1]});
          poison(c);
          auto r = launch_warm([&] { return kernels::matmul(a, b, c); });
          return compare_with(c, kernels::ref::matmul(a, b), 1e-5, {r});
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = tensor<float>::empty("c", {s[0], s[1]});
          using M = Eigen::Map<RowMat>;
          return time_it([&] {
            M(c.data(), s[0], s[1]).noalias() = M(a.data(), s[0], s[2]) * M(b.data(), s[2], s[1]);
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = tensor<float>::empty("c", {s[0], s[1]});
          poison(c);
          const double ms =
              gpu::matmul(gpu::dtype_id::f32, gpu::dtype_id::f32, a.data(), b.data(), c.data(),
                          static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]));
          // Tensor cores take f32 inputs as tf32 (as Triton does), so compare loosely.
          return finish_gpu(c, ms, kernels::ref::matmul(a, b), 1e-2, cpu,
                            1e-2 * std::sqrt(static_cast<double>(s[2])),
                            [&](tensor<float>& o) { return kernels::matmul(a, b, o); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto a = tensor<float>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<float>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = bv::library::output<float>("c", {s[0], s[1]});
          // MFMA's fp32 sums against the interpreter's, in another order: a few ulps of |c|.
          return emu_compare("matmul", t)
              .in(a)
              .in(b)
              .cpu([&] { return kernels::matmul(a, b, c); })
              .out(0, c, kernels::ref::matmul(a, b), 1e-5,
                   1e-5 * std::sqrt(static_cast<double>(s[2])))
              .done();
        },
}};

registrar reg_f16{{
    .name = "matmul_f16",
    .description = "tiled matmul C = A @ B, f16 inputs and output, fp32 accumulation",
    .size_help = "M,N,K",
    .default_size = {130, 200, 77},
    .bench_size = {256, 256, 256},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<half>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<half>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = tensor<half>::empty("c", {s[0], s[1]});
          poison(c);
          auto r = launch_warm([&] { return kernels::matmul(a, b, c); });
          auto o = compare_with(c, kernels::ref::matmul(a, b), 1e-2, {r});
          o.note = "f16 inputs and output, fp32 accumulation";
          return o;
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto a = tensor<half>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<half>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = tensor<half>::empty("c", {s[0], s[1]});
          using H =
              Eigen::Map<Eigen::Matrix<half, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
          return time_it([&] {
            const RowMat fa = H(a.data(), s[0], s[2]).cast<float>();
            const RowMat fb = H(b.data(), s[2], s[1]).cast<float>();
            H(c.data(), s[0], s[1]) = (fa * fb).cast<half>();
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto a = tensor<half>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<half>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = tensor<half>::empty("c", {s[0], s[1]});
          poison(c);
          const double ms =
              gpu::matmul(gpu::dtype_id::f16, gpu::dtype_id::f16, a.data(), b.data(), c.data(),
                          static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]));
          // Both accumulate in fp32 and round once to f16: they may differ by an f16 ulp.
          return finish_gpu(c, ms, kernels::ref::matmul(a, b), 1e-2, cpu,
                            1e-2 * std::sqrt(static_cast<double>(s[2])),
                            [&](tensor<half>& o) { return kernels::matmul(a, b, o); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto a = tensor<half>::randn("a", {s[0], s[2]}, seed);
          auto b = tensor<half>::randn("b", {s[2], s[1]}, seed + 1);
          auto c = bv::library::output<half>("c", {s[0], s[1]});
          // f16 outputs: the two fp32 sums may round to neighbouring halves.
          return emu_compare("matmul_f16", t)
              .in(a)
              .in(b)
              .cpu([&] { return kernels::matmul(a, b, c); })
              .out(0, c, kernels::ref::matmul(a, b), 1e-2,
                   1e-2 * std::sqrt(static_cast<double>(s[2])))
              .done("f16 inputs and output, fp32 accumulation");
        },
}};
}  // namespace
}  // namespace bv::cli
