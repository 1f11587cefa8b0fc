// add: the kernel (bv/kernels/add.hpp), its reference (bv/kernels/ref/add.hpp) and one
// registration; Eigen times bench's native column.
#include "bv/kernels/add.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/add.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

struct io {
  tensor<float> x, y, out;
};

registrar reg{
    kernel<io, doubles>{
        .name = "add",
        .description = "vector add out = x + y, f32, 1024 per program",
        .size_help = "N",
        .default_size = {100000},
        .bench_size = {1 << 20},
        .make =
            [](const sizes& s, uint64_t seed) {
              return io{tensor<float>::randn("x", {s[0]}, seed),
                        tensor<float>::randn("y", {s[0]}, seed + 1), output<float>("out", {s[0]})};
            },
        .launch = [](io& a) { return kernels::add(a.x, a.y, a.out); },
        .reference = [](const io& a) { return kernels::ref::add(a.x, a.y); },
        .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.out, r, 1e-6); },
        .native =
            [](io& a) {
              using V = Eigen::Map<Eigen::ArrayXf>;
              return [&a, n = a.x.numel()] {
                V(a.out.data(), n) = V(a.x.data(), n) + V(a.y.data(), n);
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const double ms =
                  gpu::add(gpu::dtype_id::f32, a.x.data(), a.y.data(), a.out.data(), a.x.numel());
              return finish_gpu(a.out, ms, kernels::ref::add(a.x, a.y), 1e-6, cpu, 0.0,
                                [&](tensor<float>& o) { return kernels::add(a.x, a.y, o); });
            },
        .amd_emu =
            [](io& a, const doubles& ref, target t) {
              return emu_compare("add", t)
                  .in(a.x)
                  .in(a.y)
                  .cpu([&] { return kernels::add(a.x, a.y, a.out); })
                  .out(0, a.out, ref, 1e-6, 0.0)
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
