// expect: launch: a tensor<T> argument must meet a bv::ptr<T>
// The mistake: an int tensor for a float pointer. Compiled by tests/compile_errors/CMakeLists.txt
// for the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<float> x, int n) {
  bv::store(x + bv::arange<64>(p), 1.0f, bv::arange<64>(p) < n);
}

int main() {
  auto x = bv::tensor<int>::zeros("x", {64});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
