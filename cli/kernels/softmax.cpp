#include "bv/kernels/softmax.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/softmax.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "outcome.hpp"

namespace bv::cli {
namespace {
registrar reg{{
    .name = "softmax",
    .description = "row-wise softmax, f32, one program per row",
    .size_help = "ROWS,COLS",
    .default_size = {300, 781},
    .bench_size = {256, 1024},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto out = tensor<float>::empty("out", {s[0], s[1]});
          poison(out);
          auto r = launch_warm([&] { return kernels::softmax(x, out); });
          return compare_with(out, kernels::ref::softmax(x), 1e-5, {r});
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto out = tensor<float>::empty("out", {s[0], s[1]});
          using M =
              Eigen::Map<Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
          return time_it([&] {
            M in(x.data(), s[0], s[1]), o(out.data(), s[0], s[1]);
            for (int64_t r = 0; r < s[0]; ++r) {
              o.row(r) = (in.row(r) - in.row(r).maxCoeff()).exp();
              o.row(r) /= o.row(r).sum();
            }
          });
        },
    .run_gpu =
        [](const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto out = tensor<float>::empty("out", {s[0], s[1]});
          poison(out);
          const double ms = gpu::softmax(gpu::dtype_id::f32, x.data(), out.data(),
                                         static_cast<int>(s[0]), static_cast<int>(s[1]));
          // exp and the reduction order differ between the devices: a few ulps.
          return finish_gpu(out, ms, kernels::ref::softmax(x), 1e-5, cpu, 1e-6,
                            [&](tensor<float>& o) { return kernels::softmax(x, o); });
        },
    .run_amd_emu =
        [](const std::vector<int64_t>& s, uint64_t seed, target t) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto out = bv::library::output<float>("out", {s[0], s[1]});
          return emu_compare("softmax", t)
              .in(x)
              .cpu([&] { return kernels::softmax(x, out); })
              .out(0, out, kernels::ref::softmax(x), 1e-5, 1e-6)
              .done();
        },
}};
}  // namespace
}  // namespace bv::cli
