// Runs the block forward and backward on the interpreter from random inputs, and compares every
// output and gradient with the double reference. Shared by the sample's main and the CLI entry.
#pragma once
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "block.hpp"
#include "reference.hpp"

namespace bv::samples::transformer {

struct compared {
  std::string name;
  double rel_l2 = 0, max_abs = 0;
  bool finite = true;
};
struct check_report {
  std::vector<compared> outputs;
  std::vector<launch_result> launches;
  double worst() const {
    double w = 0;
    for (auto& o : outputs) w = std::max(w, o.finite ? o.rel_l2 : INFINITY);
    return w;
  }
};

template <class D>
compared compare_to(const std::string& name, const f32t& got, const Eigen::DenseBase<D>& ref) {
  compared c{name};
  double num = 0, den = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.flat(i), r = ref(i / ref.cols(), i % ref.cols());
    if (!std::isfinite(g)) c.finite = false;
    num += (g - r) * (g - r);
    den += r * r;
    c.max_abs = std::max(c.max_abs, std::abs(g - r));
  }
  c.rel_l2 = std::sqrt(num / (den > 0 ? den : 1.0));
  return c;
}

// The block's inputs from a seed: what every backend's run of it starts from.
struct inputs {
  weights w;
  f32t x, dout;
  inputs(const block_config& c, uint64_t seed)
      : w(weights::random(c, seed)),
        x(f32t::randn("x", {c.seq, c.dim()}, seed + 10)),
        dout(f32t::randn("dout", {c.seq, c.dim()}, seed + 11)) {}
};

// The block's eight results (the output and the gradients), in the order reports list them.
struct results {
  const f32t *out, *dx, *d_attn_norm, *d_wqkv, *d_wo, *d_mlp_norm, *d_w_gate_up, *d_w_down;
};

// Appends the results' values to `keep`, in compare_all's order.
inline void keep_values(const results& r, std::vector<std::vector<float>>& keep) {
  for (const f32t* t :
       {r.out, r.dx, r.d_attn_norm, r.d_wqkv, r.d_wo, r.d_mlp_norm, r.d_w_gate_up, r.d_w_down})
    keep.push_back(t->values());
}

// Every result against the double reference of the block on the same inputs.
inline std::vector<compared> compare_all(const block_config& c, const inputs& in,
                                         const results& got) {
  const auto r = ref::block(c, in.w, in.x, in.dout);
  return {compare_to("out", *got.out, r.out),
          compare_to("dx", *got.dx, r.dx),
          compare_to("d_attn_norm", *got.d_attn_norm, r.d_attn_norm),
          compare_to("d_wqkv", *got.d_wqkv, r.d_wqkv),
          compare_to("d_wo", *got.d_wo, r.d_wo),
          compare_to("d_mlp_norm", *got.d_mlp_norm, r.d_mlp_norm),
          compare_to("d_w_gate_up", *got.d_w_gate_up, r.d_w_gate_up),
          compare_to("d_w_down", *got.d_w_down, r.d_w_down)};
}

// `runs` gets the block's forward and backward as a callable returning their launches, and calls
// it (once by default; a benchmark may call it again over the same tensors and keep the fastest).
// With `keep`, the results' values are appended to it in compare_all's order (for comparing two
// backends element by element).
inline check_report run_and_check(
    const block_config& c, uint64_t seed,
    const std::function<
        std::vector<launch_result>(const std::function<std::vector<launch_result>()>&)>& runs = {},
    std::vector<std::vector<float>>* keep = nullptr) {
  const inputs in(c, seed);
  const kernels::rope_tables rope(c.seq, head_dim);
  activations act(c);
  gradients g(c);
  const std::function<std::vector<launch_result>()> once = [&] {
    launches l;
    forward(c, in.w, in.x, rope, act, l);
    backward(c, in.w, in.x, rope, act, in.dout, g, l);
    return std::move(l.all);
  };
  auto all = runs ? runs(once) : once();
  const results got{&act.out, &g.dx,         &g.d_attn_norm, &g.d_wqkv,
                    &g.d_wo,  &g.d_mlp_norm, &g.d_w_gate_up, &g.d_w_down};
  check_report rep;
  rep.outputs = compare_all(c, in, got);
  rep.launches = std::move(all);
  if (keep) keep_values(got, *keep);
  return rep;
}

// The composition runs 35 fp32 kernels (fp32 accumulation everywhere); measured errors are
// ~5e-7 relative, so an fp32 bound of 1e-5 holds with headroom. A wrong sign, a missing
// term or a misplaced head gives errors of order 1.
inline constexpr double tolerance = 1e-5;

}  // namespace bv::samples::transformer
