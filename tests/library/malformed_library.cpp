// A kernel library whose one registration leaves out its launch: loading it must not end the
// host (an exception while the library loads would), and the host must say why it cannot use it.
#include <bv/kernel_library.hpp>

namespace {
struct io {
  bv::tensor<float> x;
};
const bv::library::registration incomplete{bv::library::kernel<io, std::vector<double>>{
    .name = "incomplete",
    .default_size = {10},
    .make = [](const bv::library::sizes& s,
               uint64_t seed) { return io{bv::tensor<float>::randn("x", {s[0]}, seed)}; },
    .launch = {},
    .reference = [](const io&) { return std::vector<double>{}; },
    .compare = [](bv::library::checker&, const io&, const std::vector<double>&) {},
}};
}  // namespace
