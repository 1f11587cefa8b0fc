// col_sum, registered the way a kernel library registers its kernels (bv/kernel_library.hpp):
// the kernel (bv/kernels/col_sum.hpp), its reference (bv/kernels/ref/col_sum.hpp) and this one
// declaration; the command derives run and bench's native column (the reference, timed) from it.
#include "bv/kernels/col_sum.hpp"

#include "bv/kernels/ref/col_sum.hpp"
#include "bv/library/entry.hpp"
#include "emu/emu_compare.hpp"
#include "registry.hpp"

namespace bv::cli {
namespace {

struct col_sum_io {
  tensor<float> partial, out;
};

registrar reg{
    bv::library::kernel<col_sum_io, std::vector<double>>{
        .name = "col_sum",
        .description = "column sums of [G, N] f32 partials, a two-stage reduction's second stage",
        .size_help = "G,N",
        .default_size = {37, 3001},
        .bench_size = {256, 1 << 16},
        .make =
            [](const bv::library::sizes& s, uint64_t seed) {
              return col_sum_io{tensor<float>::randn("partial", {s[0], s[1]}, seed),
                                bv::library::output<float>("out", {s[1]})};
            },
        .launch = [](col_sum_io& a) { return kernels::col_sum(a.partial, a.out); },
        .reference = [](const col_sum_io& a) { return kernels::ref::col_sum(a.partial); },
        .compare = [](bv::library::checker& c, const col_sum_io& a,
                      const std::vector<double>& want) { c.expect(a.out, want, 1e-5); },
    },
    // --backend amd-emu: the same inputs through the emulated AMD lowering.
    [](const std::vector<int64_t>& s, uint64_t seed, target t) {
      auto partial = tensor<float>::randn("partial", {s[0], s[1]}, seed);
      auto out = bv::library::output<float>("out", {s[1]});
      return emu_compare("col_sum", t)
          .in(partial)
          .cpu([&] { return kernels::col_sum(partial, out); })
          .out(0, out, kernels::ref::col_sum(partial), 1e-5, 1e-6 * static_cast<double>(s[0]))
          .done();
    }};

}  // namespace
}  // namespace bv::cli
