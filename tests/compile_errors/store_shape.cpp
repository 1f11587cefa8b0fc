// expect: store: the value's shape does not broadcast to the pointer block's shape
// The mistake: a 32-block stored through 64 pointers. Compiled by
// tests/compile_errors/CMakeLists.txt for the interpreter and for each GPU target; every compiler
// must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  auto offs = bv::arange<64>(p);
  bv::store(x + offs, bv::arange<32>(p).to(bv::f32));
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
