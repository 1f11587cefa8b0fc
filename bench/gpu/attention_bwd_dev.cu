// The attention backward (kernels/bv/kernels/attention.hpp) with its two main kernels on separate
// tile shapes: dk/dv with BM1 query rows a step over BN1 keys a program on W1 warps, dq with BM2
// query rows a program over BN2 keys a step on W2 warps; each kernel in a variant of the tables'
// rows (V1, V2: attention_bwd_dkdv_variant, attention_bwd_dq_variant) with rings of S1, S2 slots
// for the variants with block pointers (dK/dV's q and dout, dQ's k and v). Each
// variant is first checked against the library launcher on a ragged shape (2 x 3 x 333 x D f16,
// outputs poisoned first), then timed at 4 x 16 x 4096 x D f16 beside the library launcher (median
// of 10 after 3 warm-up calls, CUDA events; the preprocess, dk/dv and dq launches together). A
// development tool for attention_bwd_configs and attention_bwd_dq_configs; the figures that count
// come from `blockvec bench --backend gpu attention_bwd`.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        -Itests/lang bench/gpu/attention_bwd_dev.cu -o attention_bwd_dev
// With -DBV_DEV_D64 it times other dK/dV and dQ tiles at D = 64, causal, instead; with
// -DBV_DEV_HELD the variants that hold their loop-invariant tiles in ring slots; with -DBV_DEV_MP
// those with registers left for more programs an SM; with -DBV_DEV_SLOTS sm_90's rows at D = 64
// with deeper rings for their streams.
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/attention.hpp"
#include "matmul_checks.hpp"

using namespace bv;
using namespace bv::kernels;

namespace {
using T = half;

// dK/dV in variant V1 (attention_bwd_dkdv_variant) with S1 ring slots, dQ in variant V2
// (attention_bwd_dq_variant) with S2, through the library's own launcher for given tiles; MP1 and
// MP2 > 0 leave registers for that many programs an SM (bv/launch_tuning.hpp).
template <int D, bool C, int BM1, int BN1, int W1, int BM2, int BN2, int W2, int V1, int S1, int V2,
          int S2, int MP1 = 0, int MP2 = 0>
void backward(const device_tensor<T>& q, const device_tensor<T>& k, const device_tensor<T>& v,
              const device_tensor<T>& o, const device_tensor<float>& lse,
              const device_tensor<T>& dout, device_tensor<T>& dq, device_tensor<T>& dk,
              device_tensor<T>& dv) {
  kernels::detail::attention_bwd_at<D, BM1, BN1, W1, MP1, V1, S1, BM2, BN2, W2, MP2, V2, S2>(
      q, k, v, o, lse, dout, dq, dk, dv, C);
}

double rel_l2(const device_tensor<T>& got, const device_tensor<T>& want) {
  std::vector<T> g(got.numel()), w(want.numel());
  got.copy_to_host(g.data());
  want.copy_to_host(w.data());
  double num = 0, den = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double a = float(g[i]), b = float(w[i]);
    num += std::isfinite(a) ? (a - b) * (a - b) : 1e30;
    den += b * b;
  }
  return std::sqrt(num / den);
}

struct inputs {
  device_tensor<T> q, k, v, dout, o;
  device_tensor<float> lse;
  inputs(std::vector<int64_t> shape, bool causal)
      : q(random(shape, 1)),
        k(random(shape, 2)),
        v(random(shape, 3)),
        dout(random(shape, 4)),
        o(device_tensor<T>::empty("o", shape)),
        lse(device_tensor<float>::empty("lse", {shape[0] * shape[1], shape[2]})) {
    attention_fwd(q, k, v, o, lse, causal);
  }
  static device_tensor<T> random(const std::vector<int64_t>& shape, uint64_t seed) {
    size_t n = 1;
    for (auto d : shape) n *= size_t(d);
    auto h = bench::host_random<T>(n, seed);
    return device_tensor<T>::from_host("x", shape, h.data());
  }
};

int failures = 0;
template <int D, bool C, int BM1, int BN1, int W1, int BM2, int BN2, int W2, int V1, int S1, int V2,
          int S2, int MP1 = 0, int MP2 = 0>
void variant() {
  inputs small({2, 3, 333, D}, C);
  auto e = [&](int) { return device_tensor<T>::empty("g", {2, 3, 333, D}); };
  auto rq = e(0), rk = e(0), rv = e(0), dq = e(0), dk = e(0), dv = e(0);
  attention_bwd(small.q, small.k, small.v, small.o, small.lse, small.dout, rq, rk, rv, C);
  for (auto* t : {&dq, &dk, &dv}) t->fill_bytes(0xff);
  backward<D, C, BM1, BN1, W1, BM2, BN2, W2, V1, S1, V2, S2, MP1, MP2>(
      small.q, small.k, small.v, small.o, small.lse, small.dout, dq, dk, dv);
  gpu::synchronize();
  const double err = std::max({rel_l2(dq, rq), rel_l2(dk, rk), rel_l2(dv, rv)});
  const bool ok = err < 5e-3;
  failures += !ok;
  const std::vector<int64_t> shape{4, 16, 4096, D};
  inputs big(shape, C);
  auto g = [&] { return device_tensor<T>::empty("g", shape); };
  auto bq = g(), bk = g(), bv = g();
  const double ms = bench::median_ms(
      [&] {
        backward<D, C, BM1, BN1, W1, BM2, BN2, W2, V1, S1, V2, S2, MP1, MP2>(
            big.q, big.k, big.v, big.o, big.lse, big.dout, bq, bk, bv);
      },
      10, 3);
  const double lib = bench::median_ms(
      [&] { attention_bwd(big.q, big.k, big.v, big.o, big.lse, big.dout, bq, bk, bv, C); }, 10, 3);
  std::printf(
      "D=%3d %s dkdv v%d s%d %3dx%3d w%d mp%d  dq v%d s%d %3dx%3d w%d mp%d  check %s (rel %.1e)  "
      "4x16x4096x%d %.4f ms  (library %.4f ms)\n",
      D, C ? "causal" : "full  ", V1, S1, BM1, BN1, W1, MP1, V2, S2, BM2, BN2, W2, MP2,
      ok ? "ok" : "FAILED", err, D, ms, lib);
  std::fflush(stdout);
}
}  // namespace

int main() {
#ifdef BV_DEV_MP
  // The held variants with fewer registers a thread for more programs an SM (MP1, MP2).
  for (int round = 0; round < 2; ++round) {
    variant<64, true, 64, 64, 4, 128, 128, 8, 2, 2, 3, 2>();
    variant<64, true, 64, 64, 4, 128, 128, 8, 2, 2, 3, 2, 3, 0>();
    variant<64, true, 64, 64, 4, 64, 64, 4, 2, 2, 3, 2, 0, 3>();
    variant<64, true, 64, 64, 4, 64, 64, 4, 2, 2, 3, 2, 3, 3>();
    variant<64, true, 64, 64, 4, 128, 64, 8, 2, 2, 3, 2, 3, 2>();
    variant<64, false, 64, 64, 4, 128, 128, 8, 2, 2, 3, 2>();
    variant<64, false, 64, 64, 4, 64, 64, 4, 2, 2, 3, 2, 3, 3>();
  }
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
#endif
#ifdef BV_DEV_SLOTS
  // sm_90's rows at D = 64 (held tiles in one slot each, max_slots<1>) with their streams' rings
  // at 2 slots (the rows), 3 and 4: the held slots left the LDS room for them.
  for (int round = 0; round < 2; ++round) {
    variant<64, true, 64, 64, 4, 128, 64, 8, 2, 2, 3, 2, 3, 2>();
    variant<64, true, 64, 64, 4, 128, 64, 8, 2, 3, 3, 2, 3, 2>();
    variant<64, true, 64, 64, 4, 128, 64, 8, 2, 2, 3, 3, 3, 2>();
    variant<64, true, 64, 64, 4, 128, 64, 8, 2, 3, 3, 3, 3, 2>();
    variant<64, true, 64, 64, 4, 128, 64, 8, 2, 3, 3, 4, 3, 2>();
    variant<64, false, 64, 64, 4, 128, 64, 8, 2, 2, 3, 2, 3, 2>();
    variant<64, false, 64, 64, 4, 128, 64, 8, 2, 3, 3, 3, 3, 2>();
  }
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
#endif
#ifdef BV_DEV_HELD
  // dK/dV's variant 2 (k and v held in ring slots) and dQ's 3 (q and dout held) beside the
  // table's rows (1 and 1), causal and not, on sm_90's tiles and others.
  for (int round = 0; round < 2; ++round) {
    variant<64, true, 64, 64, 4, 128, 128, 8, 1, 2, 1, 2>();
    variant<64, true, 64, 64, 4, 128, 128, 8, 2, 2, 1, 2>();
    variant<64, true, 64, 64, 4, 128, 128, 8, 2, 2, 3, 2>();
    variant<64, true, 64, 64, 4, 128, 128, 8, 2, 2, 3, 3>();
    variant<64, true, 64, 64, 4, 128, 64, 8, 2, 2, 3, 2>();
    variant<64, true, 64, 64, 4, 64, 64, 4, 2, 2, 3, 2>();
    variant<64, false, 64, 64, 4, 128, 128, 8, 1, 2, 1, 2>();
    variant<64, false, 64, 64, 4, 128, 128, 8, 2, 2, 1, 2>();
    variant<64, false, 64, 64, 4, 128, 128, 8, 2, 2, 3, 2>();
    variant<128, true, 64, 128, 8, 128, 64, 8, 1, 2, 1, 2>();
    variant<128, true, 64, 128, 8, 128, 64, 8, 2, 2, 1, 2>();
    variant<128, true, 64, 128, 8, 128, 64, 8, 1, 2, 3, 2>();
  }
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
#endif
#ifdef BV_DEV_D64
  // dK/dV's tile at D = 64, causal: keys a program, query rows a step, warps, slots; dQ as the
  // table's row.
  for (int round = 0; round < 2; ++round) {
    variant<64, true, 64, 64, 4, 128, 128, 8, 1, 2, 1, 2>();
    variant<64, true, 64, 64, 4, 128, 128, 8, 1, 3, 1, 2>();
    variant<64, true, 64, 128, 8, 128, 128, 8, 1, 2, 1, 2>();
    variant<64, true, 64, 128, 4, 128, 128, 8, 1, 2, 1, 2>();
    variant<64, true, 32, 128, 4, 128, 128, 8, 1, 3, 1, 2>();
    variant<64, true, 128, 128, 8, 128, 128, 8, 1, 2, 1, 2>();
    variant<64, true, 64, 64, 4, 64, 64, 4, 1, 2, 1, 2>();
    variant<64, true, 64, 64, 4, 128, 64, 8, 1, 2, 1, 2>();
  }
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
#endif
  for (int round = 0; round < 2; ++round) {
    for (bool c : {true, false}) {
      // sm_90's rows (dK/dV k q^T with 2 slots), dQ with pointer loads, 2 and 3 slots.
      const auto d64 = [](auto cc) {
        constexpr bool C = decltype(cc)::value;
        variant<64, C, 64, 64, 4, 128, 128, 8, 1, 2, 0, 0>();
        variant<64, C, 64, 64, 4, 128, 128, 8, 1, 2, 1, 2>();
        variant<64, C, 64, 64, 4, 128, 128, 8, 1, 2, 1, 3>();
      };
      const auto d128 = [](auto cc) {
        constexpr bool C = decltype(cc)::value;
        variant<128, C, 64, 128, 8, 128, 64, 8, 1, 2, 0, 0>();
        variant<128, C, 64, 128, 8, 128, 64, 8, 1, 2, 1, 2>();
        variant<128, C, 64, 128, 8, 128, 64, 8, 1, 2, 1, 3>();
      };
      if (c) {
        d64(std::true_type{});
        d128(std::true_type{});
      } else {
        d64(std::false_type{});
        d128(std::false_type{});
      }
    }
  }
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
}
