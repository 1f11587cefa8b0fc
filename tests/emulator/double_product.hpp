// The double reference of the emulator's product tests.
#pragma once
#include <cmath>
#include <vector>

namespace emu_test {
struct product_only {
  double operator()(int, double x) const { return x; }
};
// The largest error of c = out(j, a b) (M x K by K x N, row-major) relative to 1 + |ref|, ref
// computed in double from a's and b's values, over every di-th row and dj-th column; out(j, x)
// is an epilogue on column j's sum (a bias, an activation; none by default). A NaN (an unwritten,
// poisoned element) counts as infinite.
template <class A, class C, class Out = product_only>
double worst_against_double(const std::vector<A>& av, const std::vector<A>& bv_,
                            const std::vector<C>& cv, int M, int N, int K, int di = 1, int dj = 1,
                            Out out = {}) {
  double worst = 0;
  for (int i = 0; i < M; i += di)
    for (int j = 0; j < N; j += dj) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum += double(float(av[size_t(i) * K + k])) * double(float(bv_[size_t(k) * N + j]));
      const double ref = out(j, sum);
      const double err =
          std::fabs(double(float(cv[size_t(i) * N + j])) - ref) / (1 + std::fabs(ref));
      worst = std::isnan(err) ? INFINITY : std::fmax(worst, err);
    }
  return worst;
}
}  // namespace emu_test
