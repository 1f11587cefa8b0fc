// expect: dot multiplies numbers, not bool blocks
// The mistake: a dot of bool blocks. Compiled by tests/compile_errors/CMakeLists.txt for the
// interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> c, int n) {
  auto i = bv::arange<16>(p);
  auto t = i.col() < i.row();
  auto acc = bv::zeros<float, 16, 16>(p);
  acc = bv::dot(t, t, acc);
  bv::store(c + i.col() * 16 + i.row(), acc);
}

int main() {
  auto c = bv::tensor<float>::zeros("c", {1024});
  bv::launch<k>(bv::grid(1), c, 64);
  return bv::exit_status();
}
