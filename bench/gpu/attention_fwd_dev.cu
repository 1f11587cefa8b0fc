// The attention forward and backward (kernels/bv/kernels/attention.hpp) through the library's
// launchers: every element of o, lse, dq, dk and dv on ragged shapes (f16, D = 64 and 128, causal
// and not; outputs poisoned first) against a double-precision host attention and its gradients,
// then 4 x 16 x 4096 x D timings (median of 10 after 3 warm-up calls, CUDA events). A development
// tool for the attention kernels' lowering and configurations; the figures that count come from
// `blockvec bench --backend gpu attention` and the attention backward peer.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        bench/gpu/attention_fwd_dev.cu -o attention_fwd_dev
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/attention.hpp"
#include "matmul_checks.hpp"

using namespace bv;
using namespace bv::kernels;

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

// Worst |o - ref| / (|ref| + 1) and |lse - ref| over every element, from double precision.
void check(int b, int h, int s, int d, bool causal) {
  const std::vector<int64_t> shape{b, h, s, d};
  std::vector<T> hq, hk, hv;
  auto q = random_tensor(shape, 1 + s, hq), k = random_tensor(shape, 2 + s, hk),
       v = random_tensor(shape, 3 + s, hv);
  auto o = device_tensor<T>::empty("o", shape);
  auto lse = device_tensor<float>::empty("lse", {int64_t(b) * h, s});
  o.fill_bytes(0xff);
  lse.fill_bytes(0xff);
  attention_fwd(q, k, v, o, lse, causal);
  gpu::synchronize();
  std::vector<T> ho(o.numel());
  std::vector<float> hl(lse.numel());
  o.copy_to_host(ho.data());
  lse.copy_to_host(hl.data());
  const double scale = 1.0 / std::sqrt(double(d));
  double worst_o = 0, worst_l = 0;
  std::vector<double> p(s);
  for (int bh = 0; bh < b * h; ++bh)
    for (int i = 0; i < s; ++i) {
      const size_t qi = (size_t(bh) * s + i) * d;
      double mx = -std::numeric_limits<double>::infinity();
      const int last = causal ? i : s - 1;
      for (int j = 0; j <= last; ++j) {
        const size_t kj = (size_t(bh) * s + j) * d;
        double dot = 0;
        for (int e = 0; e < d; ++e) dot += double(float(hq[qi + e])) * double(float(hk[kj + e]));
        p[j] = dot * scale;
        mx = std::max(mx, p[j]);
      }
      double sum = 0;
      for (int j = 0; j <= last; ++j) sum += (p[j] = std::exp(p[j] - mx));
      const double lref = mx + std::log(sum);
      const double el = std::fabs(double(hl[size_t(bh) * s + i]) - lref);
      worst_l = std::isfinite(el) ? std::max(worst_l, el) : 1e30;
      for (int e = 0; e < d; ++e) {
        double ref = 0;
        for (int j = 0; j <= last; ++j)
          ref += p[j] * double(float(hv[(size_t(bh) * s + j) * d + e]));
        ref /= sum;
        const double got = float(ho[qi + e]);
        const double eo = std::fabs(got - ref) / (std::fabs(ref) + 1);
        worst_o = std::isfinite(eo) ? std::max(worst_o, eo) : 1e30;
      }
    }
  // The backward from the forward's o and lse, against double gradients of the same loss.
  std::vector<T> hdo;
  auto dout = random_tensor(shape, 4 + s, hdo);
  auto dq = device_tensor<T>::empty("dq", shape), dk = device_tensor<T>::empty("dk", shape),
       dv = device_tensor<T>::empty("dv", shape);
  for (auto* t : {&dq, &dk, &dv}) t->fill_bytes(0xff);
  attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, causal);
  gpu::synchronize();
  std::vector<T> gq(dq.numel()), gk(dk.numel()), gv(dv.numel());
  dq.copy_to_host(gq.data());
  dk.copy_to_host(gk.data());
  dv.copy_to_host(gv.data());
  double worst_g = 0;
  for (int bh = 0; bh < b * h; ++bh) {
    auto at = [&](const std::vector<T>& x, int row, int e) {
      return double(float(x[(size_t(bh) * s + row) * d + e]));
    };
    std::vector<double> P(size_t(s) * s, 0.0), dS(size_t(s) * s, 0.0);
    for (int i = 0; i < s; ++i) {
      const int last = causal ? i : s - 1;
      double mx = -std::numeric_limits<double>::infinity();
      for (int j = 0; j <= last; ++j) {
        double t = 0;
        for (int e = 0; e < d; ++e) t += at(hq, i, e) * at(hk, j, e);
        P[size_t(i) * s + j] = t * scale;
        mx = std::max(mx, t * scale);
      }
      double sum = 0;
      for (int j = 0; j <= last; ++j) sum += (P[size_t(i) * s + j] = std::exp(P[size_t(i) * s + j] - mx));
      for (int j = 0; j <= last; ++j) P[size_t(i) * s + j] /= sum;
      // dP = dO V^T; dS = P (dP - rowsum(dP P)).
      std::vector<double> dP(s, 0.0);
      double delta = 0;
      for (int j = 0; j <= last; ++j) {
        for (int e = 0; e < d; ++e) dP[j] += at(hdo, i, e) * at(hv, j, e);
        delta += dP[j] * P[size_t(i) * s + j];
      }
      for (int j = 0; j <= last; ++j) dS[size_t(i) * s + j] = P[size_t(i) * s + j] * (dP[j] - delta);
    }
    for (int r = 0; r < s; ++r)
      for (int e = 0; e < d; ++e) {
        double rq = 0, rk = 0, rv = 0;
        for (int j = 0; j < s; ++j) {
          rq += dS[size_t(r) * s + j] * at(hk, j, e) * scale;
          rk += dS[size_t(j) * s + r] * at(hq, j, e) * scale;
          rv += P[size_t(j) * s + r] * at(hdo, j, e);
        }
        for (auto [got, ref] : {std::pair{at(gq, r, e), rq}, std::pair{at(gk, r, e), rk},
                                std::pair{at(gv, r, e), rv}}) {
          const double err = std::fabs(got - ref) / (std::fabs(ref) + 1);
          worst_g = std::isfinite(err) ? std::max(worst_g, err) : 1e30;
        }
      }
  }
  const bool ok = worst_o < 4e-3 && worst_l < 1e-3 && worst_g < 1e-2;
  failures += !ok;
  std::printf("check %dx%dx%dx%d %s: o %.1e lse %.1e grads %.1e %s\n", b, h, s, d,
              causal ? "causal" : "full", worst_o, worst_l, worst_g, ok ? "ok" : "FAILED");
  std::fflush(stdout);
}

void timing(int d, bool causal) {
  const std::vector<int64_t> shape{4, 16, 4096, d};
  std::vector<T> hq, hk, hv;
  auto q = random_tensor(shape, 1, hq), k = random_tensor(shape, 2, hk),
       v = random_tensor(shape, 3, hv);
  auto o = device_tensor<T>::empty("o", shape);
  auto lse = device_tensor<float>::empty("lse", {64, 4096});
  const double ms = bench::median_ms([&] { attention_fwd(q, k, v, o, lse, causal); }, 10, 3);
  const double flops = 4.0 * 4 * 16 * 4096.0 * 4096.0 * d * (causal ? 0.5 : 1.0);
  std::vector<T> hdo;
  auto dout = random_tensor(shape, 4, hdo);
  auto dq = device_tensor<T>::empty("dq", shape), dk = device_tensor<T>::empty("dk", shape),
       dv = device_tensor<T>::empty("dv", shape);
  const double bms = bench::median_ms(
      [&] { attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, causal); }, 10, 3);
  std::printf("time 4x16x4096x%d %s: forward %.4f ms  %.1f TFLOP/s  backward %.4f ms  %.1f TFLOP/s\n",
              d, causal ? "causal" : "full", ms, flops / (ms * 1e9), bms, 2.5 * flops / (bms * 1e9));
  std::fflush(stdout);
}
}  // namespace

int main() {
  for (int d : {64, 128})
    for (bool c : {false, true}) {
      check(1, 2, 333, d, c);
      check(2, 1, 77, d, c);
      check(1, 1, 1, d, c);
      check(1, 1, 192, d, c);
    }
  for (int d : {64, 128})
    for (bool c : {false, true}) timing(d, c);
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
}
