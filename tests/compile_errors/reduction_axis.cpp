// expect: The reduction axis must be 0 for a 1-D block
// The mistake: sum over axis 1 of a 1-D block. Compiled by tests/compile_errors/CMakeLists.txt for
// the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  auto v = bv::load(x + bv::arange<64>(p));
  bv::store(x, bv::sum<1>(v));
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
