#include "bv/kernels/softmax.hpp"

#include "bv/kernels/ref/softmax.hpp"
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
          auto r = kernels::softmax(x, out);
          return compare_with(out, kernels::ref::softmax(x), 1e-5, {r});
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          auto x = tensor<float>::randn("x", {s[0], s[1]}, seed);
          auto out = tensor<float>::empty("out", {s[0], s[1]});
          using M = Eigen::Map<Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
          return time_it([&] {
            M in(x.data(), s[0], s[1]), o(out.data(), s[0], s[1]);
            for (int64_t r = 0; r < s[0]; ++r) {
              o.row(r) = (in.row(r) - in.row(r).maxCoeff()).exp();
              o.row(r) /= o.row(r).sum();
            }
          });
        },
    .triton_interpret_seconds = 0.377,
}};
}  // namespace
}  // namespace bv::cli
