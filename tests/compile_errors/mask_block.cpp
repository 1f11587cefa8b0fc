// expect: A mask is a bool block: write offs < n, not an integer block
// The mistake: an integer block as a load mask. Compiled by tests/compile_errors/CMakeLists.txt for
// the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  auto offs = bv::arange<64>(p);
  bv::store(x + offs, bv::load(x + offs, offs));
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
