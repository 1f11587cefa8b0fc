// expect: load: other (the value of masked-off lanes) must have a type that converts exactly
// The mistake: -INFINITY as `other` of an int32 load. Compiled by
// tests/compile_errors/CMakeLists.txt for the interpreter and for each GPU target; every compiler
// must stop with the sentence above.
#include <cmath>

#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const int> x, bv::ptr<int> out, int n) {
  auto offs = bv::arange<64>(p);
  bv::store(out + p.id(0), bv::max(bv::load(x + offs, offs < n, -INFINITY)));
}

int main() {
  auto x = bv::tensor<int>::zeros("x", {64});
  auto out = bv::tensor<int>::zeros("out", {1});
  bv::launch<k>(bv::grid(1), x, out, 64);
  return bv::exit_status();
}
