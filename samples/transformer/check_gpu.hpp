// The block on the GPU from the same inputs as run_and_check (check.hpp), every result against
// the same double reference. The GPU side (bv::gpu::transformer_block) runs block.hpp's own
// forward and backward, compiled for the device; this side only moves the inputs and results.
#pragma once
#include <vector>

#include "bv/gpu/host_api.hpp"
#include "check.hpp"

namespace bv::samples::transformer {

// Forward and backward on the GPU from host weights and inputs; `out` ([seq, dim]) and `g` get
// the results. Returns the device time in milliseconds.
inline double run_on_gpu(const block_config& c, const weights& w, const f32t& x, const f32t& dout,
                         f32t& out, gradients& g) {
  gpu::transformer_block_io io;
  io.seq = c.seq;
  io.heads = c.heads;
  io.ffn = c.ffn;
  io.eps = c.eps;
  io.x = x.data();
  io.dout = dout.data();
  io.attn_norm = w.attn_norm.data();
  io.wqkv = w.wqkv.data();
  io.wo = w.wo.data();
  io.mlp_norm = w.mlp_norm.data();
  io.w_gate_up = w.w_gate_up.data();
  io.w_down = w.w_down.data();
  io.out = out.data();
  io.dx = g.dx.data();
  io.d_attn_norm = g.d_attn_norm.data();
  io.d_wqkv = g.d_wqkv.data();
  io.d_wo = g.d_wo.data();
  io.d_mlp_norm = g.d_mlp_norm.data();
  io.d_w_gate_up = g.d_w_gate_up.data();
  io.d_w_down = g.d_w_down.data();
  return gpu::transformer_block(io);
}

// run_and_check on the GPU. `ms`: the device time of the forward and backward. With `keep`, the
// results' values are appended to it in compare_all's order.
inline std::vector<compared> run_and_check_gpu(const block_config& c, uint64_t seed, double& ms,
                                               std::vector<std::vector<float>>* keep = nullptr) {
  const inputs in(c, seed);
  auto out = f32t::empty("out", {c.seq, c.dim()});
  gradients g(c);
  ms = run_on_gpu(c, in.w, in.x, in.dout, out, g);
  const results got{&out,    &g.dx,         &g.d_attn_norm, &g.d_wqkv,
                    &g.d_wo, &g.d_mlp_norm, &g.d_w_gate_up, &g.d_w_down};
  if (keep) keep_values(got, *keep);
  return compare_all(c, in, got);
}

}  // namespace bv::samples::transformer
