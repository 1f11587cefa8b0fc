// A TinyLlama-style decoder block composed from the kernel library, forward and backward:
//
//   h1 = rmsnorm(x) * attn_norm                        rmsnorm_fwd
//   qkv = h1 @ wqkv                                    matmul
//   q, k = rope(qkv[:, :d]), rope(qkv[:, d:2d])        rope_split (RoPE + [S, H*D] -> [H, S, D])
//   v = qkv[:, 2d:]                                    rope_split (layout only)
//   o = causal_attention(q, k, v)                      attention_fwd (flash, online softmax)
//   x1 = x + merge(o) @ wo ; h2 = rmsnorm(x1) * mlp_norm   matmul, add_rmsnorm_fwd (fused)
//   a = silu(h2 @ wg) * (h2 @ wu)                      matmul (gate|up fused weight), silu_mul_fwd
//   out = x1 + a @ wdown                               matmul, add
//
// and the backward through the same kernels' backwards (rmsnorm_bwd, silu_mul_bwd, attention_bwd,
// inverse RoPE) with every weight gradient a matmul of transposed views. All fp32: this is the
// TinyLlama-style model in miniature, small enough to check against a double reference
// of the whole block (reference.hpp).
#pragma once
#include <random>
#include <string>
#include <vector>

#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/rmsnorm.hpp"
#include "bv/kernels/rope.hpp"

namespace bv::samples::transformer {

using f32t = tensor<float>;
constexpr int head_dim = 64;

struct block_config {
  int64_t seq = 64;   // tokens (one sequence)
  int64_t heads = 2;  // attention heads of head_dim
  int64_t ffn = 256;  // SwiGLU intermediate size
  float eps = 1e-6f;
  int64_t dim() const { return heads * head_dim; }
};

// The block's structs hold the backend's tensors: types of each backend's own (BV_TENSORS,
// bv/config.hpp), since the blockvec command runs the block on the interpreter, the GPU and the
// emulator in one program.
inline namespace BV_TENSORS {

struct weights {
  f32t attn_norm, wqkv, wo, mlp_norm, w_gate_up, w_down;
  // Scaled like a trained model's (1/sqrt(fan_in)), norms near 1.
  static weights random(const block_config& c, uint64_t seed) {
    const int64_t d = c.dim(), f = c.ffn;
    weights w;
    w.attn_norm = norm_weight("attn_norm", d, seed);
    w.mlp_norm = norm_weight("mlp_norm", d, seed + 1);
    w.wqkv = f32t::randn("wqkv", {d, 3 * d}, seed + 2, 1.0 / std::sqrt(double(d)));
    w.wo = f32t::randn("wo", {d, d}, seed + 3, 1.0 / std::sqrt(double(d)));
    w.w_gate_up = f32t::randn("w_gate_up", {d, 2 * f}, seed + 4, 1.0 / std::sqrt(double(d)));
    w.w_down = f32t::randn("w_down", {f, d}, seed + 5, 1.0 / std::sqrt(double(f)));
    return w;
  }
  // 1 + N(0, 0.1): made on the host, so that it reads the same on every backend's tensor.
  static f32t norm_weight(const char* name, int64_t d, uint64_t seed) {
    std::vector<float> v = f32t::randn(name, {d}, seed, 0.1).values();
    for (float& x : v) x += 1.0f;
    return f32t::from_host(name, {d}, v.data());
  }
};

// What the forward keeps for the backward (and its output).
struct activations {
  f32t h1, rstd1, qkv, q, k, v, o, lse, attn, proj, x1, h2, rstd2, gu, a, m, out;
  explicit activations(const block_config& c) {
    const int64_t s = c.seq, d = c.dim(), h = c.heads, f = c.ffn;
    auto e = [](const char* n, std::vector<int64_t> shape) { return f32t::empty(n, shape); };
    h1 = e("h1", {s, d});
    rstd1 = e("rstd1", {s});
    qkv = e("qkv", {s, 3 * d});
    q = e("q", {1, h, s, head_dim});
    k = e("k", {1, h, s, head_dim});
    v = e("v", {1, h, s, head_dim});
    o = e("o", {1, h, s, head_dim});
    lse = e("lse", {h, s});
    attn = e("attn", {s, d});
    proj = e("proj", {s, d});
    x1 = e("x1", {s, d});
    h2 = e("h2", {s, d});
    rstd2 = e("rstd2", {s});
    gu = e("gate_up", {s, 2 * f});
    a = e("a", {s, f});
    m = e("mlp", {s, d});
    out = e("out", {s, d});
  }
};

struct gradients {
  f32t dx, d_attn_norm, d_wqkv, d_wo, d_mlp_norm, d_w_gate_up, d_w_down;
  explicit gradients(const block_config& c) {
    const int64_t s = c.seq, d = c.dim(), f = c.ffn;
    dx = f32t::empty("dx", {s, d});
    d_attn_norm = f32t::empty("d_attn_norm", {d});
    d_wqkv = f32t::empty("d_wqkv", {d, 3 * d});
    d_wo = f32t::empty("d_wo", {d, d});
    d_mlp_norm = f32t::empty("d_mlp_norm", {d});
    d_w_gate_up = f32t::empty("d_w_gate_up", {d, 2 * f});
    d_w_down = f32t::empty("d_w_down", {f, d});
  }
};

}  // namespace BV_TENSORS

struct launches {
  std::vector<launch_result> all;
  void operator+=(launch_result r) { all.push_back(std::move(r)); }
  void operator+=(std::vector<launch_result> rs) {
    for (auto& r : rs) all.push_back(std::move(r));
  }
};

inline void forward(const block_config& c, const weights& w, const f32t& x,
                    const kernels::rope_tables& rope, activations& act, launches& l) {
  const int64_t d = c.dim();
  l += kernels::rmsnorm_fwd(x, w.attn_norm, act.h1, act.rstd1, c.eps);
  l += kernels::matmul(act.h1, w.wqkv, act.qkv);
  l += kernels::rope_split<head_dim>(act.qkv, 0, act.q, rope, 1.0f);
  l += kernels::rope_split<head_dim>(act.qkv, d, act.k, rope, 1.0f);
  l += kernels::rope_split<head_dim>(act.qkv, 2 * d, act.v, rope, 0.0f);
  l += kernels::attention_fwd(act.q, act.k, act.v, act.o, act.lse, /*causal=*/true);
  l += kernels::rope_merge<head_dim>(act.o, act.attn, 0, rope, 0.0f);
  l += kernels::matmul(act.attn, w.wo, act.proj);
  l += kernels::add_rmsnorm_fwd(x, act.proj, w.mlp_norm, act.x1, act.h2, act.rstd2, c.eps);
  l += kernels::matmul(act.h2, w.w_gate_up, act.gu);
  l += kernels::silu_mul_fwd(act.gu, act.a);
  l += kernels::matmul(act.a, w.w_down, act.m);
  l += kernels::add(act.x1, act.m, act.out);
}

// Gradients of sum(dout * out) with respect to x and every weight.
inline void backward(const block_config& c, const weights& w, const f32t& x,
                     const kernels::rope_tables& rope, const activations& act, const f32t& dout,
                     gradients& g, launches& l) {
  const int64_t s = c.seq, d = c.dim(), h = c.heads, f = c.ffn;
  auto e = [](const char* n, std::vector<int64_t> shape) { return f32t::empty(n, shape); };
  // MLP: out = x1 + a @ w_down, a = silu(gate) * up, [gate | up] = h2 @ w_gate_up.
  auto d_a = e("d_a", {s, f});
  l += kernels::matmul(dout, w.w_down.transposed(), d_a);
  l += kernels::matmul(act.a.transposed(), dout, g.d_w_down);
  auto d_gu = e("d_gate_up", {s, 2 * f});
  l += kernels::silu_mul_bwd(d_a, act.gu, d_gu);
  l += kernels::matmul(act.h2.transposed(), d_gu, g.d_w_gate_up);
  auto d_h2 = e("d_h2", {s, d});
  l += kernels::matmul(d_gu, w.w_gate_up.transposed(), d_h2);
  auto dx1_norm = e("dx1_norm", {s, d});
  l += kernels::rmsnorm_bwd(d_h2, act.x1, w.mlp_norm, act.rstd2, dx1_norm, g.d_mlp_norm);
  auto dx1 = e("dx1", {s, d});
  l += kernels::add(dout, dx1_norm, dx1);
  // Attention: x1 = x + attn @ wo.
  l += kernels::matmul(act.attn.transposed(), dx1, g.d_wo);
  auto d_attn = e("d_attn", {s, d});
  l += kernels::matmul(dx1, w.wo.transposed(), d_attn);
  auto d_o = e("d_o", {1, h, s, head_dim});
  l += kernels::rope_split<head_dim>(d_attn, 0, d_o, rope, 0.0f);
  auto dq = e("dq", {1, h, s, head_dim}), dk = e("dk", {1, h, s, head_dim}),
       dv = e("dv", {1, h, s, head_dim});
  l += kernels::attention_bwd(act.q, act.k, act.v, act.o, act.lse, d_o, dq, dk, dv, true);
  // RoPE is a rotation: its backward rotates by minus the angle.
  auto d_qkv = e("d_qkv", {s, 3 * d});
  l += kernels::rope_merge<head_dim>(dq, d_qkv, 0, rope, -1.0f);
  l += kernels::rope_merge<head_dim>(dk, d_qkv, d, rope, -1.0f);
  l += kernels::rope_merge<head_dim>(dv, d_qkv, 2 * d, rope, 0.0f);
  l += kernels::matmul(act.h1.transposed(), d_qkv, g.d_wqkv);
  auto d_h1 = e("d_h1", {s, d});
  l += kernels::matmul(d_qkv, w.wqkv.transposed(), d_h1);
  auto dx_norm = e("dx_norm", {s, d});
  l += kernels::rmsnorm_bwd(d_h1, x, w.attn_norm, act.rstd1, dx_norm, g.d_attn_norm);
  l += kernels::add(dx1, dx_norm, g.dx);
}

}  // namespace bv::samples::transformer
