// col_sum: the kernel (bv/kernels/col_sum.hpp), its reference (bv/kernels/ref/col_sum.hpp) and
// this one registration; bench's native column times the reference.
#include "bv/kernels/col_sum.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/col_sum.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

struct io {
  tensor<float> partial, out;
};

registrar reg{
    kernel<io, doubles>{
        .name = "col_sum",
        .description = "column sums of [G, N] f32 partials, a two-stage reduction's second stage",
        .size_help = "G,N",
        .default_size = {37, 3001},
        .bench_size = {256, 1 << 16},
        .make =
            [](const sizes& s, uint64_t seed) {
              return io{tensor<float>::randn("partial", {s[0], s[1]}, seed),
                        output<float>("out", {s[1]})};
            },
        .launch = [](io& a) { return kernels::col_sum(a.partial, a.out); },
        .reference = [](const io& a) { return kernels::ref::col_sum(a.partial); },
        .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.out, r, 1e-5); },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const int g = static_cast<int>(a.partial.size(0)),
                        n = static_cast<int>(a.partial.size(1));
              const double ms = gpu::col_sum(a.partial.data(), a.out.data(), g, n);
              // Each sum adds G values in another order: the difference grows with G.
              return finish_gpu(a.out, ms, kernels::ref::col_sum(a.partial), 1e-5, cpu,
                                1e-6 * static_cast<double>(g),
                                [&](tensor<float>& o) { return kernels::col_sum(a.partial, o); });
            },
        .amd_emu =
            [](io& a, const doubles& ref, target t) {
              return emu_compare("col_sum", t)
                  .in(a.partial)
                  .cpu([&] { return kernels::col_sum(a.partial, a.out); })
                  .out(0, a.out, ref, 1e-5, 1e-6 * static_cast<double>(a.partial.size(0)))
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
