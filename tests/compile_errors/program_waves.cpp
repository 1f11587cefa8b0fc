// expect: A program spans 1, 2, 4, 8 or 16 wavefronts
// The mistake: a program of 3 waves. Compiled by tests/compile_errors/CMakeLists.txt for the
// interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<3> p, bv::ptr<float> x, int n) {
  bv::store(x + bv::arange<64>(p), 1.0f);
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {64});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
