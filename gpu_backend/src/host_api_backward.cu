// libblockvec_gpu: host entry points of the backward kernels (rmsnorm_bwd, col_sum, layernorm_bwd
// with both reductions, attention_bwd) and their device benchmarks. One of the library's
// translation units, which compile in parallel.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "bench_registry.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/rmsnorm.hpp"
#include "host_common.hpp"

namespace bv::gpu {
using namespace host;
namespace {
bv::kernels::reduction reduction_of(bool lock) {
  return lock ? bv::kernels::reduction::lock : bv::kernels::reduction::two_stage;
}
}  // namespace

double rmsnorm_bwd(dtype_id t, const void* dy, const void* x, const void* w, const float* rstd,
                   void* dx, void* dw, int rows, int cols) {
  return f32_f16(t, "rmsnorm_bwd", [&](auto z) {
    using T = decltype(z);
    auto ddy = up<T>("dy", {rows, cols}, dy), dxin = up<T>("x", {rows, cols}, x);
    auto dwin = up<T>("w", {cols}, w);
    auto dr = device_tensor<float>::from_host("rstd", {rows}, rstd);
    auto ddx = output<T>("dx", {rows, cols});
    auto ddw = output<T>("dw", {cols});
    const double ms = timed([&] { bv::kernels::rmsnorm_bwd(ddy, dxin, dwin, dr, ddx, ddw); });
    ddx.copy_to_host(static_cast<T*>(dx));
    ddw.copy_to_host(static_cast<T*>(dw));
    return ms;
  });
}

double col_sum(const float* partial, float* out, int g, int n) {
  require();
  auto dp = device_tensor<float>::from_host("partial", {g, n}, partial);
  auto dout = output<float>("out", {n});
  const double ms = timed([&] { bv::kernels::col_sum(dp, dout); });
  dout.copy_to_host(out);
  return ms;
}

double layernorm_bwd(dtype_id t, bool lock, const void* dy, const void* x, const void* w,
                     const float* mean, const float* rstd, void* dx, void* dw, void* db, int rows,
                     int cols) {
  return f32_f16(t, "layernorm_bwd", [&](auto z) {
    using T = decltype(z);
    auto ddy = up<T>("dy", {rows, cols}, dy), dxin = up<T>("x", {rows, cols}, x);
    auto dwin = up<T>("w", {cols}, w);
    auto dm = device_tensor<float>::from_host("mean", {rows}, mean);
    auto dr = device_tensor<float>::from_host("rstd", {rows}, rstd);
    auto ddx = output<T>("dx", {rows, cols});
    auto ddw = output<T>("dw", {cols}), ddb = output<T>("db", {cols});
    const double ms = timed([&] {
      bv::kernels::layernorm_bwd(ddy, dxin, dwin, dm, dr, ddx, ddw, ddb, reduction_of(lock));
    });
    ddx.copy_to_host(static_cast<T*>(dx));
    ddw.copy_to_host(static_cast<T*>(dw));
    ddb.copy_to_host(static_cast<T*>(db));
    return ms;
  });
}

double attention_bwd(dtype_id t, const void* q, const void* k, const void* v, const void* o,
                     const float* lse, const void* dout, void* dq, void* dk, void* dv, int B, int H,
                     int S, int D, bool causal) {
  if (device_count() == 0) throw error("blockvec GPU: no GPU device found");
  if (t != dtype_id::f16)
    throw std::invalid_argument("blockvec GPU: attention_bwd: f16 only in this build");
  if (D != 64 && D != 128)
    throw std::invalid_argument("blockvec GPU: attention_bwd: head dim 64 or 128");
  using T = half;
  const std::vector<int64_t> shape{B, H, S, D};
  auto dq_in = up<T>("q", shape, q), dk_in = up<T>("k", shape, k), dv_in = up<T>("v", shape, v);
  auto do_in = up<T>("o", shape, o), ddout = up<T>("dout", shape, dout);
  auto dl = device_tensor<float>::from_host("lse", {int64_t(B) * H, S}, lse);
  auto gq = output<T>("dq", shape), gk = output<T>("dk", shape), gv = output<T>("dv", shape);
  const double ms = timed([&] {
    bv::kernels::attention_bwd(dq_in, dk_in, dv_in, do_in, dl, ddout, gq, gk, gv, causal);
  });
  gq.copy_to_host(static_cast<T*>(dq));
  gk.copy_to_host(static_cast<T*>(dk));
  gv.copy_to_host(static_cast<T*>(dv));
  return ms;
}

// Device benchmarks (bv/gpu/host_bench.hpp): the norms' backward at f16 8192 x 8192 (dx and the
// dw/db reductions, col_sum included), attention backward at 4 x 16 x 4096 x D f16, causal (D = 64;
// the variant attention_bwd@d128 at 128).
namespace {
using namespace benchreg;
constexpr int NR = 8192, NC = 8192;
const registrar bench_rms_bwd{
    "rmsnorm_bwd", [](int warm, int reps) {
      auto x = random<half>("x", {NR, NC}, 1, -2.0f, 2.0f), w = random<half>("w", {NC}, 2);
      auto dy = random<half>("dy", {NR, NC}, 3);
      auto rstd = random<float>("rstd", {NR}, 4, 0.5f, 1.5f);
      auto dx = device_tensor<half>::empty("dx", {NR, NC});
      auto dw = device_tensor<half>::empty("dw", {NC});
      bench_figure f{.dtype = "f16", .shape = dims({NR, NC}), .note = "dx + two-stage dw"};
      f.bytes = 3.0 * 2 * NR * NC;
      return median_of(f, warm, reps, [&] { bv::kernels::rmsnorm_bwd(dy, x, w, rstd, dx, dw); });
    }};
bench_figure ln_bwd_bench(int warm, int reps, bool lock) {
  auto x = random<half>("x", {NR, NC}, 5, -2.0f, 2.0f), w = random<half>("w", {NC}, 6);
  auto dy = random<half>("dy", {NR, NC}, 7);
  auto mean = random<float>("mean", {NR}, 8, -0.1f, 0.1f);
  auto rstd = random<float>("rstd", {NR}, 9, 0.5f, 1.5f);
  auto dx = device_tensor<half>::empty("dx", {NR, NC});
  auto dw = device_tensor<half>::empty("dw", {NC}), db = device_tensor<half>::empty("db", {NC});
  bench_figure f{.dtype = "f16",
                 .shape = dims({NR, NC}),
                 .note = lock ? "spin lock, 16 groups" : "two-stage, 256 programs"};
  f.bytes = 3.0 * 2 * NR * NC;
  return median_of(f, warm, reps, [&] {
    bv::kernels::layernorm_bwd(dy, x, w, mean, rstd, dx, dw, db, reduction_of(lock));
  });
}
const registrar bench_ln_bwd{"layernorm_bwd",
                             [](int w, int r) { return ln_bwd_bench(w, r, true); }};
const registrar bench_ln_bwd2{"layernorm_bwd_two_stage",
                              [](int w, int r) { return ln_bwd_bench(w, r, false); }};
template <int D>
bench_figure attn_bwd_bench(int warm, int reps) {
  const int B = 4, H = 16, S = 4096;
  const std::vector<int64_t> shape{B, H, S, D};
  auto q = random<half>("q", shape, 10), k = random<half>("k", shape, 11),
       v = random<half>("v", shape, 12), dout = random<half>("dout", shape, 13);
  auto o = device_tensor<half>::empty("o", shape);
  auto lse = device_tensor<float>::empty("lse", {B * H, S});
  bv::kernels::attention_fwd(q, k, v, o, lse, true);
  auto dq = device_tensor<half>::empty("dq", shape), dk = device_tensor<half>::empty("dk", shape),
       dv = device_tensor<half>::empty("dv", shape);
  // The tiles this build's target launches (the tables in kernels/bv/kernels/attention.hpp).
  const auto tile = [](auto cfg) {
    constexpr launch_config t = decltype(cfg)::value;
    return std::to_string(t.bm) + "x" + std::to_string(t.bn) + " on " + std::to_string(t.waves) +
           " waves" + (t.stages ? ", rings of " + std::to_string(t.stages) : std::string());
  };
  const std::string tiles =
      "dK/dV " + with_config_for<bv::kernels::attention_bwd_configs<2>, D>("attention_bwd", tile) +
      ", dQ " +
      with_config_for<bv::kernels::attention_bwd_dq_configs<2>, D>("attention_bwd (dQ)", tile);
  bench_figure f{.dtype = "f16", .shape = dims({B, H, S, D}), .note = "causal, " + tiles};
  f.bytes = 8.0 * 2 * B * H * S * D;
  f.flops = 10.0 * B * H * double(S) * S * D * 0.5;
  return median_of(f, warm, reps,
                   [&] { bv::kernels::attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, true); });
}
const registrar bench_attn_bwd{"attention_bwd",
                               [](int w, int r) { return attn_bwd_bench<64>(w, r); }};
const registrar bench_attn_bwd_d128{"attention_bwd@d128",
                                    [](int w, int r) { return attn_bwd_bench<128>(w, r); }};
}  // namespace

}  // namespace bv::gpu
