// The whole of libblockvec_gpu linked into one small host program (--whole-archive: every
// translation unit, not only those main() calls), so that a HIP build proves that every
// launcher's object resolves against the HIP runtime without compiling bv_gpu_tests or the
// blockvec command. On a GPU it also runs add through the host API against a CPU sum.
// Exits 77 when no GPU can be used, as bv_gpu_tests does.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bv/gpu/host_api.hpp"

int main() {
  if (!bv::gpu::available()) {
    std::printf("hip_link_probe: no GPU: %s\n", bv::gpu::describe().c_str());
    return 77;
  }
  std::printf("hip_link_probe: %s\n", bv::gpu::describe().c_str());
  const int64_t n = 1000 + 37;  // ragged: not a multiple of any block size
  std::mt19937 gen(7);
  std::normal_distribution<float> dist;
  std::vector<float> x(n), y(n), out(n, NAN);
  for (int64_t i = 0; i < n; ++i) x[i] = dist(gen), y[i] = dist(gen);
  bv::gpu::add(bv::gpu::dtype_id::f32, x.data(), y.data(), out.data(), n);
  for (int64_t i = 0; i < n; ++i)
    if (out[i] != x[i] + y[i]) {
      std::printf("hip_link_probe: add differs at %lld: %g, expected %g\n",
                  static_cast<long long>(i), out[i], x[i] + y[i]);
      return 1;
    }
  std::printf("hip_link_probe: add of %lld elements matches\n", static_cast<long long>(n));
  return 0;
}
