// expect: dot needs every dimension to be at least 16
// The mistake: a dot of 8x8 blocks. Compiled by tests/compile_errors/CMakeLists.txt for the
// interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const bv::half> a, bv::ptr<float> c, int n) {
  auto i = bv::arange<8>(p);
  auto t = bv::load(a + i.col() * 8 + i.row());
  auto acc = bv::zeros<float, 8, 8>(p);
  acc = bv::dot(t, t, acc);
  bv::store(c + i.col() * 8 + i.row(), acc);
}

int main() {
  auto a = bv::tensor<bv::half>::zeros("a", {1024});
  auto c = bv::tensor<float>::zeros("c", {1024});
  bv::launch<k>(bv::grid(1), a, c, 64);
  return bv::exit_status();
}
