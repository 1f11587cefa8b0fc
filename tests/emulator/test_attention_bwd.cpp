// The attention backward in every configuration declared for AMD (attention_bwd_configs: 16-bit
// and f32, head dimension 64 and 128, causal and not) on the emulator, against a double
// reference at ragged sequence lengths: the library's emulator tests run it in one configuration
// (f16, D = 64), and nothing else runs the other rows through the AMD lowering. The reference is
// its own, not bv::kernels::ref's: in an emulator test bv::tensor is the emulator's tensor, and
// ref's templates instantiated here would share their names with library_cpu.cpp's instantiations
// for the interpreter's tensor (one definition rule: the test then crashes in another test's
// reference).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bv/bv.hpp"
#include "bv/emu/lib/attention.hpp"

namespace {
using bv::tensor;

template <class T>
std::vector<double> as_double(const tensor<T>& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<float>(t.data()[i]));
  return v;
}

struct grads {
  std::vector<double> dq, dk, dv;
};

// dq, dk, dv of o = softmax(q k^T / sqrt(d) [+ causal]) v over one head, in double.
grads reference(const std::vector<double>& q, const std::vector<double>& k,
                const std::vector<double>& v, const std::vector<double>& dout, int s, int d,
                bool causal) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const size_t n = static_cast<size_t>(s) * d;
  std::vector<double> p(static_cast<size_t>(s) * s, 0.0), dp(p.size(), 0.0);
  for (int i = 0; i < s; ++i) {
    const int last = causal ? i : s - 1;
    double m = -INFINITY, l = 0;
    for (int j = 0; j <= last; ++j) {
      double x = 0;
      for (int c = 0; c < d; ++c) x += q[i * d + c] * k[j * d + c];
      p[i * s + j] = x * scale;
      m = std::max(m, p[i * s + j]);
    }
    for (int j = 0; j <= last; ++j) l += p[i * s + j] = std::exp(p[i * s + j] - m);
    for (int j = 0; j <= last; ++j) p[i * s + j] /= l;
  }
  grads g{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  for (int i = 0; i < s; ++i) {
    // dS = P * (dP - rowsum(dP * P)), dP = dO v^T.
    double delta = 0;
    for (int j = 0; j < s; ++j) {
      double x = 0;
      for (int c = 0; c < d; ++c) x += dout[i * d + c] * v[j * d + c];
      dp[i * s + j] = x;
      delta += x * p[i * s + j];
    }
    for (int j = 0; j < s; ++j) {
      const double pij = p[i * s + j], ds = pij * (dp[i * s + j] - delta) * scale;
      for (int c = 0; c < d; ++c) {
        g.dv[j * d + c] += pij * dout[i * d + c];
        g.dq[i * d + c] += ds * k[j * d + c];
        g.dk[j * d + c] += ds * q[i * d + c];
      }
    }
  }
  return g;
}

// The largest difference relative to the largest reference value.
double worst(const std::vector<double>& got, const std::vector<double>& want) {
  double err = 0, top = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::abs(got[i] - want[i]));
    top = std::max(top, std::abs(want[i]));
  }
  return err / std::max(top, 1e-30);
}

template <class T, int D, bool Causal>
void declared_row(bv::target t, int s) {
  CAPTURE(bv::target_name(t));
  CAPTURE(sizeof(T));
  CAPTURE(D);
  CAPTURE(Causal);
  CAPTURE(s);
  bv::emu::set_target(t);
  auto q = tensor<T>::randn("q", {1, 1, s, D}, 11), k = tensor<T>::randn("k", {1, 1, s, D}, 12),
       v = tensor<T>::randn("v", {1, 1, s, D}, 13), dout = tensor<T>::randn("do", {1, 1, s, D}, 14);
  auto o = tensor<T>::empty("o", {1, 1, s, D});
  auto lse = tensor<float>::empty("lse", {1, s});
  auto dq = tensor<T>::empty("dq", {1, 1, s, D}), dk = tensor<T>::empty("dk", {1, 1, s, D}),
       dv = tensor<T>::empty("dv", {1, 1, s, D});
  const auto f = bv::emu::lib::attention_fwd<D, Causal>(q, k, v, o, lse);
  CHECK(f.errors == 0);
  CHECK(f.diagnostics.empty());
  for (const auto& r : bv::emu::lib::attention_bwd<D, Causal>(q, k, v, o, lse, dout, dq, dk, dv)) {
    CHECK(r.errors == 0);
    CHECK(r.diagnostics.empty());
  }
  const auto want =
      reference(as_double(q), as_double(k), as_double(v), as_double(dout), s, D, Causal);
  const double tol = sizeof(T) == 4 ? 1e-5 : 2e-2;
  CHECK(worst(as_double(dq), want.dq) < tol);
  CHECK(worst(as_double(dk), want.dk) < tol);
  CHECK(worst(as_double(dv), want.dv) < tol);
}
}  // namespace

TEST_CASE("emulator: attention backward, every declared AMD row against a double reference") {
  setenv("BV_EMU_QUIET", "1", 0);
  // gfx942 and gfx90a share the lowering and every backward row but dK/dV at D = 128 (gfx942:
  // halves of D in 16-bit, halves in two passes in f32, registers for 2 programs a CU); gfx942
  // runs every row, gfx90a those.
  for (int s : {37, 70}) {
    const bv::target t = bv::target::gfx942;
    declared_row<bv::half, 64, true>(t, s);
    declared_row<bv::bfloat16, 64, false>(t, s);
    declared_row<bv::half, 128, false>(t, s);
    declared_row<bv::bfloat16, 128, true>(t, s);
    declared_row<float, 64, false>(t, s);
    declared_row<float, 128, true>(t, s);
    declared_row<float, 128, false>(t, s);
    declared_row<float, 128, true>(bv::target::gfx90a, s);
    declared_row<bv::half, 128, true>(bv::target::gfx90a, s);
    declared_row<bv::bfloat16, 128, false>(bv::target::gfx90a, s);
  }
}
