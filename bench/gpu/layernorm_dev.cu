// LayerNorm forward f16 8192 x 8192 (bench/gpu/layernorm_peer.py's shape): the kernels/ kernel at
// sm_90's row (the first line) against forms of it: y as x * r + c, (x - mean) * r, the earlier
// ((x - shift) - dm) * r and the kernel's (x - shift) * r - dm * r, masked lanes loading 0 (and a
// select) or the shift, w and b loaded after the reduction, other warps and registers for other
// numbers of programs an SM, and persistent programs (ln_persist). Modes: the default, the forms;
// BV_DEV_EVEN=1, the earlier form with and without its mask; BV_DEV_FORMS=1, the masked lanes'
// value and y's FMA, and the persistent programs, in turns; BV_DEV_WB=1, the kernel without b
// and without w and b (y wrong by design: timed, not checked), beside the kernel and its form
// without a mask; BV_DEV_2D=1, the row as a 2-D block (ln_2d); BV_DEV_KEEPD=1, x - shift kept in
// f32 across the reduction (ln_keep_d). Each other variant is checked
// against the kernels/ kernel (y, mean and rstd, every element), which is checked against a
// double-precision host LayerNorm on sampled rows; then timed (median of 20 after 3 warm-up
// launches, CUDA events). A development tool: the figures that count come from `blockvec bench
// --backend gpu layernorm`.
//   nvcc -std=c++20 -arch=sm_90 -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        bench/gpu/layernorm_dev.cu -o layernorm_dev
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/layernorm.hpp"

using namespace bv;

namespace {
// The row's statistics from d = x - shift (masked lanes 0): the mean's offset from the shift, and
// 1 / sqrt(var + eps).
template <class D>
BV_DI std::pair<float, float> shifted_stats(const D& d, int n, float eps) {
  const auto s = sum2(d, d * d);
  const float dm = s.first / n;
  const float var = s.second / n - dm * dm;
  return {dm, rsqrt((var > 0.0f ? var : 0.0f) + eps)};
}
// x kept as f16 across the reduction, y formed as x * r + c (c = -mean * r) or (x - mean) * r, so
// that no f32 value of the row from before the reduction is reused after it (ptxas otherwise keeps
// x - shift, the reduction's input, alive across it: 32 f32 registers a thread at 8 warps); w and b
// loaded before the reduction (HOIST) or after it.
// EVEN: rows of exactly BLOCK columns, no mask at all (Triton's EVEN heuristics): no compare per
// element, no lane-by-lane path beside each vector access.
template <class T, int BLOCK, int W, bool HOIST, int FORM = 0, bool EVEN = false>
BV_KERNEL void ln_fma(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b, ptr<T> y,
                      ptr<float> mean, ptr<float> rstd, int sx, int sy, int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  const auto ld = [&](auto ptrs) {
    if constexpr (EVEN)
      return load(ptrs);
    else
      return load(ptrs, mask, 0.0f);
  };
  const auto st = [&](auto ptrs, const auto& v) {
    if constexpr (EVEN)
      store(ptrs, v);
    else
      store(ptrs, v, mask);
  };
  // FORM 3 and 5: masked lanes load the shift itself, so that x - shift is 0 there without a
  // select per element.
  const float shift = static_cast<float>(load(x + row * sx));
  auto xh = [&] {
    if constexpr (FORM == 3 || FORM == 5)
      return load(x + row * sx + cols, mask, shift);
    else
      return ld(x + row * sx + cols);
  }();
  auto fin = [&](auto wv, auto bv_) {
    auto d = [&] {
      if constexpr (EVEN || FORM == 3 || FORM == 5)
        return xh.to(f32) - shift;
      else
        return where(mask, xh.to(f32) - shift, 0.0f);
    }();
    const auto [dm, r] = shifted_stats(d, n, eps);
    store(mean + row, shift + dm);
    store(rstd + row, r);
    // FORM 0: x * r + c, c = -mean * r; 1: (x - mean) * r, as the reference writes it; 2 and 5:
    // ((x - shift) - dm) * r, the kernels/ kernel's earlier form; 3 and 4: (x - shift) * r -
    // dm * r, one FMA (the kernel's form now). 2 to 5 never round x - shift against the mean (on
    // rows far from zero with a small spread 0 cancels two large products and 1 carries the mean's
    // f32 rounding); 3 and 4 round dm * r, of the size of the row's values after normalising.
    const float mu = shift + dm, c = -mu * r, cd = -dm * r;
    auto xhat = [&] {
      if constexpr (FORM == 0)
        return xh.to(f32) * r + c;
      else if constexpr (FORM == 1)
        return (xh.to(f32) - mu) * r;
      else if constexpr (FORM == 3 || FORM == 4)
        return (xh.to(f32) - shift) * r + cd;
      else
        return (xh.to(f32) - shift - dm) * r;
    };
    if constexpr (HOIST)
      st(y + row * sy + cols, xhat() * wv.to(f32) + bv_.to(f32));
    else
      st(y + row * sy + cols, xhat() * ld(w + cols).to(f32) + ld(b + cols).to(f32));
  };
  if constexpr (HOIST)
    fin(ld(w + cols), ld(b + cols));
  else
    fin(0, 0);
}
// Persistent programs: grid() programs each walk rows row, row + programs, ..., holding w and b in
// registers (loaded once, not once a row from L2); PF: the next row's x loaded before this row's
// reduction (the last row's step loads its own row again, in bounds, unused). y by FORM 3 (one
// FMA) with the shift as the masked lanes' value.
template <class T, int BLOCK, int W, bool PF>
BV_KERNEL void ln_persist(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b, ptr<T> y,
                          ptr<float> mean, ptr<float> rstd, int sx, int sy, int n, float eps,
                          int rows) {
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  const auto wv = load(w + cols, mask, 0.0f);
  const auto bv_ = load(b + cols, mask, 0.0f);
  const int step = p.num_programs(0);
  int row = p.id(0);
  if (row >= rows) return;
  float shift = static_cast<float>(load(x + row * sx));
  auto xh = load(x + row * sx + cols, mask, shift);
  for (; row < rows; row += step) {
    const int next = row + step < rows ? row + step : row;
    float shift_n = 0.0f;
    decltype(xh) xn;
    if constexpr (PF) {
      shift_n = static_cast<float>(load(x + next * sx));
      xn = load(x + next * sx + cols, mask, shift_n);
    }
    const auto [dm, r] = shifted_stats(xh.to(f32) - shift, n, eps);
    store(mean + row, shift + dm);
    store(rstd + row, r);
    const float cd = -dm * r;
    store(y + row * sy + cols, ((xh.to(f32) - shift) * r + cd) * wv.to(f32) + bv_.to(f32), mask);
    if constexpr (PF) {
      shift = shift_n;
      xh = xn;
    } else {
      shift = static_cast<float>(load(x + next * sx));
      xh = load(x + next * sx + cols, mask, shift);
    }
  }
}
// Diagnosis only, y wrong by design (not checked): the kernel without b (y = xhat * w), and
// without w and b (y = xhat), to price the loads of w and b and what they feed.
template <class T, int BLOCK, int W, bool WITH_W>
BV_KERNEL void ln_without_b(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b, ptr<T> y,
                            ptr<float> mean, ptr<float> rstd, int sx, int sy, int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  const float shift = static_cast<float>(load(x + row * sx));
  auto xs = load(x + row * sx + cols, mask, shift);
  // w loaded before the reduction, as the kernel loads it.
  const auto wv = [&] {
    if constexpr (WITH_W)
      return load(w + cols, mask, 0.0f);
    else
      return 0;
  }();
  const auto [dm, r] = shifted_stats(xs.to(f32) - shift, n, eps);
  store(mean + row, shift + dm);
  store(rstd + row, r);
  const float cd = -dm * r;
  if constexpr (WITH_W)
    store(y + row * sy + cols, ((xs.to(f32) - shift) * r + cd) * wv.to(f32), mask);
  else
    store(y + row * sy + cols, (xs.to(f32) - shift) * r + cd, mask);
}
// The kernel's form over the row viewed as a 2-D block [RS, CS] (RS * CS >= the row): element
// r * CS + c. A 2-D block's runs are the layout's 8 contiguous columns (16-byte accesses for
// 16-bit elements, where a 1-D block's runs of 4 give 8-byte ones), and its loads and stores test
// the whole block once (gpu_backend/bv/gpu/memory.hpp). RS is a multiple of the rows one pass of
// the program's lanes covers (8 a wave, waves stacked along rows), so no element has copies.
template <class T, int RS, int CS, int W>
BV_KERNEL void ln_2d(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b, ptr<T> y,
                     ptr<float> mean, ptr<float> rstd, int sx, int sy, int n, float eps) {
  const int row = p.id(0);
  auto idx = arange<RS>(p).col() * CS + arange<CS>(p).row();
  auto mask = idx < n;
  const float shift = static_cast<float>(load(x + row * sx));
  auto xs = load(x + row * sx + idx, mask, shift);
  auto wv = load(w + idx, mask, 0.0f);
  auto bv_ = load(b + idx, mask, 0.0f);
  const auto [dm, r] = shifted_stats(xs.to(f32) - shift, n, eps);
  store(mean + row, shift + dm);
  store(rstd + row, r);
  const float cd = -dm * r;
  store(y + row * sy + idx, ((xs.to(f32) - shift) * r + cd) * wv.to(f32) + bv_.to(f32), mask);
}
// The kernel's form with d = x - shift kept in f32 across the reduction and reused for y (one
// conversion and one subtraction an element fewer than converting x again after it), w and b
// loaded before the reduction (WB_EARLY) or after it (d's 32 registers a thread at 8 warps then
// leave room for them).
template <class T, int BLOCK, int W, bool WB_EARLY>
BV_KERNEL void ln_keep_d(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b, ptr<T> y,
                         ptr<float> mean, ptr<float> rstd, int sx, int sy, int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  const float shift = static_cast<float>(load(x + row * sx));
  const auto d = load(x + row * sx + cols, mask, shift).to(f32) - shift;
  const auto wb = [&] { return std::pair{load(w + cols, mask, 0.0f), load(b + cols, mask, 0.0f)}; };
  // As ln_fma's fin: w and b given (loaded before the reduction), or loaded after it.
  const auto fin = [&](const auto& early) {
    const auto [dm, r] = shifted_stats(d, n, eps);
    store(mean + row, shift + dm);
    store(rstd + row, r);
    const auto [wv, bv_] = [&] {
      if constexpr (WB_EARLY)
        return early;
      else
        return wb();
    }();
    store(y + row * sy + cols, (d * r + (-dm * r)) * wv.to(f32) + bv_.to(f32), mask);
  };
  if constexpr (WB_EARLY)
    fin(wb());
  else
    fin(0);
}
constexpr int R = 8192, C = 8192;
struct bufs {
  device_tensor<half> x, w, b, y;
  device_tensor<float> mean, rstd;
};
std::vector<half> hx, hw, hb;

// PS > 0: a persistent kernel, PS programs for each of 132 SMs (an H100's or H200's).
template <auto K, int MP, int RP = 1, int PS = 0>
void run(bufs& t) {
  if constexpr (PS > 0)
    launch<K>(gpu_tuning<0, MP>{}, grid(132 * PS), t.x, t.w, t.b, t.y, t.mean, t.rstd, C, C, C,
              1e-5f, R);
  else
    launch<K>(gpu_tuning<0, MP>{}, grid(R / RP), t.x, t.w, t.b, t.y, t.mean, t.rstd, C, C, C,
              1e-5f);
}

std::vector<half> ref_y;
std::vector<float> ref_mean, ref_rstd;
int failures = 0;

// CHECKED false: a diagnosis kernel whose y is wrong by design, timed only.
template <auto K, int MP, int RP = 1, int PS = 0, bool CHECKED = true>
void variant(const char* name, bufs& t) {
  // One line a variant: its name, what its check said, its time and bandwidth.
  const auto timed_line = [&](const char* status) {
    const double ms = bench::median_ms([&] { run<K, MP, RP, PS>(t); }, 20, 3);
    std::printf("%-30s %s  %.4f ms  %.2f TB/s\n", name, status, ms,
                4.0 * R * C / (ms * 1e-3) / 1e12);
  };
  if constexpr (!CHECKED) {
    timed_line("not checked (y wrong by design)");
    return;
  }
  t.y.fill_bytes(0xff);
  t.mean.fill_bytes(0xff);
  t.rstd.fill_bytes(0xff);
  run<K, MP, RP, PS>(t);
  gpu::synchronize();
  std::vector<half> y(size_t(R) * C);
  std::vector<float> m(R), r(R);
  t.y.copy_to_host(y.data());
  t.mean.copy_to_host(m.data());
  t.rstd.copy_to_host(r.data());
  double worst = 0;
  if (ref_y.empty()) {
    // The reference kernel against double precision on sampled rows.
    for (int row = 0; row < R; row += 997) {
      double s = 0, s2 = 0;
      for (int j = 0; j < C; ++j) s += float(hx[size_t(row) * C + j]);
      const double mu = s / C;
      for (int j = 0; j < C; ++j) {
        const double dd = float(hx[size_t(row) * C + j]) - mu;
        s2 += dd * dd;
      }
      const double rs = 1.0 / std::sqrt(s2 / C + 1e-5);
      worst = std::max(worst, std::abs(m[row] - mu) + std::abs(r[row] - rs) / rs);
      for (int j = 0; j < C; ++j) {
        const double e = (float(hx[size_t(row) * C + j]) - mu) * rs * float(hw[j]) + float(hb[j]);
        worst = std::max(worst, std::abs(float(y[size_t(row) * C + j]) - e) / (std::abs(e) + 1));
      }
    }
    ref_y = y;
    ref_mean = m;
    ref_rstd = r;
  } else {
    for (size_t i = 0; i < y.size(); ++i) {
      const double a = float(y[i]), e = float(ref_y[i]);
      worst = std::max(worst, std::isfinite(a) ? std::abs(a - e) / (std::abs(e) + 1) : 1e30);
    }
    for (int i = 0; i < R; ++i)
      worst = std::max(
          worst, double(std::abs(m[i] - ref_mean[i]) + std::abs(r[i] - ref_rstd[i]) / ref_rstd[i]));
  }
  const bool ok = worst < 1e-2;
  failures += !ok;
  char status[64];
  std::snprintf(status, sizeof status, "check %s (worst %.1e)", ok ? "ok" : "FAILED", worst);
  timed_line(status);
}
// A mode's last line and exit status: whether every checked variant matched.
int verdict() {
  std::printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks ok");
  return failures ? 1 : 0;
}
}  // namespace

int main() {
  try {
    if (gpu::device_count() == 0) {
      std::printf("SKIPPED: no GPU device\n");
      return 77;
    }
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    hx.resize(size_t(R) * C);
    for (auto& v : hx) v = half(u(rng));
    hw.resize(C);
    hb.resize(C);
    for (auto& v : hw) v = half(u(rng));
    for (auto& v : hb) v = half(u(rng));
    bufs t{device_tensor<half>::from_host("x", {R, C}, hx.data()),
           device_tensor<half>::from_host("w", {C}, hw.data()),
           device_tensor<half>::from_host("b", {C}, hb.data()),
           device_tensor<half>::empty("y", {R, C}),
           device_tensor<float>::empty("mean", {R}),
           device_tensor<float>::empty("rstd", {R})};
    using namespace bv::kernels;
    if (std::getenv("BV_DEV_WB")) {
      // What w and b cost: the kernel beside itself without b, and without w and b, in turns.
      for (int rep = 0; rep < 3; ++rep) {
        variant<layernorm_fwd_kernel<half, C, 8>, 4>("kernels/ W8 P4 (launcher)", t);
        variant<ln_without_b<half, C, 8, false>, 4, 1, 0, false>("no w, no b W8 P4", t);
        variant<ln_without_b<half, C, 8, true>, 4, 1, 0, false>("w, no b W8 P4", t);
        variant<ln_fma<half, C, 8, true, 3, true>, 4>("kernel's form, no mask W8 P4", t);
      }
      return verdict();
    }
    if (std::getenv("BV_DEV_KEEPD")) {
      // d kept in f32 across the reduction, in turns with the kernel.
      for (int rep = 0; rep < 3; ++rep) {
        variant<layernorm_fwd_kernel<half, C, 8>, 4>("kernels/ W8 P4 (launcher)", t);
        variant<ln_keep_d<half, C, 8, false>, 4>("keep d, late w,b W8 P4", t);
        variant<ln_keep_d<half, C, 8, true>, 4>("keep d, early w,b W8 P4", t);
        variant<ln_keep_d<half, C, 8, false>, 3>("keep d, late w,b W8 P3", t);
        variant<ln_keep_d<half, C, 8, true>, 3>("keep d, early w,b W8 P3", t);
        variant<ln_keep_d<half, C, 16, false>, 2>("keep d, late w,b W16 P2", t);
        variant<ln_keep_d<half, C, 16, true>, 2>("keep d, early w,b W16 P2", t);
      }
      return verdict();
    }
    if (std::getenv("BV_DEV_2D")) {
      // The row as a 2-D block, in turns with the kernel.
      for (int rep = 0; rep < 3; ++rep) {
        variant<layernorm_fwd_kernel<half, C, 8>, 4>("kernels/ W8 P4 (launcher)", t);
        variant<ln_2d<half, 64, 128, 8>, 4>("2-D 64x128 W8 P4", t);
        variant<ln_2d<half, 64, 128, 8>, 3>("2-D 64x128 W8 P3", t);
        variant<ln_2d<half, 128, 64, 16>, 2>("2-D 128x64 W16 P2", t);
        variant<ln_2d<half, 128, 64, 16>, 3>("2-D 128x64 W16 P3", t);
        variant<ln_2d<half, 32, 256, 4>, 8>("2-D 32x256 W4 P8", t);
      }
      return verdict();
    }
    if (std::getenv("BV_DEV_FORMS")) {
      // One FMA for y, and the shift as the masked lanes' value, in turns with the kernel; then
      // persistent programs.
      for (int rep = 0; rep < 3; ++rep) {
        variant<layernorm_fwd_kernel<half, C, 8>, 4>("kernels/ W8 P4 (launcher)", t);
        variant<ln_fma<half, C, 8, true, 2>, 4>("(x - shift) - dm W8 P4 (earlier)", t);
        variant<ln_fma<half, C, 8, true, 3>, 4>("other shift, fma W8 P4", t);
        variant<ln_fma<half, C, 8, true, 4>, 4>("where, fma W8 P4", t);
        variant<ln_fma<half, C, 8, true, 5>, 4>("other shift, earlier y W8 P4", t);
        variant<ln_fma<half, C, 8, true, 3>, 5>("other shift, fma W8 P5", t);
        variant<ln_fma<half, C, 16, true, 3>, 3>("other shift, fma W16 P3", t);
        variant<ln_persist<half, C, 8, true>, 2, 1, 2>("persistent, next row W8 P2", t);
        variant<ln_persist<half, C, 8, true>, 3, 1, 3>("persistent, next row W8 P3", t);
        variant<ln_persist<half, C, 8, false>, 4, 1, 4>("persistent W8 P4", t);
        variant<ln_persist<half, C, 16, true>, 1, 1, 1>("persistent, next row W16 P1", t);
        variant<ln_persist<half, C, 16, true>, 2, 1, 2>("persistent, next row W16 P2", t);
        variant<ln_persist<half, C, 4, true>, 4, 1, 4>("persistent, next row W4 P4", t);
      }
      return verdict();
    }
    if (std::getenv("BV_DEV_EVEN")) {
      // The kernel's earlier form with and without its mask, in turns.
      for (int rep = 0; rep < 3; ++rep) {
        variant<layernorm_fwd_kernel<half, C, 8>, 4>("kernels/ W8 P4 (launcher)", t);
        variant<ln_fma<half, C, 8, true, 2>, 4>("(x - shift) - dm W8 P4 (earlier)", t);
        variant<ln_fma<half, C, 8, true, 2, true>, 4>("earlier, no mask W8 P4", t);
        variant<ln_fma<half, C, 8, true, 2, true>, 5>("earlier, no mask W8 P5", t);
        variant<ln_fma<half, C, 16, true, 2, true>, 3>("earlier, no mask W16 P3", t);
      }
      return verdict();
    }
    for (int rep = 0; rep < 2; ++rep) {
      variant<layernorm_fwd_kernel<half, C, 8>, 4>("kernels/ W8 P4 (launcher)", t);
      variant<ln_fma<half, C, 8, true>, 4>("fma W8 P4", t);
      variant<ln_fma<half, C, 8, true>, 5>("fma W8 P5", t);
      variant<ln_fma<half, C, 8, false>, 4>("fma late w,b W8 P4", t);
      variant<ln_fma<half, C, 8, false>, 5>("fma late w,b W8 P5", t);
      variant<ln_fma<half, C, 8, false>, 6>("fma late w,b W8 P6", t);
      variant<ln_fma<half, C, 16, true>, 3>("fma W16 P3", t);
      variant<ln_fma<half, C, 16, false>, 3>("fma late w,b W16 P3", t);
      variant<ln_fma<half, C, 16, false>, 4>("fma late w,b W16 P4", t);
      variant<ln_fma<half, C, 4, false>, 8>("fma late w,b W4 P8", t);
      variant<ln_fma<half, C, 8, true, 2>, 4>("(x - shift) - dm W8 P4 (earlier)", t);
      variant<ln_fma<half, C, 8, false, 1>, 4>("x - mean late w,b W8 P4", t);
      variant<ln_fma<half, C, 8, false, 1>, 5>("x - mean late w,b W8 P5", t);
      variant<ln_fma<half, C, 16, false, 1>, 3>("x - mean late w,b W16 P3", t);
    }
    return verdict();
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
