// expect: store: this pointer points to const data
// The mistake: a store through ptr<const float>. Compiled by tests/compile_errors/CMakeLists.txt
// for the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const float> x, int n) {
  auto offs = bv::arange<64>(p);
  bv::store(x + offs, 1.0f, offs < n);
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
