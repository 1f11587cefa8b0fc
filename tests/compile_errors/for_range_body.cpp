// expect: for_range's body returns the carried value, of the type it is given
// The mistake: a body that returns the loaded block's sum (a scalar) where the loop carries a
// block. Compiled by tests/compile_errors/CMakeLists.txt for the interpreter and for each GPU
// target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const float> x, bv::ptr<float> out, int n) {
  auto offs = bv::arange<64>(p);
  auto acc = bv::for_range(p, 0, n, 64, bv::zeros<float, 64>(p), [&](int i, auto acc) {
    return bv::sum(acc + bv::load(x + i + offs, i + offs < n, 0.0f));
  });
  bv::store(out + offs, acc);
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {64});
  auto out = bv::tensor<float>::zeros("out", {64});
  bv::launch<k>(bv::grid(1), x, out, 64);
  return bv::exit_status();
}
