#include <cstdio>
#include "bv/kernels/add.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"
int main() {
  int n = 3000;
  auto x = bv::tensor<float>::randn("x", {n}, 1), y = bv::tensor<float>::randn("y", {n}, 2);
  auto o = bv::tensor<float>::empty("out", {n});
  auto r = bv::kernels::add(x, y, o);
  double err = 0;
  for (int i = 0; i < n; ++i) err = std::max(err, (double)std::abs(o(i) - (x(i) + y(i))));
  std::printf("add err %g programs %lld time %g errors %d\n", err, (long long)r.programs, r.seconds, r.errors);
  auto a = bv::tensor<float>::randn("a", {100, 70}, 3), b = bv::tensor<float>::randn("b", {70, 90}, 4);
  auto c = bv::tensor<float>::empty("c", {100, 90});
  r = bv::kernels::matmul(a, b, c);
  err = 0;
  for (int i = 0; i < 100; ++i) for (int j = 0; j < 90; ++j) { double s = 0; for (int k = 0; k < 70; ++k) s += (double)a(i,k)*b(k,j); err = std::max(err, std::abs(s - c(i,j))); }
  std::printf("matmul err %g errors %d\n", err, r.errors);
  auto sx = bv::tensor<float>::randn("sx", {33, 300}, 5); auto so = bv::tensor<float>::empty("so", {33, 300});
  r = bv::kernels::softmax(sx, so);
  double tot = 0; for (int j = 0; j < 300; ++j) tot += so(3, j);
  std::printf("softmax rowsum %g errors %d\n", tot, r.errors);
}
