// Kernel libraries: a user's kernels, built as a shared object, in every blockvec tool
// (`blockvec list|run|bench|demo --lib LIB.so`, blockvec-viewer's Live tab). Include this in the
// library's files and register each kernel once:
//
//   #include <bv/kernel_library.hpp>
//   struct in { bv::tensor<float> x, out; };
//   static bv::library::registration reg{bv::library::kernel<in, std::vector<double>>{
//       .name = "my_kernel", .description = "one line", .size_help = "N",
//       .default_size = {1000},
//       .make = [](const bv::library::sizes& s, uint64_t seed) {
//         return in{bv::tensor<float>::randn("x", {s[0]}, seed),
//                   bv::library::output<float>("out", {s[0]})}; },
//       .launch = [](in& a) { return my::launch_kernel(a.x, a.out); },
//       .reference = [](const in& a) { return my::reference(a.x); },
//       .compare = [](bv::library::checker& c, const in& a, const std::vector<double>& r) {
//         c.expect(a.out, r, 1e-6); }}};
//
// and build it with blockvec_add_kernel_library(NAME SOURCES...) from blockvec's CMake package.
// The host runs the kernel on its own interpreter, compares through `compare`, and times
// `reference` for blockvec bench. The ABI underneath is bv/library/abi.hpp.
#pragma once
#include "bv/bv.hpp"
#include "bv/library/abi.hpp"
#include "bv/library/compare.hpp"
#include "bv/library/entry.hpp"
#include "bv/library/export.hpp"
