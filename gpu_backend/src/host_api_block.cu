// libblockvec_gpu, sixth part: the decoder block of samples/transformer on the GPU. Nothing here
// launches a kernel by itself: the block's forward and backward are the interpreter's own host
// code (samples/transformer/block.hpp), whose launchers (kernels/) compile for every backend.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "../../samples/transformer/block.hpp"
#include "bench_registry.hpp"
#include "bv/gpu/host_api.hpp"
#include "host_common.hpp"

namespace bv::gpu {
using namespace host;
namespace tb = bv::samples::transformer;

namespace {

// One forward and backward over tensors that live on the device.
struct block_run {
  tb::block_config c;
  tb::weights w;
  device_tensor<float> x, dout;
  bv::kernels::rope_tables rope;
  tb::activations act;
  tb::gradients g;
  block_run(const tb::block_config& cfg, tb::weights wt, device_tensor<float> xin,
            device_tensor<float> dy)
      : c(cfg),
        w(std::move(wt)),
        x(std::move(xin)),
        dout(std::move(dy)),
        rope(cfg.seq, tb::head_dim),
        act(cfg),
        g(cfg) {}
  void operator()() {
    tb::launches l;
    tb::forward(c, w, x, rope, act, l);
    tb::backward(c, w, x, rope, act, dout, g, l);
  }
};

}  // namespace

double transformer_block(const transformer_block_io& io, int samples) {
  require();
  tb::block_config c;
  c.seq = io.seq;
  c.heads = io.heads;
  c.ffn = io.ffn;
  c.eps = io.eps;
  const int64_t s = c.seq, d = c.dim(), f = c.ffn;
  auto up32 = [](const char* name, std::vector<int64_t> shape, const float* p) {
    return device_tensor<float>::from_host(name, std::move(shape), p);
  };
  tb::weights w;
  w.attn_norm = up32("attn_norm", {d}, io.attn_norm);
  w.wqkv = up32("wqkv", {d, 3 * d}, io.wqkv);
  w.wo = up32("wo", {d, d}, io.wo);
  w.mlp_norm = up32("mlp_norm", {d}, io.mlp_norm);
  w.w_gate_up = up32("w_gate_up", {d, 2 * f}, io.w_gate_up);
  w.w_down = up32("w_down", {f, d}, io.w_down);
  block_run run(c, std::move(w), up32("x", {s, d}, io.x), up32("dout", {s, d}, io.dout));
  auto pass = [&] { run(); };
  // The outputs read back, each with its host buffer: poisoned first (host_common.hpp's poison),
  // so that an element the block's kernels leave unwritten reads back as NaN.
  const std::pair<device_tensor<float>*, float*> outputs[] = {{&run.act.out, io.out},
                                                              {&run.g.dx, io.dx},
                                                              {&run.g.d_attn_norm, io.d_attn_norm},
                                                              {&run.g.d_wqkv, io.d_wqkv},
                                                              {&run.g.d_wo, io.d_wo},
                                                              {&run.g.d_mlp_norm, io.d_mlp_norm},
                                                              {&run.g.d_w_gate_up, io.d_w_gate_up},
                                                              {&run.g.d_w_down, io.d_w_down}};
  for (const auto& o : outputs) poison(*o.first);
  double ms = timed(pass);
  for (const auto& o : outputs) o.first->copy_to_host(o.second);
  if (samples > 0) {
    ms = timed(pass);
    for (int i = 1; i < samples; ++i) ms = std::min(ms, timed(pass));
  }
  return ms;
}

// ---------------------------------------------------------------------------------------------
// Device benchmarks: forward + backward of the block, beside PyTorch eager's in
// bench/gpu/triton_peer.py at the same sizes.
namespace {
using namespace benchreg;

bench_figure bench_block(int64_t seq, int64_t heads, int64_t ffn, const char* note, int warm,
                         int reps) {
  tb::block_config c;
  c.seq = seq;
  c.heads = heads;
  c.ffn = ffn;
  const int64_t d = c.dim(), f = c.ffn;
  // Uniform weights of the variance block.hpp's random ones have (1/fan_in), norms near 1.
  auto weight = [](const char* name, std::vector<int64_t> shape, uint64_t seed, double fan_in) {
    const float r = static_cast<float>(std::sqrt(3.0 / fan_in));
    return random<float>(name, std::move(shape), seed, -r, r);
  };
  tb::weights w;
  w.attn_norm = random<float>("attn_norm", {d}, 1, 0.9f, 1.1f);
  w.mlp_norm = random<float>("mlp_norm", {d}, 2, 0.9f, 1.1f);
  w.wqkv = weight("wqkv", {d, 3 * d}, 3, double(d));
  w.wo = weight("wo", {d, d}, 4, double(d));
  w.w_gate_up = weight("w_gate_up", {d, 2 * f}, 5, double(d));
  w.w_down = weight("w_down", {f, d}, 6, double(f));
  block_run run(c, std::move(w), random<float>("x", {seq, d}, 7),
                random<float>("dout", {seq, d}, 8));
  bench_figure fig{.dtype = "f32", .shape = dims({seq, heads, ffn}), .note = note};
  // The GEMMs and attention's products, forward (x1) and backward (x2): what the block computes.
  const double s = double(seq), gemm = 2.0 * s * (3.0 * d * d + d * d + 2.0 * d * f + f * d);
  const double attn = 2.0 * s * s * double(d);  // QK^T and PV, causal: half of 2 * 2 * s^2 * d
  fig.flops = 3.0 * gemm + 3.5 * attn;
  return median_of(fig, warm, reps, [&] { run(); });
}

const registrar bench_block_workshop{
    "transformer_block", [](int warm, int reps) {
      return bench_block(128, 8, 1408, "fwd+bwd, seq 128, hidden 512, 8 heads (one sequence)",
                         warm, reps);
    }};
const registrar bench_block_tinyllama{
    "transformer_block@tinyllama", [](int warm, int reps) {
      return bench_block(1024, 32, 5632, "fwd+bwd, TinyLlama-1.1B's block dims, seq 1024", warm,
                         reps);
    }};

}  // namespace
}  // namespace bv::gpu
