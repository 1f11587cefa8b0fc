// Your first blockvec program: a vector add, run on the CPU interpreter.
//
// A kernel is run by many *programs* at once (Triton's program instances). Each program handles
// one block of BLOCK elements: it computes the offsets of its block, loads, adds and stores whole
// blocks at a time. The last block usually runs past the end of the data, so every memory access
// takes a *mask* that switches off the lanes past n, instead of an `if`.
#include <cmath>
#include <cstdio>

#include "bv/bv.hpp"

constexpr int BLOCK = 1024;

BV_KERNEL void add_kernel(bv::program<> p, bv::ptr<const float> x, bv::ptr<const float> y,
                          bv::ptr<float> out, int n) {
  auto offs = p.id(0) * BLOCK + bv::arange<BLOCK>(p);  // this program's element indices
  auto mask = offs < n;                                // false past the end of the data
  bv::store(out + offs, bv::load(x + offs, mask) + bv::load(y + offs, mask), mask);
}

int main() {
  const int n = 98432;  // deliberately not a multiple of BLOCK
  // Host tensors carry a name, so that a diagnostic can say which one a kernel got wrong.
  auto x = bv::tensor<float>::randn("x", {n}, /*seed=*/1);
  auto y = bv::tensor<float>::randn("y", {n}, /*seed=*/2);
  auto out = bv::tensor<float>::empty("out", {n});

  // One program per block: cdiv rounds up so the ragged tail gets a program too.
  const auto result = bv::launch<add_kernel>(bv::grid(bv::cdiv(n, BLOCK)), x, y, out, n);

  // Check against a plain loop, the way every kernel in blockvec is tested.
  double max_err = 0;
  for (int i = 0; i < n; ++i) max_err = std::fmax(max_err, std::fabs(out(i) - (x(i) + y(i))));
  std::printf("vector add of %d elements: %lld programs, max error %g, %d check error(s)\n", n,
              static_cast<long long>(result.programs), max_err, result.errors);
  std::printf("out[0..3] = %g %g %g %g\n", out(0), out(1), out(2), out(3));
  return max_err == 0 && result.ok() ? 0 : 1;
}
