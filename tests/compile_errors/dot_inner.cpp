// expect: needs a's columns to equal b's rows
// The mistake: a 32x32 times a 16x32 block. Compiled by tests/compile_errors/CMakeLists.txt for the
// interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const bv::half> a, bv::ptr<float> c, int n) {
  auto i = bv::arange<32>(p);
  auto j = bv::arange<16>(p);
  auto ta = bv::load(a + i.col() * 32 + i.row());
  auto tb = bv::load(a + j.col() * 32 + i.row());
  auto acc = bv::zeros<float, 32, 32>(p);
  acc = bv::dot(ta, tb, acc);
  bv::store(c + i.col() * 32 + i.row(), acc);
}

int main() {
  auto a = bv::tensor<bv::half>::zeros("a", {1024});
  auto c = bv::tensor<float>::zeros("c", {1024});
  bv::launch<k>(bv::grid(1), a, c, 64);
  return bv::exit_status();
}
