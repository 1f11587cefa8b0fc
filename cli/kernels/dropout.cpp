// CLI entry: dropout (kernels/bv/kernels/dropout.hpp).
#include "bv/kernels/dropout.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/dropout.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

registrar reg{{
    .name = "dropout",
    .description = "dropout p = 0.3 with a counter-based hash of (seed, index), f32",
    .size_help = "N",
    .default_size = {100003},
    .bench_size = {1 << 20},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = output<float>("out", {s[0]});
          const int dseed = static_cast<int>(seed & 0x7fffffff);
          checker c;
          c.launched(launch_warm([&] { return kernels::dropout(x, out, 0.3f, dseed); }));
          c.add(out, kernels::ref::dropout(x, 0.3f, dseed), 1e-6);
          return c.done();
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = tensor<float>::empty("out", {s[0]});
          const int dseed = static_cast<int>(seed & 0x7fffffff);
          return time_it([&] {
            // The same hash, one element at a time in uint64 (compilers vectorise this loop).
            const uint64_t m = 0xffffffffu;
            uint64_t sd = static_cast<uint64_t>(static_cast<int64_t>(dseed)) & m;
            sd = (((sd >> 16) ^ sd) * 0x2c1b3c6du) & m;
            sd = (((sd >> 12) ^ sd) * 0x297a2d39u) & m;
            sd = (sd >> 15) ^ sd;
            const float scale = 1.0f / 0.7f;
            float* o = out.data();
            const float* in = x.data();
            for (int64_t i = 0; i < s[0]; ++i) {
              uint64_t h = static_cast<uint64_t>(i) ^ sd;
              h = (((h >> 16) ^ h) * 0x45d9f3bu) & m;
              h = (((h >> 16) ^ h) * 0x45d9f3bu) & m;
              h = (h >> 16) ^ h;
              o[i] =
                  static_cast<float>(h >> 8) * (1.0f / 16777216.0f) >= 0.3f ? in[i] * scale : 0.0f;
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = output<float>("out", {s[0]});
          const int dseed = static_cast<int>(seed & 0x7fffffff);
          const double ms =
              gpu::dropout(gpu::dtype_id::f32, x.data(), out.data(), s[0], 0.3f, dseed);
          // The same mask and one rounding: the interpreter's result exactly.
          return finish_gpu(out, ms, kernels::ref::dropout(x, 0.3f, dseed), 1e-6, cpu, 0.0,
                            [&](tensor<float>& o) { return kernels::dropout(x, o, 0.3f, dseed); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0]}, seed);
          auto out = output<float>("out", {s[0]});
          const int dseed = static_cast<int>(seed & 0x7fffffff);
          return emu_compare("dropout", t)
              .in(x)
              .param(dseed)
              .cpu([&] { return kernels::dropout(x, out, 0.3f, dseed); })
              .out(0, out, kernels::ref::dropout(x, 0.3f, dseed), 1e-6, 0.0)
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
