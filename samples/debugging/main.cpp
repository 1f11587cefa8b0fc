// The debugging workflow of Triton users, on the simplest kernel: a copy with an off-by-one
// mask (`offs <= n` instead of `offs < n`). Run it and read the output from top to bottom:
//
//   1. check_tensors_ready: rule out the boring causes (non-contiguous tensors) first;
//   2. print_if on one program: look at the last program's offsets and mask;
//   3. breakpoint_if with a condition string: stop that program and look at its watched values
//      (on a terminal you get a prompt; here, without one, the state is printed and the run goes
//      on);
//   4. the out-of-bounds report, which names the kernel, the line, the program, the lane, the
//      tensor and the offset one past its end: the bug;
//   5. the fixed kernel, run clean.
//
// `debugging --fixed` runs only step 5. The debugging aids stay in the kernel: on the GPU they
// compile to nothing, so nothing has to be removed before deployment.
#include <cstdio>
#include <cstring>
#include <string>

#include "bv/bv.hpp"

constexpr int BLOCK = 64;

template <bool Fixed>
BV_KERNEL void copy_kernel(bv::program<1> p, bv::ptr<const float> x, bv::ptr<float> out, int n,
                           const char* which) {
  auto offs = p.id(0) * BLOCK + bv::arange<BLOCK>(p);
  auto mask = Fixed ? offs < n : offs <= n;  // the bug: lane n is let through
  bv::print_if(p, which, "offs", offs, "mask", mask);
  bv::watch(p, "offs", offs);
  bv::watch(p, "mask", mask);
  bv::breakpoint_if(p, which);
  bv::store(out + offs, bv::load(x + offs, mask), mask);
}

template <bool Fixed>
bool run(int n) {
  auto x = bv::tensor<float>::randn("x", {n}, 1);
  auto out = bv::tensor<float>::empty("out", {n});
  const int programs = bv::cdiv(n, BLOCK);
  const std::string last = "=" + std::to_string(programs - 1);  // the program with the tail

  std::printf("== %s kernel, n = %d, %d programs\n", Fixed ? "fixed" : "buggy", n, programs);
  std::printf("-- 1. check_tensors_ready(x, out): %s\n",
              bv::check_tensors_ready(x, out) ? "both contiguous" : "NOT ready");
  std::printf("-- 2/3. print_if and breakpoint_if on program \"%s\"\n", last.c_str());
  std::fflush(stdout);
  const auto r = bv::launch<copy_kernel<Fixed>>(bv::grid(programs), x, out, n, last.c_str());
  std::fflush(stderr);
  std::printf("-- 4. diagnostics: %d error(s)\n", r.errors);
  for (const auto& d : r.diagnostics) std::printf("%s\n", d.text().c_str());
  bool copied = true;
  for (int i = 0; i < n; ++i) copied = copied && out(i) == x(i);
  std::printf("   every element copied: %s\n", copied ? "yes" : "no");
  return r.ok() && copied;
}

int main(int argc, char** argv) {
  const bool only_fixed = argc > 1 && std::strcmp(argv[1], "--fixed") == 0;
  bv::config().quiet = true;  // the sample prints the diagnostics itself, in order
  const int n = 1000;         // 15 full programs and a tail of 40: lane 40 of program 15 is n
  if (!only_fixed) {
    const bool clean = run<false>(n);
    std::printf("buggy kernel %s\n\n", clean ? "ran clean (unexpected)" : "found the bug");
    if (clean) return 1;
  }
  std::printf("-- 5. the fix: offs < n\n");
  const bool fixed_clean = run<true>(n);
  std::printf("fixed kernel %s\n", fixed_clean ? "runs clean" : "STILL FAILS");
  return fixed_clean ? 0 : 1;
}
