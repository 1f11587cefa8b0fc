// matmul_bias_gelu (fused epilogue) and matmul_splitk: the kernels
// (bv/kernels/matmul_fused.hpp), their references (bv/kernels/ref/matmul_fused.hpp) and one
// registration each; Eigen times bench's native column.
#include "bv/kernels/matmul_fused.hpp"

#include <cmath>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/matmul_fused.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

// A [M, K], B [K, N], bias [N] (the epilogue's only), C [M, N].
struct io {
  tensor<float> a, b, bias, c;
  int m() const { return static_cast<int>(a.size(0)); }
  int n() const { return static_cast<int>(b.size(1)); }
  int k() const { return static_cast<int>(a.size(1)); }
};

constexpr int splits = 8;     // matmul_splitk's K pieces
constexpr int gelu_tanh = 3;  // kernels::ref::matmul_bias_act's code for the epilogue

auto gelu_launch(const io& x, tensor<float>& c) {
  return kernels::matmul_bias_act<kernels::epilogue::gelu_tanh>(x.a, x.b, x.bias, c);
}

registrar reg_epi{
    kernel<io, doubles>{
        .name = "matmul_bias_gelu",
        .description = "tiled matmul with a fused epilogue: GELU-tanh(A @ B + bias), f32",
        .size_help = "M,N,K",
        .default_size = {200, 136, 97},
        .bench_size = {256, 256, 256},
        .make =
            [](const sizes& s, uint64_t seed) {
              return io{tensor<float>::randn("a", {s[0], s[2]}, seed, 0.2),
                        tensor<float>::randn("b", {s[2], s[1]}, seed + 1, 0.2),
                        tensor<float>::randn("bias", {s[1]}, seed + 2),
                        output<float>("c", {s[0], s[1]})};
            },
        .launch = [](io& x) { return gelu_launch(x, x.c); },
        .reference =
            [](const io& x) { return kernels::ref::matmul_bias_act(x.a, x.b, x.bias, gelu_tanh); },
        .compare = [](checker& ch, const io& x, const doubles& r) { ch.expect(x.c, r, 1e-5); },
        .native =
            [](io& x) {
              return [&x] {
                fmap C(x.c.data(), x.m(), x.n());
                C.noalias() = fmap(x.a.data(), x.m(), x.k()) * fmap(x.b.data(), x.k(), x.n());
                famap G(x.c.data(), x.m(), x.n());
                G.rowwise() +=
                    Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>>(x.bias.data(), x.n());
                const farr e =
                    (2.0f *
                     (0.7978845608028654f * (G + 0.044715f * G.cube())).min(10.0f).max(-10.0f))
                        .exp();
                G = 0.5f * G * (1.0f + (e - 1.0f) / (e + 1.0f));
              };
            },
    },
    {
        .gpu =
            [](io& x, bool cpu) {
              const double ms =
                  gpu::matmul_bias_gelu(gpu::dtype_id::f32, x.a.data(), x.b.data(), x.bias.data(),
                                        x.c.data(), x.m(), x.n(), x.k());
              return finish_gpu(x.c, ms, kernels::ref::matmul_bias_act(x.a, x.b, x.bias, gelu_tanh),
                                1e-5, cpu, 1e-5,
                                [&](tensor<float>& o) { return gelu_launch(x, o); });
            },
        .amd_emu =
            [](io& x, const doubles& ref, target t) {
              return emu_compare("matmul_bias_gelu", t)
                  .in(x.a)
                  .in(x.b)
                  .in(x.bias)
                  .cpu([&] { return gelu_launch(x, x.c); })
                  .out(0, x.c, ref, 1e-5, 1e-5)
                  .done();
            },
    }};

// The partial tiles are added in whatever order they land (GPU atomics, the emulator's order):
// the sum's rounding differs from the interpreter's by a few ulps of the dot products.
double splitk_diff(const io& x) { return 1e-4 * std::sqrt(static_cast<double>(x.k())); }

registrar reg_splitk{
    kernel<io, doubles>{
        .name = "matmul_splitk",
        .description =
            "split-K matmul: K cut 8 ways, partial tiles added into C with atomic_add, f32",
        .size_help = "M,N,K",
        .default_size = {64, 96, 1000},
        .bench_size = {128, 128, 2048},
        .make =
            [](const sizes& s, uint64_t seed) {
              return io{tensor<float>::randn("a", {s[0], s[2]}, seed),
                        tensor<float>::randn("b", {s[2], s[1]}, seed + 1),
                        {},
                        output<float>("c", {s[0], s[1]})};
            },
        .launch = [](io& x) { return kernels::matmul_splitk(x.a, x.b, x.c, splits); },
        .reference = [](const io& x) { return kernels::ref::matmul_splitk(x.a, x.b); },
        .compare = [](checker& ch, const io& x, const doubles& r) { ch.expect(x.c, r, 1e-5); },
        .native =
            [](io& x) {
              return [&x] {
                fmap(x.c.data(), x.m(), x.n()).noalias() =
                    fmap(x.a.data(), x.m(), x.k()) * fmap(x.b.data(), x.k(), x.n());
              };
            },
    },
    {
        .gpu =
            [](io& x, bool cpu) {
              const double ms = gpu::matmul_splitk(gpu::dtype_id::f32, x.a.data(), x.b.data(),
                                                   x.c.data(), x.m(), x.n(), x.k(), splits);
              return finish_gpu(
                  x.c, ms, kernels::ref::matmul_splitk(x.a, x.b), 1e-5, cpu, splitk_diff(x),
                  [&](tensor<float>& o) { return kernels::matmul_splitk(x.a, x.b, o, splits); });
            },
        .amd_emu =
            [](io& x, const doubles& ref, target t) {
              return emu_compare("matmul_splitk", t)
                  .in(x.a)
                  .in(x.b)
                  .param(splits)
                  .cpu([&] { return kernels::matmul_splitk(x.a, x.b, x.c, splits); })
                  .out(0, x.c, ref, 1e-5, splitk_diff(x))
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
