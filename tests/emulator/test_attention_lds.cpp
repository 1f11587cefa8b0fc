// The attention forward's LDS model (attention_fwd_lds_bytes in bv/kernels/attention.hpp, which
// the configuration tables' static check uses) against what the emulator measures: for every row
// declared for gfx942 and gfx90a, 16-bit and f32, head dimension 64 and 128, the emulated launch
// takes exactly the modelled bytes, stays within 64 KiB with no diagnostic, and matches a double
// reference at a ragged sequence length. Two undeclared tiles that overflow (at D = 128, f32 on
// 128x256 and 16-bit on 256x256, 8 waves: their k or v images larger than any slice of q's) are
// modelled as exactly and reported by the emulator.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "bv/bv.hpp"
#include "bv/emu/lib/attention.hpp"

namespace {
namespace k = bv::kernels;
using bv::tensor;

template <class T>
std::vector<double> as_double(const tensor<T>& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<float>(t.data()[i]));
  return v;
}

// o = softmax(q k^T / sqrt(d) [+ causal]) v over one head, in double.
std::vector<double> reference(const std::vector<double>& q, const std::vector<double>& kk,
                              const std::vector<double>& v, int s, int d, bool causal) {
  std::vector<double> o(static_cast<size_t>(s) * d, 0.0), p(s);
  for (int i = 0; i < s; ++i) {
    const int last = causal ? i : s - 1;
    double m = -INFINITY, l = 0;
    for (int j = 0; j <= last; ++j) {
      double x = 0;
      for (int c = 0; c < d; ++c) x += q[i * d + c] * kk[j * d + c];
      p[j] = x / std::sqrt(static_cast<double>(d));
      m = std::max(m, p[j]);
    }
    for (int j = 0; j <= last; ++j) l += p[j] = std::exp(p[j] - m);
    for (int j = 0; j <= last; ++j)
      for (int c = 0; c < d; ++c) o[i * d + c] += p[j] / l * v[j * d + c];
  }
  return o;
}

template <class T, int D, bool Causal>
void declared_row(bv::target t, int s) {
  CAPTURE(bv::target_name(t));
  CAPTURE(sizeof(T));
  CAPTURE(D);
  CAPTURE(s);
  bv::emu::set_target(t);
  const bv::launch_config c =
      bv::config_for<k::attention_fwd_configs<sizeof(T)>>(t, D, "attention_fwd");
  auto q = tensor<T>::randn("q", {1, 1, s, D}, 1), kk = tensor<T>::randn("k", {1, 1, s, D}, 2),
       v = tensor<T>::randn("v", {1, 1, s, D}, 3);
  auto o = tensor<T>::empty("o", {1, 1, s, D});
  auto lse = tensor<float>::empty("lse", {1, s});
  const auto r = bv::emu::lib::attention_fwd<D, Causal>(q, kk, v, o, lse);
  CHECK(r.errors == 0);
  CHECK(r.diagnostics.empty());
  const auto model = k::attention_fwd_lds_bytes(sizeof(T), D, c.bm, c.bn, c.waves, c.variant);
  CHECK(static_cast<int64_t>(bv::emu::last_lds_bytes()) == model);
  CHECK(model <= bv::lds_bytes_of(t));
  const auto want = reference(as_double(q), as_double(kk), as_double(v), s, D, Causal);
  const auto got = as_double(o);
  const double tol = sizeof(T) == 4 ? 1e-5 : 2e-2;
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
  CHECK(worst < tol);
}

template <class T, int D, int BM, int BN, int W>
void overflowing_tile(int64_t bytes) {
  CAPTURE(D);
  CAPTURE(BM);
  CAPTURE(BN);
  bv::emu::set_target(bv::target::gfx942);
  const int s = 37;
  auto q = tensor<T>::randn("q", {1, 1, s, D}, 4);
  auto o = tensor<T>::empty("o", {1, 1, s, D});
  auto lse = tensor<float>::empty("lse", {1, s});
  const auto r = bv::launch<k::attention_fwd_kernel<T, D, BM, BN, false, W>>(
      bv::grid(bv::cdiv(s, BM), 1), q, q, q, o, lse, s, 0.125f);
  REQUIRE(!r.diagnostics.empty());
  for (const auto& d : r.diagnostics) CHECK(d.kind == "lds-capacity");
  CHECK(static_cast<int64_t>(bv::emu::last_lds_bytes()) == bytes);
  CHECK(k::attention_fwd_lds_bytes(sizeof(T), D, BM, BN, W) == bytes);
}
}  // namespace

TEST_CASE("emulator: attention forward, every declared AMD row fits LDS as modelled") {
  setenv("BV_EMU_QUIET", "1", 0);
  for (bv::target t : {bv::target::gfx942, bv::target::gfx90a})
    for (int s : {37, 70}) {
      declared_row<bv::half, 64, false>(t, s);
      declared_row<bv::half, 128, true>(t, s);
      declared_row<bv::bfloat16, 128, false>(t, s);
      declared_row<float, 64, true>(t, s);
      declared_row<float, 128, false>(t, s);
    }
  bv::emu::set_target(bv::target::gfx942);
}

TEST_CASE("emulator: attention forward, f32 tiles too large for LDS overflow as modelled") {
  setenv("BV_EMU_QUIET", "1", 0);
  overflowing_tile<float, 128, 128, 256, 8>(68608);
  overflowing_tile<bv::half, 128, 256, 256, 8>(89088);
}
