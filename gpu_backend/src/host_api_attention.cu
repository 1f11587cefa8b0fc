// libblockvec_gpu: the host entry point of the attention forward (f16 and bf16, head dimension 64
// or 128) and its device benchmarks. One of the library's translation units, which compile in
// parallel; the backward is in host_api_backward.cu.
#include <stdexcept>
#include <vector>

#include "bench_registry.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/attention.hpp"
#include "host_common.hpp"

namespace bv::gpu {
using namespace host;

double attention_fwd(dtype_id t, const void* q, const void* k, const void* v, void* o, float* lse,
                     int B, int H, int S, int D, bool causal) {
  require();
  if (t != dtype_id::f16 && t != dtype_id::bf16)
    throw std::invalid_argument("blockvec GPU: attention_fwd: f16 or bf16 inputs");
  if (D != 64 && D != 128)
    throw std::invalid_argument("blockvec GPU: attention_fwd: head dim 64 or 128");
  const auto run = [&](auto z) {
    using T = decltype(z);
    const std::vector<int64_t> shape{B, H, S, D};
    auto dq = up<T>("q", shape, q), dk = up<T>("k", shape, k), dv = up<T>("v", shape, v);
    auto dout = output<T>("o", shape);
    auto dl = output<float>("lse", {int64_t(B) * H, S});
    const double ms = timed([&] { bv::kernels::attention_fwd(dq, dk, dv, dout, dl, causal); });
    dout.copy_to_host(static_cast<T*>(o));
    dl.copy_to_host(lse);
    return ms;
  };
  return t == dtype_id::f16 ? run(half{}) : run(bfloat16{});
}

// Device benchmarks: attention at triton_peer.py's 4 x 16 x 4096 x 64, f16 unless named.
namespace {
using namespace benchreg;

template <class T, int D = 64>
bench_figure attn_bench(int warm, int reps, bool causal) {
  const int B = 4, H = 16, S = 4096;
  auto q = random<T>("q", {B, H, S, D}, 18), k = random<T>("k", {B, H, S, D}, 19),
       v = random<T>("v", {B, H, S, D}, 20);
  auto o = device_tensor<T>::empty("o", {B, H, S, D});
  auto lse = device_tensor<float>::empty("lse", {B * H, S});
  bench_figure f{.dtype = dtype_name<T>(),
                 .shape = dims({B, H, S, D}),
                 .note = causal ? "causal" : "non-causal"};
  f.bytes = 4.0 * sizeof(T) * B * H * S * D;
  f.flops = 4.0 * B * H * double(S) * S * D * (causal ? 0.5 : 1.0);
  return median_of(f, warm, reps, [&] { bv::kernels::attention_fwd(q, k, v, o, lse, causal); });
}
const registrar bench_attn{"attention", [](int w, int r) { return attn_bench<half>(w, r, false); }};
const registrar bench_attn_c{"attention_causal",
                             [](int w, int r) { return attn_bench<half>(w, r, true); }};
const registrar bench_attn_d128{"attention@d128",
                                [](int w, int r) { return attn_bench<half, 128>(w, r, false); }};
const registrar bench_attn_c_d128{"attention_causal@d128",
                                  [](int w, int r) { return attn_bench<half, 128>(w, r, true); }};
const registrar bench_attn_bf16{"attention@bf16",
                                [](int w, int r) { return attn_bench<bfloat16>(w, r, false); }};
}  // namespace

}  // namespace bv::gpu
