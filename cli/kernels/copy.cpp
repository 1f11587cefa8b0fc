#include "bv/kernels/copy.hpp"

#include <cstring>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/copy.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "outcome.hpp"

namespace bv::cli {
namespace {
registrar reg{{
    .name = "copy",
    .description = "copy out = x, f32, 1024 per program (the simplest masked kernel)",
    .size_help = "N",
    .default_size = {100003},
    .bench_size = {1 << 20},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = tensor<float>::empty("out", {s[0]});
          poison(out);
          auto r = launch_warm([&] { return kernels::copy(x, out); });
          return compare_with(out, kernels::ref::copy(x), 0.0, {r});
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = tensor<float>::empty("out", {s[0]});
          return time_it([&] { std::memcpy(out.data(), x.data(), sizeof(float) * s[0]); });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = tensor<float>::empty("out", {s[0]});
          poison(out);
          const double ms = gpu::copy(gpu::dtype_id::f32, x.data(), out.data(), s[0]);
          return finish_gpu(out, ms, kernels::ref::copy(x), 0.0, cpu, 0.0,
                            [&](tensor<float>& o) { return kernels::copy(x, o); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = bv::library::output<float>("out", {s[0]});
          return emu_compare("copy", t)
              .in(x)
              .cpu([&] { return kernels::copy(x, out); })
              .out(0, out, kernels::ref::copy(x), 0.0, 0.0)
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
