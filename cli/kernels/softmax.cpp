// softmax: the kernel (bv/kernels/softmax.hpp), its reference (bv/kernels/ref/softmax.hpp) and
// one registration; Eigen times bench's native column.
#include "bv/kernels/softmax.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/softmax.hpp"
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
        .name = "softmax",
        .description = "row-wise softmax, f32, one program per row",
        .size_help = "ROWS,COLS",
        .default_size = {300, 781},
        .bench_size = {256, 1024},
        .make =
            [](const sizes& s, uint64_t seed) {
              return io{tensor<float>::randn("x", {s[0], s[1]}, seed),
                        output<float>("out", {s[0], s[1]})};
            },
        .launch = [](io& a) { return kernels::softmax(a.x, a.out); },
        .reference = [](const io& a) { return kernels::ref::softmax(a.x); },
        .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.out, r, 1e-5); },
        .native =
            [](io& a) {
              return [&a, rows = a.x.size(0), cols = a.x.size(1)] {
                famap in(a.x.data(), rows, cols), o(a.out.data(), rows, cols);
                for (int64_t r = 0; r < rows; ++r) {
                  o.row(r) = (in.row(r) - in.row(r).maxCoeff()).exp();
                  o.row(r) /= o.row(r).sum();
                }
              };
            },
    },
    {
        .gpu =
            [](io& a, bool cpu) {
              const double ms =
                  gpu::softmax(gpu::dtype_id::f32, a.x.data(), a.out.data(),
                               static_cast<int>(a.x.size(0)), static_cast<int>(a.x.size(1)));
              // exp and the reduction order differ between the devices: a few ulps.
              return finish_gpu(a.out, ms, kernels::ref::softmax(a.x), 1e-5, cpu, 1e-6,
                                [&](tensor<float>& o) { return kernels::softmax(a.x, o); });
            },
        .amd_emu =
            [](io& a, const doubles& ref, target t) {
              return emu_compare("softmax", t)
                  .in(a.x)
                  .cpu([&] { return kernels::softmax(a.x, a.out); })
                  .out(0, a.out, ref, 1e-5, 1e-6)
                  .done();
            },
    }};

}  // namespace
}  // namespace bv::cli
