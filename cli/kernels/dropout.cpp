// dropout: the kernel (bv/kernels/dropout.hpp), its reference (bv/kernels/ref/dropout.hpp) and
// one registration; the same hash in a plain loop times bench's native column.
#include "bv/kernels/dropout.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/dropout.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

constexpr float p = 0.3f;

struct io {
  tensor<float> x, out;
  int seed;  // the mask's, from the run's seed
};

registrar reg{
    kernel<io, doubles>{
        .name = "dropout",
        .description = "dropout p = 0.3 with a counter-based hash of (seed, index), f32",
        .size_help = "N",
        .default_size = {100003},
        .bench_size = {1 << 20},
        .make =
            [](const sizes& s, uint64_t seed) {
              return io{tensor<float>::randn("x", {s[0]}, seed), output<float>("out", {s[0]}),
                        static_cast<int>(seed & 0x7fffffff)};
            },
        .launch = [](io& a) { return kernels::dropout(a.x, a.out, p, a.seed); },
        .reference = [](const io& a) { return kernels::ref::dropout(a.x, p, a.seed); },
        .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.out, r, 1e-6); },
        .native =
            [](io& a) {
              return [&a] {
                // The same hash, one element at a time in uint64 (compilers vectorise this loop).
                const uint64_t m = 0xffffffffu;
                uint64_t sd = static_cast<uint64_t>(static_cast<int64_t>(a.seed)) & m;
                sd = (((sd >> 16) ^ sd) * 0x2c1b3c6du) & m;
                sd = (((sd >> 12) ^ sd) * 0x297a2d39u) & m;
                sd = (sd >> 15) ^ sd;
                const float scale = 1.0f / 0.7f;
                float* o = a.out.data();
                const float* in = a.x.data();
                const int64_t n = a.x.numel();
                for (int64_t i = 0; i < n; ++i) {
                  uint64_t h = static_cast<uint64_t>(i) ^ sd;
                  h = (((h >> 16) ^ h) * 0x45d9f3bu) & m;
                  h = (((h >> 16) ^ h) * 0x45d9f3bu) & m;
                  h = (h >> 16) ^ h;
                  o[i] =
                      static_cast<float>(h >> 8) * (1.0f / 16777216.0f) >= p ? in[i] * scale : 0.0f;
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const double ms = gpu::dropout(gpu::dtype_id::f32, a.x.data(), a.out.data(),
                                             a.x.numel(), p, a.seed);
              // The same mask and one rounding: the interpreter's result exactly.
              return finish_gpu(
                  a.out, ms, kernels::ref::dropout(a.x, p, a.seed), 1e-6, cpu, 0.0,
                  [&](tensor<float>& o) { return kernels::dropout(a.x, o, p, a.seed); });
            },
        .amd_emu =
            [](io& a, const doubles& ref, target t) {
              return emu_compare("dropout", t)
                  .in(a.x)
                  .param(a.seed)
                  .cpu([&] { return kernels::dropout(a.x, a.out, p, a.seed); })
                  .out(0, a.out, ref, 1e-6, 0.0)
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
