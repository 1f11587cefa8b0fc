// expect: where() takes a bool block as its mask
// The mistake: an integer mask in where(). Compiled by tests/compile_errors/CMakeLists.txt for the
// interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  auto i = bv::arange<64>(p);
  bv::store(x + i, bv::where(i, 1.0f, 0.0f));
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
