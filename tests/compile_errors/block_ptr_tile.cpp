// expect: make_block_ptr<R, C>: a block pointer addresses an R x C tile
// The mistake: a 0-row block pointer. Compiled by tests/compile_errors/CMakeLists.txt for the
// interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  auto bp = bv::make_block_ptr<0, 32>(p, x, {n, n}, {n, 1}, {0, 0});
  (void)bp;
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {64});
  bv::launch<k>(bv::grid(1), x, 8);
  return bv::exit_status();
}
