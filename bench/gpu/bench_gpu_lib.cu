// GPU bench of the library kernels on the shapes of the Triton peers (bench/gpu/run_device.sh
// runs them back to back): RMSNorm f16 8192x8192 (bench/gpu/triton_peer.py), LayerNorm
// forward f16 8192x8192 (bench/gpu/layernorm_peer.py), attention forward 4x16x4096x64 f16
// (triton_peer.py's attn_fwd, non-causal; causal for the record). Median of 20 timed runs after
// warm-up, device events around each launch; each result spot-checked against a double-precision
// computation on the host first. Prints a table and one BENCH_LIB_JSON line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "bench_common.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/rmsnorm.hpp"

namespace {
using namespace bv;

using bench::median_ms;

template <class T>
std::vector<T> random_host(int64_t n, uint64_t seed) {
  std::vector<T> h(static_cast<size_t>(n));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  for (auto& x : h) x = T(d(rng));
  return h;
}

struct check_failed {};
void expect(bool ok, const char* what, double err) {
  std::printf("%s spot-check rel err %.2e\n", what, err);
  if (!ok) throw check_failed{};
}
}  // namespace

int main() {
  try {
    if (gpu::device_count() == 0) {
      std::printf("SKIPPED: no GPU device\n");
      return 77;
    }
    hipDeviceProp_t prop;
    gpu::check(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
    std::printf("device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount);

    // RMSNorm and LayerNorm, f16 8192x8192.
    const int R = 8192, C = 8192;
    const auto hx = random_host<half>(int64_t(R) * C, 1), hw = random_host<half>(C, 2),
               hb = random_host<half>(C, 3);
    auto x = device_tensor<half>::from_host("x", {R, C}, hx.data());
    auto w = device_tensor<half>::from_host("w", {C}, hw.data());
    auto b = device_tensor<half>::from_host("b", {C}, hb.data());
    auto y = device_tensor<half>::empty("y", {R, C});
    auto rstd = device_tensor<float>::empty("rstd", {R}),
         mean = device_tensor<float>::empty("mean", {R});
    std::vector<half> hy(size_t(R) * C);
    auto check_rows = [&](const char* what, bool layer) {
      y.copy_to_host(hy.data());
      double num = 0, den = 0;
      for (int r : {0, 1, R / 2, R - 1}) {
        double s1 = 0, s2 = 0;
        for (int j = 0; j < C; ++j) s1 += float(hx[size_t(r) * C + j]);
        const double mu = layer ? s1 / C : 0.0;
        for (int j = 0; j < C; ++j) {
          const double d = float(hx[size_t(r) * C + j]) - mu;
          s2 += d * d;
        }
        const double rs = 1.0 / std::sqrt(s2 / C + (layer ? 1e-5 : 1e-6));
        for (int j = 0; j < C; ++j) {
          const double ref = (float(hx[size_t(r) * C + j]) - mu) * rs * float(hw[j]) +
                             (layer ? float(hb[j]) : 0.0);
          const double e = float(hy[size_t(r) * C + j]) - ref;
          num += e * e;
          den += ref * ref;
        }
      }
      expect(std::sqrt(num / den) < 1e-2, what, std::sqrt(num / den));
    };
    y.fill_bytes(0xff);
    bv::kernels::rmsnorm_fwd(x, w, y, rstd, 1e-6f);
    gpu::synchronize();
    check_rows("rmsnorm f16", false);
    const double t_rms = median_ms([&] { bv::kernels::rmsnorm_fwd(x, w, y, rstd, 1e-6f); });
    y.fill_bytes(0xff);
    bv::kernels::layernorm_fwd(x, w, b, y, mean, rstd, 1e-5f);
    gpu::synchronize();
    check_rows("layernorm f16", true);
    const double t_ln =
        median_ms([&] { bv::kernels::layernorm_fwd(x, w, b, y, mean, rstd, 1e-5f); });
    // bytes: x read, y written, w (and b) once
    const double norm_bytes = 2.0 * R * C * 2;
    const double rms_tbps = norm_bytes / (t_rms * 1e-3) / 1e12,
                 ln_tbps = norm_bytes / (t_ln * 1e-3) / 1e12;

    // Attention forward 4x16x4096x64 f16.
    const int B = 4, H = 16, S = 4096, D = 64;
    const int64_t an = int64_t(B) * H * S * D;
    const auto hq = random_host<half>(an, 4), hk = random_host<half>(an, 5),
               hv = random_host<half>(an, 6);
    auto q = device_tensor<half>::from_host("q", {B, H, S, D}, hq.data());
    auto k = device_tensor<half>::from_host("k", {B, H, S, D}, hk.data());
    auto v = device_tensor<half>::from_host("v", {B, H, S, D}, hv.data());
    auto o = device_tensor<half>::empty("o", {B, H, S, D});
    auto lse = device_tensor<float>::empty("lse", {B * H, S});
    std::vector<half> ho(static_cast<size_t>(an));
    auto check_attn = [&](const char* what, bool causal) {
      o.copy_to_host(ho.data());
      double num = 0, den = 0;
      std::mt19937 rng(11);
      for (int t = 0; t < 24; ++t) {
        const int bh = rng() % (B * H), i = rng() % S;
        const size_t base = size_t(bh) * S * D;
        const int end = causal ? i + 1 : S;
        std::vector<double> sc(end);
        double m = -INFINITY;
        for (int j = 0; j < end; ++j) {
          double d = 0;
          for (int c = 0; c < D; ++c)
            d += double(float(hq[base + size_t(i) * D + c])) * float(hk[base + size_t(j) * D + c]);
          sc[j] = d / 8.0;
          m = std::max(m, sc[j]);
        }
        double l = 0;
        for (auto& e : sc) l += (e = std::exp(e - m));
        for (int c = 0; c < D; ++c) {
          double r = 0;
          for (int j = 0; j < end; ++j) r += sc[j] * float(hv[base + size_t(j) * D + c]);
          r /= l;
          const double e = float(ho[base + size_t(i) * D + c]) - r;
          num += e * e;
          den += r * r;
        }
      }
      expect(std::sqrt(num / den) < 1e-2, what, std::sqrt(num / den));
    };
    double t_attn[2];
    for (bool causal : {false, true}) {
      o.fill_bytes(0xff);
      bv::kernels::attention_fwd(q, k, v, o, lse, causal);
      gpu::synchronize();
      check_attn(causal ? "attention causal" : "attention", causal);
      t_attn[causal] = median_ms([&] { bv::kernels::attention_fwd(q, k, v, o, lse, causal); });
    }
    const double flops = 4.0 * B * H * double(S) * S * D;
    const double attn_tflops = flops / (t_attn[0] * 1e-3) / 1e12,
                 attn_c_tflops = flops / 2 / (t_attn[1] * 1e-3) / 1e12;

    std::printf("\n| kernel | shape | ms (median) | figure |\n|---|---|---|---|\n");
    std::printf("| rmsnorm fwd f16 | %dx%d | %.4f | %.2f TB/s |\n", R, C, t_rms, rms_tbps);
    std::printf("| layernorm fwd f16 | %dx%d | %.4f | %.2f TB/s |\n", R, C, t_ln, ln_tbps);
    std::printf("| attention fwd f16 | %dx%dx%dx%d | %.4f | %.1f TFLOP/s |\n", B, H, S, D,
                t_attn[0], attn_tflops);
    std::printf("| attention fwd f16 causal | %dx%dx%dx%d | %.4f | %.1f TFLOP/s |\n", B, H, S, D,
                t_attn[1], attn_c_tflops);
    std::printf(
        "BENCH_LIB_JSON {\"device\":\"%s\",\"rmsnorm_s\":%.6e,\"layernorm_s\":%.6e,"
        "\"attn_s\":%.6e,\"attn_causal_s\":%.6e}\n",
        prop.name, t_rms * 1e-3, t_ln * 1e-3, t_attn[0] * 1e-3, t_attn[1] * 1e-3);
    // Other warps-per-program / tile choices of the same kernel sources, for the record (the
    // launchers use 16 warps for 8192-wide rows, 128x64 tiles with 8 warps for attention).
    // BV_ONLY=text: run only the variants whose name contains text (for a profiler).
    const char* only = std::getenv("BV_ONLY");
    auto variant = [&](const char* name, auto run) {
      if (only && !std::strstr(name, only)) return;
      std::printf("variant %s: %.4f ms\n", name, median_ms(run));
    };
    variant("rmsnorm 8192 W4", [&] {
      launch<bv::kernels::rmsnorm_fwd_kernel<half, 8192, 4>>(grid(R), x, w, y, rstd, C, C, C,
                                                             1e-6f);
    });
    variant("rmsnorm 8192 W8", [&] {
      launch<bv::kernels::rmsnorm_fwd_kernel<half, 8192, 8>>(grid(R), x, w, y, rstd, C, C, C,
                                                             1e-6f);
    });
    variant("layernorm 8192 W4", [&] {
      launch<bv::kernels::layernorm_fwd_kernel<half, 8192, 4>>(grid(R), x, w, b, y, mean, rstd, C,
                                                               C, C, 1e-5f);
    });
    variant("layernorm 8192 W8", [&] {
      launch<bv::kernels::layernorm_fwd_kernel<half, 8192, 8>>(grid(R), x, w, b, y, mean, rstd, C,
                                                               C, C, 1e-5f);
    });
    // Attention tile choices: each checked against the double reference, then timed.
    auto attn_variant = [&](const char* name, auto run) {
      if (only && !std::strstr(name, only)) return;
      o.fill_bytes(0xff);
      run();
      gpu::synchronize();
      check_attn(name, false);
      variant(name, run);
    };
#define BV_ATTN_VARIANT(BM, BN, W)                                                               \
  attn_variant("attention " #BM "x" #BN " W" #W, [&] {                                          \
    launch<bv::kernels::attention_fwd_kernel<half, 64, BM, BN, false, W>>(                      \
        grid(cdiv(S, BM), B * H), q, k, v, o, lse, S, 0.125f);                                  \
  })
    BV_ATTN_VARIANT(64, 64, 4);
    BV_ATTN_VARIANT(128, 64, 4);
    BV_ATTN_VARIANT(128, 64, 8);
    BV_ATTN_VARIANT(128, 128, 4);
    BV_ATTN_VARIANT(128, 128, 8);
    BV_ATTN_VARIANT(256, 64, 8);
#undef BV_ATTN_VARIANT
    // Registers left for more programs per SM.
#define BV_ATTN_OCC_VARIANT(KERNEL, NAME, BM, W, P)                                           \
  attn_variant(NAME, [&] {                                                                    \
    launch<KERNEL>(gpu_tuning<0, P>{}, grid(cdiv(S, BM), B * H), q, k, v, o, lse, S, 0.125f); \
  })
    BV_ATTN_OCC_VARIANT((bv::kernels::attention_fwd_kernel<half, 64, 128, 64, false, 4>),
                        "attention 128x64 W4 3/SM", 128, 4, 3);
    BV_ATTN_OCC_VARIANT((bv::kernels::attention_fwd_kernel<half, 64, 64, 64, false, 4>),
                        "attention 64x64 W4 4/SM", 64, 4, 4);
    BV_ATTN_OCC_VARIANT((bv::kernels::attention_fwd_kernel<half, 64, 128, 64, false, 8>),
                        "attention 128x64 W8 2/SM", 128, 8, 2);
    BV_ATTN_OCC_VARIANT((bv::kernels::attention_fwd_kernel<half, 64, 128, 128, false, 8>),
                        "attention 128x128 W8 2/SM", 128, 8, 2);
    BV_ATTN_OCC_VARIANT((bv::kernels::attention_fwd_kernel<half, 64, 256, 64, false, 8>),
                        "attention 256x64 W8 2/SM", 256, 8, 2);
    BV_ATTN_OCC_VARIANT((bv::kernels::attention_fwd_kernel<half, 64, 64, 64, false, 4>),
                        "attention 64x64 W4 3/SM", 64, 4, 3);
    BV_ATTN_OCC_VARIANT((bv::kernels::attention_fwd_kernel<half, 64, 64, 32, false, 4>),
                        "attention 64x32 W4 4/SM", 64, 4, 4);
#undef BV_ATTN_OCC_VARIANT
    return 0;
  } catch (const check_failed&) {
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
