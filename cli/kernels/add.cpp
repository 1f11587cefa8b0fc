#include "bv/kernels/add.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/add.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "outcome.hpp"

namespace bv::cli {
namespace {
registrar reg{{
    .name = "add",
    .description = "vector add out = x + y, f32, 1024 per program",
    .size_help = "N",
    .default_size = {100000},
    .bench_size = {1 << 20},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto y = tensor<float>::randn("y", {s[0]}, seed + 1);
          auto out = tensor<float>::empty("out", {s[0]});
          poison(out);
          auto r = launch_warm([&] { return kernels::add(x, y, out); });
          return compare_with(out, kernels::ref::add(x, y), 1e-6, {r});
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto y = tensor<float>::randn("y", {s[0]}, seed + 1);
          auto out = tensor<float>::empty("out", {s[0]});
          using V = Eigen::Map<Eigen::ArrayXf>;
          return time_it([&] { V(out.data(), s[0]) = V(x.data(), s[0]) + V(y.data(), s[0]); });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto y = tensor<float>::randn("y", {s[0]}, seed + 1);
          auto out = tensor<float>::empty("out", {s[0]});
          poison(out);
          const double ms = gpu::add(gpu::dtype_id::f32, x.data(), y.data(), out.data(), s[0]);
          return finish_gpu(out, ms, kernels::ref::add(x, y), 1e-6, cpu, 0.0,
                            [&](tensor<float>& o) { return kernels::add(x, y, o); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto y = tensor<float>::randn("y", {s[0]}, seed + 1);
          auto out = bv::library::output<float>("out", {s[0]});
          return emu_compare("add", t)
              .in(x)
              .in(y)
              .cpu([&] { return kernels::add(x, y, out); })
              .out(0, out, kernels::ref::add(x, y), 1e-6, 0.0)
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
