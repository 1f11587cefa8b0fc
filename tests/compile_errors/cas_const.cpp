// expect: atomic_cas writes memory: the pointer must not be const
// The mistake: atomic_cas through ptr<const int>. Compiled by tests/compile_errors/CMakeLists.txt
// for the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const int> x, int n) { (void)bv::atomic_cas(x, 0, 1); }

int main() {
  auto x = bv::tensor<int>::zeros("x", {1024});
  bv::launch<k>(bv::grid(1), x, 64);
  return bv::exit_status();
}
