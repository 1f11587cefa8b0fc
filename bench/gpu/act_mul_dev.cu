// The gated activations (kernels/bv/kernels/act_mul.hpp) f16 at 8192 x 8192 (the device bench's
// silu_mul and silu_mul_bwd shape: x [8192, 16384]) on other launch rows than the table's: column
// blocks of 1024 to 8192 on 4, 8 or 16 warps. The launcher's y (forward) and dx (backward) are
// checked first against the double references (kernels/bv/kernels/ref/act_mul.hpp's SiLU and its
// derivative) on sampled rows; each row's output
// must then equal the launcher's bit for bit (the same elementwise arithmetic). Then each is
// timed: median of 50 single launches between events and the mean of 20 back to back
// (bench_common.hpp), with the bandwidth of the back-to-back time. A development tool: the
// figures that count come from `blockvec bench --backend gpu silu_mul silu_mul_bwd`.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        -I/usr/include/eigen3 bench/gpu/act_mul_dev.cu -o act_mul_dev
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/ref/act_mul.hpp"

using namespace bv;
using namespace bv::kernels;
namespace ref = bv::kernels::ref;

namespace {
constexpr int R = 8192, N = 8192;
int failures = 0;

double silu(double g) { return ref::detail::act(false, g); }
double silu_grad(double g) { return ref::detail::act_grad(false, g); }

// The launcher's outputs against double precision on 64 sampled rows (relative error per
// element, in units of the f16 result's rounding).
void check_reference(const std::vector<half>& x, const std::vector<half>& dy,
                     const std::vector<half>& y, const std::vector<half>& dx) {
  std::mt19937 rng(3);
  double worst = 0;
  for (int t = 0; t < 64; ++t) {
    const int r = rng() % R;
    for (int c = 0; c < N; ++c) {
      const double g = float(x[size_t(r) * 2 * N + c]), u = float(x[size_t(r) * 2 * N + N + c]);
      const double d = float(dy[size_t(r) * N + c]);
      const double want[3] = {silu(g) * u, d * u * silu_grad(g), d * silu(g)};
      const double got[3] = {float(y[size_t(r) * N + c]), float(dx[size_t(r) * 2 * N + c]),
                             float(dx[size_t(r) * 2 * N + N + c])};
      for (int k = 0; k < 3; ++k) {
        const double e = std::fabs(got[k] - want[k]) / (std::fabs(want[k]) * 1e-3 + 1e-3);
        worst = std::isfinite(e) ? std::max(worst, e) : 1e30;
      }
    }
  }
  const bool ok = worst <= 2.0;
  failures += !ok;
  std::printf("launcher vs double (64 rows): worst error %.3f of f16's rounding: %s\n", worst,
              ok ? "ok" : "FAILED");
}

struct bufs {
  device_tensor<half> x, dy, y, dx;
};
std::vector<half> ref_y, ref_dx;

template <int BLOCK, int W>
void fwd(bufs& t) {
  launch<act_mul_fwd_kernel<half, gate_act::silu, BLOCK, W>>(grid(R, cdiv(N, BLOCK)), t.x, t.y,
                                                             2 * N, N, N);
}
template <int BLOCK, int W>
void bwd(bufs& t) {
  launch<act_mul_bwd_kernel<half, gate_act::silu, BLOCK, W>>(grid(R, cdiv(N, BLOCK)), t.dy, t.x,
                                                             t.dx, N, 2 * N, 2 * N, N);
}

bool same(const std::vector<half>& a, const std::vector<half>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(half)) == 0;
}

template <int BLOCK, int W>
void variant(bufs& t) {
  // Outputs poisoned (NaN bytes) first, so that an element a row does not write fails.
  gpu::check(hipMemset(t.y.data(), 0xff, size_t(R) * N * sizeof(half)), "poison y");
  gpu::check(hipMemset(t.dx.data(), 0xff, size_t(R) * 2 * N * sizeof(half)), "poison dx");
  fwd<BLOCK, W>(t);
  bwd<BLOCK, W>(t);
  const bool ok = same(t.y.to_host(), ref_y) && same(t.dx.to_host(), ref_dx);
  failures += !ok;
  const auto f = bench::time_it([&] { fwd<BLOCK, W>(t); });
  const auto b = bench::time_it([&] { bwd<BLOCK, W>(t); });
  const double fwd_bytes = 2.0 * 3 * R * N, bwd_bytes = 2.0 * 5 * R * N;
  std::printf(
      "block %5d, %2d warps  %s  fwd %.4f ms single, %.4f back to back (%.2f TB/s)  bwd %.4f ms "
      "single, %.4f back to back (%.2f TB/s)\n",
      BLOCK, W, ok ? "same" : "DIFFERS", f.median, f.batch, fwd_bytes / (f.batch * 1e-3) / 1e12,
      b.median, b.batch, bwd_bytes / (b.batch * 1e-3) / 1e12);
}
}  // namespace

int main() {
  try {
    if (gpu::device_count() == 0) {
      std::printf("SKIPPED: no GPU device\n");
      return 77;
    }
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<float> u(-3.f, 3.f);
    std::vector<half> hx(size_t(R) * 2 * N), hdy(size_t(R) * N);
    for (auto& v : hx) v = half(u(rng));
    for (auto& v : hdy) v = half(u(rng));
    bufs t{device_tensor<half>::from_host("x", {R, 2 * N}, hx.data()),
           device_tensor<half>::from_host("dy", {R, N}, hdy.data()),
           device_tensor<half>::empty("y", {R, N}), device_tensor<half>::empty("dx", {R, 2 * N})};
    act_mul_fwd<gate_act::silu>(t.x, t.y);
    act_mul_bwd<gate_act::silu>(t.dy, t.x, t.dx);
    ref_y = t.y.to_host();
    ref_dx = t.dx.to_host();
    check_reference(hx, hdy, ref_y, ref_dx);
    for (int round = 0; round < 2; ++round) {
      std::printf("round %d\n", round + 1);
      variant<1024, 4>(t);  // the table's row
      variant<2048, 4>(t);
      variant<2048, 8>(t);
      variant<4096, 4>(t);
      variant<4096, 8>(t);
      variant<4096, 16>(t);
      variant<8192, 8>(t);
      variant<8192, 16>(t);
      variant<1024, 4>(t);
    }
    std::printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
