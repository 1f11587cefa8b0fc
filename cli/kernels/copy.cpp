// copy: the kernel (bv/kernels/copy.hpp), its reference (bv/kernels/ref/copy.hpp) and one
// registration; memcpy times bench's native column.
#include "bv/kernels/copy.hpp"

#include <cstring>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/copy.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

struct io {
  tensor<float> x, out;
};

registrar reg{
    kernel<io, doubles>{
        .name = "copy",
        .description = "copy out = x, f32, 1024 per program (the simplest masked kernel)",
        .size_help = "N",
        .default_size = {100003},
        .bench_size = {1 << 20},
        .make =
            [](const sizes& s, uint64_t seed) {
              return io{tensor<float>::randn("x", {s[0]}, seed), output<float>("out", {s[0]})};
            },
        .launch = [](io& a) { return kernels::copy(a.x, a.out); },
        .reference = [](const io& a) { return kernels::ref::copy(a.x); },
        .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.out, r, 0.0); },
        .native =
            [](io& a) {
              return [&a, n = a.x.numel()] {
                std::memcpy(a.out.data(), a.x.data(), sizeof(float) * n);
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const double ms =
                  gpu::copy(gpu::dtype_id::f32, a.x.data(), a.out.data(), a.x.numel());
              return finish_gpu(a.out, ms, kernels::ref::copy(a.x), 0.0, cpu, 0.0,
                                [&](tensor<float>& o) { return kernels::copy(a.x, o); });
            },
        .amd_emu =
            [](io& a, const doubles& ref, target t) {
              return emu_compare("copy", t)
                  .in(a.x)
                  .cpu([&] { return kernels::copy(a.x, a.out); })
                  .out(0, a.out, ref, 0.0, 0.0)
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
