// The 16-bit matmul with persistent programs beside the library's launcher: as many programs as
// the GPU runs at once, each looping over tiles (tile pid, pid + programs, ...), its block
// pointers (rings, tensor maps) made once and moved to each tile. Correctness on ragged sizes
// against a double-precision host product (every element), then 8192^3 timings (median of 10
// after 3 warm-up launches, CUDA events), the two taking turns. A development tool.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        -Itests/lang bench/gpu/matmul_persistent_dev.cu -o matmul_persistent_dev
#include <cstdio>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/matmul.hpp"
#include "matmul_checks.hpp"

using namespace bv;

namespace {
using bench::host_random;
using bv::kernels::grouped_tile;
using bv::kernels::tile_index;

template <class T, class O, int BM, int BN, int BK, int GROUP_M, int W = 4>
BV_KERNEL void matmul_persistent_kernel(program<W> p, ptr<const T> a, ptr<const T> b, ptr<O> c,
                                        int M, int N, int K, int sam, int sak, int sbk, int sbn,
                                        int scm, int scn) {
  const int tiles = cdiv(M, BM) * cdiv(N, BN);
  const auto a0 = make_block_ptr<BM, BK>(p, a, {M, K}, {sam, sak}, {0, 0});
  const auto b0 = make_block_ptr<BK, BN>(p, b, {K, N}, {sbk, sbn}, {0, 0});
  for (int tile = p.id(0); tile < tiles; tile += p.num_programs(0)) {
    const tile_index t = grouped_tile(tile, M, N, BM, BN, GROUP_M);
    auto acc = for_range(p, 0, K, BK, accumulator<float, BM, BN>(p),
                         along(advance(a0, {t.m * BM, 0}), {0, BK}, boundary_check(0, 1)),
                         along(advance(b0, {0, t.n * BN}), {BK, 0}, boundary_check(0, 1)),
                         [&](int, const auto& a, const auto& b, auto acc)
                             BV_INLINE_LAMBDA { return dot(a, b, acc); });
    auto rm = t.m * BM + arange<BM>(p);
    auto rn = t.n * BN + arange<BN>(p);
    store(c + (rm.col() * scm + rn.row() * scn), acc, (rm.col() < M) & (rn.row() < N));
  }
}

// The device's multiprocessors, read once (a launch inside the timed events must not query it).
int sms() {
  static const int n = [] {
    int dev = 0;
    hipDeviceProp_t prop;
    gpu::check(hipGetDevice(&dev), "hipGetDevice");
    gpu::check(hipGetDeviceProperties(&prop, dev), "hipGetDeviceProperties");
    return prop.multiProcessorCount;
  }();
  return n;
}

template <int BM, int BN, int BK, int W, int Stages, int PerSM, class T, class O>
launch_result persistent(const device_tensor<T>& a, const device_tensor<T>& b,
                         device_tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  constexpr int lds = bv::kernels::matmul_lds_bytes<T, BM, BN, BK, W>(Stages);
  const int tiles = cdiv(M, BM) * cdiv(N, BN);
  const grid g(std::min(tiles, PerSM * sms()));
  return launch<matmul_persistent_kernel<T, O, BM, BN, BK, 8, W>>(
      gpu_tuning<Stages, 0, unit_args<7, 9, 11>>{lds}, g, a, b, c, M, N, K,
      static_cast<int>(a.stride(0)), 1, static_cast<int>(b.stride(0)), 1,
      static_cast<int>(c.stride(0)), 1);
}

int failures = 0;
template <class F>
double variant(const char* name, F&& run) {
  // The tools' shapes and a larger one. A program takes several tiles only where there are more
  // tiles than programs: at 8192^3 here, whose spot check samples c across them.
  const double worst =
      std::max(bench::worst_f16_checks(run), bench::worst_f16_checks(run, {{1000, 1100, 300}}));
  const bool ok = worst < 2e-2;
  failures += !ok;
  return bench::time_f16_8192(name, ok, worst, run);
}
}  // namespace

int main() {
  try {
    if (gpu::device_count() == 0) {
      std::printf("SKIPPED: no GPU device\n");
      return 77;
    }
    std::printf("%d SMs\n", sms());
    for (int round = 0; round < 2; ++round) {
      variant("launcher (matmul)", [](auto& a, auto& b, auto& c) { bv::kernels::matmul(a, b, c); });
      variant("persistent 128x256x64 W8 S4",
              [](auto& a, auto& b, auto& c) { persistent<128, 256, 64, 8, 4, 1>(a, b, c); });
      variant("persistent 256x128x64 W8 S4",
              [](auto& a, auto& b, auto& c) { persistent<256, 128, 64, 8, 4, 1>(a, b, c); });
    }
    std::printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks ok");
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
