// expect: Block elements are f32, f16
// The mistake: a block of char. Compiled by tests/compile_errors/CMakeLists.txt for the interpreter
// and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  bv::basic_block<char, bv::shape<64>, 4> b;
  (void)b;
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
