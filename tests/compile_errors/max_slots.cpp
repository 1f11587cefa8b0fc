// expect: max_slots<N>: a block pointer's ring needs at least one slot
// The mistake: a block pointer whose ring may take no slot. Compiled by
// tests/compile_errors/CMakeLists.txt for the interpreter and for each GPU target; every compiler
// must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  auto bp = bv::make_block_ptr<32, 32>(p, x, {n, n}, {n, 1}, {0, 0}, bv::max_slots<0>);
  (void)bp;
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {64});
  bv::launch<k>(bv::grid(1), x, 8);
  return bv::exit_status();
}
