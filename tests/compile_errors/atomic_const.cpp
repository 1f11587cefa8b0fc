// expect: Atomics write memory: the pointer must not point to const
// The mistake: atomic_add through ptr<const int>. Compiled by tests/compile_errors/CMakeLists.txt
// for the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const int> x, int n) {
  bv::atomic_add(x + bv::arange<64>(p), 1);
}

int main() {
  auto x = bv::tensor<int>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
