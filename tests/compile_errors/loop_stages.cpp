// expect: for_range<Stages>: a loop's stages are 0 (the target's default)
// The mistake: a tile loop given negative stages. Compiled by tests/compile_errors/CMakeLists.txt
// for the interpreter and for each GPU target; every compiler must stop with the sentence above.
#include "bv/bv.hpp"

BV_KERNEL void k(bv::program<> p, bv::ptr<const float> x, bv::ptr<float> out, int n) {
  auto bp = bv::make_block_ptr<32, 32>(p, x, {n, n}, {n, 1}, {0, 0});
  auto acc = bv::for_range<-1>(p, 0, n, 32, bv::zeros<float, 32, 32>(p),
                               bv::along(bp, {0, 32}, bv::boundary_check(0, 1)),
                               [&](int, const auto& t, auto acc) { return acc + t; });
  auto ob = bv::make_block_ptr<32, 32>(p, out, {n, n}, {n, 1}, {0, 0});
  bv::store(ob, acc, bv::boundary_check(0, 1));
}

int main() {
  auto x = bv::tensor<float>::zeros("x", {32, 32});
  auto out = bv::tensor<float>::zeros("out", {32, 32});
  bv::launch<k>(bv::grid(1), x, out, 32);
  return bv::exit_status();
}
