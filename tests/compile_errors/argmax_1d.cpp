// expect: argmax without an axis takes a 1-D block
// The mistake: argmax of a 2-D block without an axis. Compiled by
// tests/compile_errors/CMakeLists.txt for the interpreter and for each GPU target; every compiler
// must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, bv::ptr<int> out, int n) {
  auto r = bv::arange<16>(p);
  auto c = bv::arange<16>(p);
  auto v = bv::load(x + r.col() * 16 + c.row());
  bv::store(out, bv::argmax(v));
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {1024});
  auto out = bv::tensor<int>::zeros("out", {1024});
  bv::launch<k>(bv::grid(1), x, out, 64);
  return bv::exit_status();
}
