// expect: These blocks come from programs with different wave counts
// The mistake: blocks of program<4> and program<2> added. Compiled by
// tests/compile_errors/CMakeLists.txt for the interpreter and for each GPU target; every compiler
// must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  bv::program<2> q{};
  (void)q;
  auto a = bv::arange<64>(p);
  auto b = bv::zeros<int, 64>(bv::program<2>{});
  bv::store(x + a, (a + b).to(bv::f32));
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
