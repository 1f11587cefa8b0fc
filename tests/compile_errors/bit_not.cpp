// expect: ~ needs an integer or bool block
// The mistake: ~ of a float block. Compiled by tests/compile_errors/CMakeLists.txt for the
// interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  auto v = bv::load(x + bv::arange<64>(p));
  bv::store(x + bv::arange<64>(p), ~v);
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
