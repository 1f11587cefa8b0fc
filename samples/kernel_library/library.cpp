// The kernel's one registration: what `blockvec run row_center --lib row_center.so` (and list,
// bench, demo, the viewer's Live tab) needs to run it on random inputs and check it. Another
// kernel is another file like this one, added to blockvec_add_kernel_library's sources.
#include <bv/kernel_library.hpp>

#include "reference.hpp"
#include "row_center.hpp"

namespace {

using bv::library::sizes;

// One run's tensors: the input and the output the kernel writes.
struct row_center_io {
  bv::tensor<float> x, out;
};

const bv::library::registration row_center_entry{
    bv::library::kernel<row_center_io, std::vector<double>>{
        .name = "row_center",
        .description = "each row minus its mean, f32, one program per row",
        .size_help = "ROWS,COLS",
        .default_size = {100, 1000},
        .bench_size = {2000, 1000},
        .accepts = [](const sizes& s) -> std::string {
          return s[1] > my::max_row_center_cols
                     ? "COLS above " + std::to_string(my::max_row_center_cols) +
                           " does not fit one block of this kernel"
                     : "";
        },
        // Random inputs from the seed; the output poisoned, so an element the kernel does not
        // write fails the comparison.
        .make =
            [](const sizes& s, uint64_t seed) {
              return row_center_io{bv::tensor<float>::randn("x", {s[0], s[1]}, seed),
                                   bv::library::output<float>("out", {s[0], s[1]})};
            },
        .launch = [](row_center_io& io) { return my::row_center(io.x, io.out); },
        .reference = [](const row_center_io& io) { return my::ref::row_center(io.x); },
        .compare = [](bv::library::checker& c, const row_center_io& io,
                      const std::vector<double>& want) { c.expect(io.out, want, 1e-5); },
    }};

}  // namespace
