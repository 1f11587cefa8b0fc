// expect: launch: pass exactly one argument for every kernel parameter
// The mistake: a launch with an argument missing. Compiled by tests/compile_errors/CMakeLists.txt
// for the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  bv::store(x + bv::arange<64>(p), 1.0f, bv::arange<64>(p) < n);
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {64});
  bv::launch<k>(bv::grid(1), x);
  return bv::exit_status();
}
