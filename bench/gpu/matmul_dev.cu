// The f16 matmul through block pointers (kernels/bv/kernels/matmul.hpp) at several tile shapes and
// pipeline depths: correctness on ragged sizes against a double-precision host product (every
// element), then 8192^3 timings (median of 10 after 3 warm-up launches, CUDA events). A
// development tool for the block-pointer pipeline; the figures that count come from
// `blockvec bench --backend gpu matmul_f16`. sm_90a gives the wgmma path (block_ptr.hpp), sm_90
// mma.sync; -DBV_DEV_ONE -DD_BM=.. -DD_BN=.. -DD_BK=.. -DD_W=.. -DD_S=.. [-DD_MP=..] builds one
// shape. --f32out times f16 inputs with f32 results instead; --group, the row's tile at other
// GROUP_M.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        -Itests/lang bench/gpu/matmul_dev.cu -o matmul_dev
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/matmul.hpp"
#include "matmul_checks.hpp"

using namespace bv;

namespace {
using bench::host_random;

// The library launcher at tiles BM x BN x BK, W waves, Stages ring slots (0: no rings).
template <int BM, int BN, int BK, int W, int Stages, int MinPrograms = 0, class T, class O>
launch_result tiles(const device_tensor<T>& a, const device_tensor<T>& b, device_tensor<O>& c) {
  return bv::kernels::matmul<BM, BN, BK, 8, W, Stages, MinPrograms>(a, b, c);
}

// The sm_90 row's tile at GROUP_M G.
template <int G, class T, class O>
launch_result grouped(const device_tensor<T>& a, const device_tensor<T>& b, device_tensor<O>& c) {
  return bv::kernels::matmul<128, 256, 64, G, 8, 4>(a, b, c);
}

int failures = 0;
template <class F>
void variant(const char* name, F&& run, bool time_it) {
  const double worst = bench::worst_f16_checks(run);
  const bool ok = worst < 2e-2;
  failures += !ok;
  if (!time_it) {
    std::printf("%-34s check %s (worst %.1e)\n", name, ok ? "ok" : "FAILED", worst);
    return;
  }
  bench::time_f16_8192(name, ok, worst, run);
}
}  // namespace

int main(int argc, char** argv) {
  try {
    if (gpu::device_count() == 0) {
      std::printf("SKIPPED: no GPU device\n");
      return 77;
    }
    const bool quick = argc > 1 && std::string(argv[1]) == "--check";
    if (argc > 1 && std::string(argv[1]) == "--prof") {  // one launcher run at 8192^3, for ncu
      const int M = 8192;
      auto ha = host_random<half>(size_t(M) * M, 4);
      auto a = device_tensor<half>::from_host("a", {M, M}, ha.data());
      auto c = device_tensor<half>::empty("c", {M, M});
      bv::kernels::matmul(a, a, c);
      gpu::synchronize();
      return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--f32out") {
      // f16 inputs, f32 results: the launcher's row (chosen by the inputs' size) and tiles whose
      // f32 epilogue ptxas compiles without spills.
      const auto f32 = [&](const char* name, auto f) {
        const double worst = bench::worst_f16_checks(f);
        const bool ok = worst < 2e-3;
        failures += !ok;
        bench::time_f16_8192<float>(name, ok, worst, f);
      };
      for (int round = 0; round < 2; ++round) {
        f32("f32 out: launcher (matmul)",
            [](auto& a, auto& b, auto& c) { bv::kernels::matmul(a, b, c); });
        f32("f32 out: 128x128x64 W8 S4",
            [](auto& a, auto& b, auto& c) { tiles<128, 128, 64, 8, 4>(a, b, c); });
        f32("f32 out: 128x128x64 W4 S4",
            [](auto& a, auto& b, auto& c) { tiles<128, 128, 64, 4, 4>(a, b, c); });
        f32("f32 out: 256x128x64 W8 S4",
            [](auto& a, auto& b, auto& c) { tiles<256, 128, 64, 8, 4>(a, b, c); });
      }
      std::printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks ok");
      return failures ? 1 : 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--group") {
      // The row's tile (128x256x64, 8 warps, 4 slots) at other GROUP_M (the programs in a group
      // share their columns of b), three rounds in turns.
      const auto time = [&](const char* name, auto f) { variant(name, f, true); };
      for (int round = 0; round < 3; ++round) {
        time("launcher (matmul)", [](auto& a, auto& b, auto& c) { bv::kernels::matmul(a, b, c); });
        time("GROUP_M 4", [](auto& a, auto& b, auto& c) { grouped<4>(a, b, c); });
        time("GROUP_M 8", [](auto& a, auto& b, auto& c) { grouped<8>(a, b, c); });
        time("GROUP_M 16", [](auto& a, auto& b, auto& c) { grouped<16>(a, b, c); });
        time("GROUP_M 32", [](auto& a, auto& b, auto& c) { grouped<32>(a, b, c); });
      }
      std::printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks ok");
      return failures ? 1 : 0;
    }
    failures += !bench::misuse_check<half, 66>("f16", 1e-3);
    auto go = [&](const char* name, auto f) { variant(name, f, !quick); };
#ifdef BV_DEV_ONE
#ifndef D_MP
#define D_MP 0
#endif
    go("one", [](auto& a, auto& b, auto& c) { tiles<D_BM, D_BN, D_BK, D_W, D_S, D_MP>(a, b, c); });
#else
    go("launcher (matmul)", [](auto& a, auto& b, auto& c) { bv::kernels::matmul(a, b, c); });
    go("128x128x64 W4 S3", [](auto& a, auto& b, auto& c) { tiles<128, 128, 64, 4, 3>(a, b, c); });
    go("256x128x64 W8 S2", [](auto& a, auto& b, auto& c) { tiles<256, 128, 64, 8, 2>(a, b, c); });
    go("256x128x64 W8 S3", [](auto& a, auto& b, auto& c) { tiles<256, 128, 64, 8, 3>(a, b, c); });
    go("128x256x64 W8 S3", [](auto& a, auto& b, auto& c) { tiles<128, 256, 64, 8, 3>(a, b, c); });
    go("128x256x64 W8 S4", [](auto& a, auto& b, auto& c) { tiles<128, 256, 64, 8, 4>(a, b, c); });
    go("256x128x64 W8 S4", [](auto& a, auto& b, auto& c) { tiles<256, 128, 64, 8, 4>(a, b, c); });
    go("128x128x64 W4 S4", [](auto& a, auto& b, auto& c) { tiles<128, 128, 64, 4, 4>(a, b, c); });
    go("128x128x64 W4 S5", [](auto& a, auto& b, auto& c) { tiles<128, 128, 64, 4, 5>(a, b, c); });
    go("128x128x32 W4 S3 (mma.sync)",
       [](auto& a, auto& b, auto& c) { tiles<128, 128, 32, 4, 3>(a, b, c); });
    go("128x128x64 W4 no ring",
       [](auto& a, auto& b, auto& c) { tiles<128, 128, 64, 4, 0>(a, b, c); });
#endif
    std::printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks ok");
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
