// The attention forward and backward (kernels/bv/kernels/attention.hpp) through the library's
// launchers: every element of o, lse, dq, dk and dv on ragged shapes (f16, D = 64 and 128, causal
// and not; outputs poisoned first) against the double references (kernels/bv/kernels/ref),
// then 4 x 16 x 4096 x D timings (median of 10 after 3 warm-up calls, CUDA events). A development
// tool for the attention kernels' lowering and configurations; the figures that count come from
// `blockvec bench --backend gpu attention` and the attention backward peer.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        -Itests/lang -I/usr/include/eigen3 bench/gpu/attention_fwd_dev.cu -o attention_fwd_dev
// Modes (first argument): none, the above; --lib, the library's timings only, twice; --fwd [TAG],
// the forward rows only (checked, then timed twice); --tiles, --tiles128, --tiles128w4, --tiles64,
// --tiles-bwd, --slots, other tiles (each checked against the launcher first); --overhead, --prof,
// --prof128, --prof-bwd (see main).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/ref/attention.hpp"
#include "matmul_checks.hpp"

using namespace bv;
using namespace bv::kernels;
namespace ref = bv::kernels::ref;

namespace {
using T = half;
int failures = 0;

device_tensor<T> random_tensor(const std::vector<int64_t>& shape, uint64_t seed,
                               std::vector<T>& host) {
  size_t n = 1;
  for (auto d : shape) n *= size_t(d);
  host = bench::host_random<T>(n, seed);
  return device_tensor<T>::from_host("x", shape, host.data());
}

// One (batch, head) of a host [B, H, S, D] tensor as a double matrix.
template <class X>
ref::dmat head(const std::vector<X>& x, int bh, int s, int d) {
  ref::dmat m(s, d);
  for (int i = 0; i < s * d; ++i) m.data()[i] = double(float(x[size_t(bh) * s * d + i]));
  return m;
}
// The worst |got - ref| / (|ref| + 1) over one head's rows of a host [B, H, S, D] tensor.
template <class X>
double worst(const std::vector<X>& got, int bh, const ref::dmat& want) {
  double w = 0;
  for (int i = 0; i < want.size(); ++i) {
    const double g = float(got[size_t(bh) * want.size() + i]), r = want.data()[i];
    const double e = std::fabs(g - r) / (std::fabs(r) + 1);
    w = std::isfinite(e) ? std::max(w, e) : 1e30;
  }
  return w;
}

// The worst |b - a| / (|a| + 1) over two device tensors of the same shape (a: the launcher's).
double worst_between(const device_tensor<T>& a, const device_tensor<T>& b) {
  std::vector<T> ha(a.numel()), hb(b.numel());
  a.copy_to_host(ha.data());
  b.copy_to_host(hb.data());
  double w = 0;
  for (size_t i = 0; i < ha.size(); ++i) {
    const double e = std::fabs(double(float(ha[i])) - float(hb[i])) / (std::fabs(float(ha[i])) + 1);
    w = std::isfinite(e) ? std::max(w, e) : 1e30;
  }
  return w;
}

// Every element of o, lse (the forward) and dq, dk, dv (the backward from them) against the
// double references of kernels/bv/kernels/ref/attention.hpp, outputs poisoned first.
void check(int b, int h, int s, int d, bool causal) {
  const std::vector<int64_t> shape{b, h, s, d};
  std::vector<T> hq, hk, hv, hdo;
  auto q = random_tensor(shape, 1 + s, hq), k = random_tensor(shape, 2 + s, hk),
       v = random_tensor(shape, 3 + s, hv), dout = random_tensor(shape, 4 + s, hdo);
  auto o = device_tensor<T>::empty("o", shape);
  auto lse = device_tensor<float>::empty("lse", {int64_t(b) * h, s});
  auto dq = device_tensor<T>::empty("dq", shape), dk = device_tensor<T>::empty("dk", shape),
       dv = device_tensor<T>::empty("dv", shape);
  for (auto* t : {&o, &dq, &dk, &dv}) t->fill_bytes(0xff);
  lse.fill_bytes(0xff);
  attention_fwd(q, k, v, o, lse, causal);
  attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, causal);
  gpu::synchronize();
  std::vector<T> ho(o.numel()), gq(dq.numel()), gk(dk.numel()), gv(dv.numel());
  std::vector<float> hl(lse.numel());
  o.copy_to_host(ho.data());
  lse.copy_to_host(hl.data());
  dq.copy_to_host(gq.data());
  dk.copy_to_host(gk.data());
  dv.copy_to_host(gv.data());
  double worst_o = 0, worst_l = 0, worst_g = 0;
  for (int bh = 0; bh < b * h; ++bh) {
    const ref::dmat Q = head(hq, bh, s, d), K = head(hk, bh, s, d), V = head(hv, bh, s, d);
    const auto fwd = ref::head_attention(Q, K, V, causal);
    const auto bwd = ref::head_attention_grads(Q, K, V, head(hdo, bh, s, d), causal);
    worst_o = std::max(worst_o, worst(ho, bh, fwd.o));
    for (int i = 0; i < s; ++i) {
      const double e = std::fabs(double(hl[size_t(bh) * s + i]) - fwd.lse[i]);
      worst_l = std::isfinite(e) ? std::max(worst_l, e) : 1e30;
    }
    worst_g =
        std::max({worst_g, worst(gq, bh, bwd.dq), worst(gk, bh, bwd.dk), worst(gv, bh, bwd.dv)});
  }
  const bool ok = worst_o < 4e-3 && worst_l < 1e-3 && worst_g < 1e-2;
  failures += !ok;
  std::printf("check %dx%dx%dx%d %s: o %.1e lse %.1e grads %.1e %s\n", b, h, s, d,
              causal ? "causal" : "full", worst_o, worst_l, worst_g, ok ? "ok" : "FAILED");
  std::fflush(stdout);
}

// The forward's tensors at the timing shape 4 x 16 x 4096 x d: q, k and v random, o and lse.
struct timing_inputs {
  std::vector<int64_t> shape;
  std::vector<T> hq, hk, hv;
  device_tensor<T> q, k, v, o;
  device_tensor<float> lse;
  explicit timing_inputs(int d)
      : shape{4, 16, 4096, d},
        q(random_tensor(shape, 1, hq)),
        k(random_tensor(shape, 2, hk)),
        v(random_tensor(shape, 3, hv)),
        o(device_tensor<T>::empty("o", shape)),
        lse(device_tensor<float>::empty("lse", {64, 4096})) {}
  // The library's forward: median of 10 after 3 warm-ups, ms.
  double forward_ms(bool causal) {
    return bench::median_ms([&] { attention_fwd(q, k, v, o, lse, causal); }, 10, 3);
  }
};

void timing(int d, bool causal) {
  timing_inputs in(d);
  const auto& shape = in.shape;
  auto &q = in.q, &k = in.k, &v = in.v, &o = in.o;
  auto& lse = in.lse;
  const double ms = in.forward_ms(causal);
  const double flops = 4.0 * 4 * 16 * 4096.0 * 4096.0 * d * (causal ? 0.5 : 1.0);
  std::vector<T> hdo;
  auto dout = random_tensor(shape, 4, hdo);
  auto dq = device_tensor<T>::empty("dq", shape), dk = device_tensor<T>::empty("dk", shape),
       dv = device_tensor<T>::empty("dv", shape);
  const double bms =
      bench::median_ms([&] { attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, causal); }, 10, 3);
  std::printf(
      "time 4x16x4096x%d %s: forward %.4f ms  %.1f TFLOP/s  backward %.4f ms  %.1f TFLOP/s\n", d,
      causal ? "causal" : "full", ms, flops / (ms * 1e9), bms, 2.5 * flops / (bms * 1e9));
  std::fflush(stdout);
}
// --tiles: the forward at head dimension D on other tiles (BM x BN, W warps, registers for MP
// programs an SM; MP 0: no cap; kernel variant V with St ring slots), through attention_fwd_at.
// Each is checked first against the library launcher (itself checked against the double reference
// above) on a ragged 1 x 2 x 333 x D and on the timing shape, every element of o and lse, then
// timed at 4 x 16 x 4096 x D beside it.
template <int D, int BM, int BN, int W, int MP, int V = 0, int St = 0>
void tile(bool causal) {
  auto run = [&](const device_tensor<T>& q, const device_tensor<T>& k, const device_tensor<T>& v,
                 device_tensor<T>& o, device_tensor<float>& lse) {
    return kernels::detail::attention_fwd_at<D, BM, BN, W, MP, V, St>(q, k, v, o, lse, causal);
  };
  double worst_o = 0, worst_l = 0, ms = 0, lib = 0;
  for (int big = 0; big < 2; ++big) {
    const std::vector<int64_t> shape =
        big ? std::vector<int64_t>{4, 16, 4096, D} : std::vector<int64_t>{1, 2, 333, D};
    std::vector<T> hq, hk, hv;
    auto q = random_tensor(shape, 11, hq), k = random_tensor(shape, 12, hk),
         v = random_tensor(shape, 13, hv);
    const int64_t rows = shape[0] * shape[1] * shape[2];
    auto o1 = device_tensor<T>::empty("o", shape), o2 = device_tensor<T>::empty("o", shape);
    auto l1 = device_tensor<float>::empty("lse", {rows}),
         l2 = device_tensor<float>::empty("lse", {rows});
    for (auto* t : {&o1, &o2}) t->fill_bytes(0xff);
    l1.fill_bytes(0xff);
    l2.fill_bytes(0xff);
    attention_fwd(q, k, v, o1, l1, causal);
    if (!run(q, k, v, o2, l2).ok()) worst_o = 1e30;
    gpu::synchronize();
    worst_o = std::max(worst_o, worst_between(o1, o2));
    std::vector<float> la(l1.numel()), lb(l2.numel());
    l1.copy_to_host(la.data());
    l2.copy_to_host(lb.data());
    for (size_t i = 0; i < la.size(); ++i) {
      const double e = std::fabs(double(la[i]) - lb[i]);
      worst_l = std::isfinite(e) ? std::max(worst_l, e) : 1e30;
    }
    if (big) {
      ms = bench::median_ms([&] { run(q, k, v, o2, l2); }, 10, 3);
      lib = bench::median_ms([&] { attention_fwd(q, k, v, o1, l1, causal); }, 10, 3);
    }
  }
  const bool ok = worst_o < 4e-3 && worst_l < 1e-3;
  failures += !ok;
  std::printf(
      "tile D=%d %dx%d w%d mp%d variant %d stages %d %s: %.4f ms (library %.4f ms)  o %.1e "
      "lse %.1e %s\n",
      D, BM, BN, W, MP, V, St, causal ? "causal" : "full", ms, lib, worst_o, worst_l,
      ok ? "ok" : "FAILED");
  std::fflush(stdout);
}
// --overhead: what a program costs besides its key steps: the forward at D = 64 on 128x64 tiles
// (8 warps, registers for 2 programs an SM) in variants 1 and 3 over B x H = 4096 heads of S = 128
// keys (one query block, two key steps a program) and 512, and 4 x 16 heads of 4096 (ms, median
// of 10; o checked against the library launcher's). `--overhead 128 4096` runs those key counts
// only.
template <int V, int St>
void overhead(int seq, bool causal) {
  const int64_t b = seq < 4096 ? 64 : 4, h = seq < 4096 ? 64 : 16;
  const std::vector<int64_t> shape{b, h, seq, 64};
  std::vector<T> hq, hk, hv;
  auto q = random_tensor(shape, 31, hq), k = random_tensor(shape, 32, hk),
       v = random_tensor(shape, 33, hv);
  auto o1 = device_tensor<T>::empty("o", shape), o2 = device_tensor<T>::empty("o", shape);
  auto l1 = device_tensor<float>::empty("lse", {b * h * seq}),
       l2 = device_tensor<float>::empty("lse", {b * h * seq});
  o2.fill_bytes(0xff);
  auto run = [&] {
    return kernels::detail::attention_fwd_at<64, 128, 64, 8, 2, V, St>(q, k, v, o2, l2, causal);
  };
  attention_fwd(q, k, v, o1, l1, causal);
  if (!run().ok()) ++failures;
  gpu::synchronize();
  const double worst = worst_between(o1, o2);
  const bool ok = worst < 4e-3;
  failures += !ok;
  const double ms = bench::median_ms([&] { run(); }, 10, 3);
  std::printf("overhead S=%d variant %d stages %d %s: %.4f ms  o %.1e %s\n", seq, V, St,
              causal ? "causal" : "full", ms, worst, ok ? "ok" : "FAILED");
  std::fflush(stdout);
}
// --tiles-bwd: the backward on other tiles (at head dimension D only), the same way: dq, dk and dv
// of the tiles against the library launcher's (the forward's o and lse from the library), every
// element, then timed at 4 x 16 x 4096 x D beside it.
template <int D, int BM, int BN, int W, int MP>
void tile_bwd(bool causal) {
  double worst_g = 0, ms = 0, lib = 0;
  for (int big = 0; big < 2; ++big) {
    const std::vector<int64_t> shape =
        big ? std::vector<int64_t>{4, 16, 4096, D} : std::vector<int64_t>{1, 2, 333, D};
    std::vector<T> hq, hk, hv, hdo;
    auto q = random_tensor(shape, 21, hq), k = random_tensor(shape, 22, hk),
         v = random_tensor(shape, 23, hv), dout = random_tensor(shape, 24, hdo);
    const int64_t rows = shape[0] * shape[1] * shape[2];
    auto o = device_tensor<T>::empty("o", shape);
    auto lse = device_tensor<float>::empty("lse", {rows});
    attention_fwd(q, k, v, o, lse, causal);
    std::vector<device_tensor<T>> g1, g2;
    for (int i = 0; i < 3; ++i) {
      g1.push_back(device_tensor<T>::empty("g", shape));
      g2.push_back(device_tensor<T>::empty("g", shape));
      g1.back().fill_bytes(0xff);
      g2.back().fill_bytes(0xff);
    }
    auto lib_run = [&] { attention_bwd(q, k, v, o, lse, dout, g1[0], g1[1], g1[2], causal); };
    auto run = [&] {
      return kernels::detail::attention_bwd_at<D, BM, BN, W, MP>(q, k, v, o, lse, dout, g2[0],
                                                                 g2[1], g2[2], causal);
    };
    lib_run();
    for (const auto& r : run())
      if (!r.ok()) worst_g = 1e30;
    gpu::synchronize();
    for (int i = 0; i < 3; ++i) worst_g = std::max(worst_g, worst_between(g1[i], g2[i]));
    if (big) {
      ms = bench::median_ms([&] { run(); }, 10, 3);
      lib = bench::median_ms(lib_run, 10, 3);
    }
  }
  const bool ok = worst_g < 1e-2;
  failures += !ok;
  std::printf("tile-bwd D=%d %dx%d w%d mp%d %s: %.4f ms (library %.4f ms)  grads %.1e %s\n", D, BM,
              BN, W, MP, causal ? "causal" : "full", ms, lib, worst_g, ok ? "ok" : "FAILED");
  std::fflush(stdout);
}
}  // namespace

// The last line of a mode, and its exit status: whether every check passed.
int summary() {
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
}

// BV_DEV_TILES_ONLY: no main, for a file that includes this one and times only the tiles it names
// (a build of minutes instead of the whole tool's).
#ifndef BV_DEV_TILES_ONLY
// --fwd [TAG]: the library's forward rows only, for builds that take turns in one call: the
// checks of two ragged shapes per head dimension and mask, then 4 x 16 x 4096 x D (D = 64 and
// 128, causal and not) twice, median of 10 after 3 warm-ups, each line tagged.
int fwd_rows(const char* tag) {
  for (int d : {64, 128})
    for (bool c : {false, true}) {
      check(1, 2, 333, d, c);
      check(1, 1, 192, d, c);
    }
  for (int round = 0; round < 2; ++round)
    for (int d : {64, 128})
      for (bool c : {false, true}) {
        const double ms = timing_inputs(d).forward_ms(c);
        std::printf("%s D=%d %s: %.4f ms\n", tag, d, c ? "causal" : "full", ms);
        std::fflush(stdout);
      }
  std::printf("%s %s\n", tag, failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--lib") {
    // The library's rows, forward and backward, timed only (two rounds), for A/B runs of builds.
    for (int round = 0; round < 2; ++round)
      for (int d : {64, 128})
        for (bool c : {false, true}) timing(d, c);
    return summary();
  }
  if (argc > 1 && std::string(argv[1]) == "--fwd") return fwd_rows(argc > 2 ? argv[2] : "");
  if (argc > 1 && std::string(argv[1]) == "--tiles64") {
    // One-warpgroup tiles at D = 64 beside the library's row (variant 3, q held).
    for (int round = 0; round < 2; ++round)
      for (bool c : {false, true}) {
        tile<64, 64, 64, 4, 4, 3, 2>(c);
        tile<64, 64, 64, 4, 4, 3, 3>(c);
        tile<64, 128, 128, 8, 1, 3, 2>(c);
      }
    return summary();
  }
  if (argc > 1 && std::string(argv[1]) == "--tiles-bwd") {
    for (bool c : {true, false}) {
      tile_bwd<64, 64, 64, 4, 0>(c);
      tile_bwd<64, 64, 64, 4, 2>(c);
      tile_bwd<64, 128, 64, 8, 0>(c);
      tile_bwd<64, 64, 128, 8, 0>(c);
      tile_bwd<64, 128, 128, 8, 0>(c);
      tile_bwd<128, 32, 32, 4, 0>(c);
      tile_bwd<128, 64, 64, 4, 0>(c);
      tile_bwd<128, 128, 64, 8, 0>(c);
    }
    return summary();
  }
  if (argc > 1 && std::string(argv[1]) == "--overhead") {
    std::vector<int> seqs;  // the key counts given after --overhead, or all three
    for (int i = 2; i < argc; ++i) seqs.push_back(std::atoi(argv[i]));
    if (seqs.empty()) seqs = {128, 512, 4096};
    for (int round = 0; round < 2; ++round)
      for (int seq : seqs)
        for (bool c : {false, true}) {
          overhead<1, 0>(seq, c);
          overhead<3, 2>(seq, c);
        }
    return summary();
  }
  if (argc > 1 && std::string(argv[1]) == "--slots") {
    // The rows whose q is held in one ring slot (max_slots<1>) at 2 slots for k and v (the
    // tables' rows) and at 3, which the held slot leaves room for.
    for (int round = 0; round < 2; ++round)
      for (bool c : {false, true}) {
        tile<128, 128, 128, 8, 1, 4, 2>(c);
        tile<128, 128, 128, 8, 1, 4, 3>(c);
        tile<128, 128, 128, 8, 1, 6, 3>(c);
        tile<64, 64, 64, 4, 4, 3, 2>(c);
        tile<64, 64, 64, 4, 4, 3, 3>(c);
      }
    return summary();
  }
  if (argc > 1 && std::string(argv[1]) == "--tiles128") {
    for (int round = 0; round < 2; ++round)
      for (bool c : {false, true}) {
        tile<128, 128, 128, 8, 1, 2, 2>(c);
        tile<128, 128, 64, 8, 1, 4, 2>(c);
        tile<128, 128, 64, 8, 1, 4, 3>(c);
        tile<128, 128, 64, 8, 2, 4, 2>(c);
        tile<128, 128, 64, 8, 1, 6, 2>(c);
        tile<128, 128, 64, 8, 1, 6, 3>(c);
      }
    return summary();
  }
  if (argc > 1 && std::string(argv[1]) == "--tiles128w4") {
    // One-warpgroup tiles at D = 128 (Triton's Hopper tile is 64x64 on 4 warps) beside the row.
    for (int round = 0; round < 2; ++round)
      for (bool c : {false, true}) {
        tile<128, 128, 128, 8, 1, 4, 2>(c);
        tile<128, 64, 64, 4, 2, 4, 2>(c);
        tile<128, 64, 64, 4, 3, 4, 2>(c);
        tile<128, 64, 128, 4, 1, 4, 2>(c);
        tile<128, 64, 128, 4, 2, 4, 2>(c);
        tile<128, 128, 64, 8, 1, 4, 2>(c);
        tile<128, 64, 64, 4, 2, 6, 2>(c);
      }
    return summary();
  }
  if (argc > 1 && std::string(argv[1]) == "--tiles") {
    for (int round = 0; round < 2; ++round)
      for (bool c : {false, true}) {
        tile<64, 128, 64, 8, 2, 1>(c);
        tile<64, 128, 64, 8, 2, 2, 2>(c);
        tile<64, 128, 64, 8, 2, 3, 2>(c);
        tile<64, 128, 64, 8, 2, 3, 3>(c);
        tile<64, 128, 128, 8, 1, 3, 2>(c);
        tile<64, 64, 64, 4, 3, 3, 2>(c);
        tile<64, 128, 64, 8, 2, 5, 2>(c);
        tile<64, 128, 64, 8, 1, 5, 2>(c);
      }
    return summary();
  }
  // For ncu: one forward at 4x16x4096x64 (--prof) or x128 (--prof128), or one forward and one
  // causal backward at 64 (--prof-bwd).
  if (argc > 1 && (std::string(argv[1]) == "--prof" || std::string(argv[1]) == "--prof-bwd" ||
                   std::string(argv[1]) == "--prof128")) {
    const bool bwd = std::string(argv[1]) == "--prof-bwd";
    timing_inputs in(std::string(argv[1]) == "--prof128" ? 128 : 64);
    const auto& shape = in.shape;
    auto &q = in.q, &k = in.k, &v = in.v, &o = in.o;
    auto& lse = in.lse;
    attention_fwd(q, k, v, o, lse, bwd);
    if (bwd) {
      std::vector<T> hdo;
      auto dout = random_tensor(shape, 4, hdo);
      auto dq = device_tensor<T>::empty("dq", shape), dk = device_tensor<T>::empty("dk", shape),
           dv = device_tensor<T>::empty("dv", shape);
      attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, true);
    }
    gpu::synchronize();
    return 0;
  }
  for (int d : {64, 128})
    for (bool c : {false, true}) {
      check(1, 2, 333, d, c);
      check(2, 1, 77, d, c);
      check(1, 1, 1, d, c);
      check(1, 1, 192, d, c);
    }
  for (int d : {64, 128})
    for (bool c : {false, true}) timing(d, c);
  return summary();
}
#endif
