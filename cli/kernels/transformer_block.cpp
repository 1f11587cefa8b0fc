// transformer_block: the samples/transformer decoder block, forward and backward composed on the
// host from the library's kernels (samples/transformer/block.hpp), its double reference
// (samples/transformer/reference.hpp) and one registration; the same block in fp32 Eigen times
// bench's native column. On the GPU the same host composition runs over device tensors
// (bv::gpu::transformer_block, samples/transformer/check_gpu.hpp), and in the AMD emulator
// (cli/emu/run_block.cpp).
#include <Eigen/Core>

#include "../../samples/transformer/check_gpu.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;
using namespace samples::transformer;

block_config from(const sizes& s) {
  block_config c;
  c.seq = s[0];
  c.heads = s[1];
  c.ffn = s[2];
  return c;
}

// The block's weights and inputs, and every activation and gradient it writes.
struct io {
  block_config c;
  weights w;
  f32t x, dout;
  kernels::rope_tables rope;
  activations act;
  gradients g;
};

// A row-major double matrix or row of the reference, element by element as compare_with reads.
struct flat {
  const double* p;
  size_t n;
  size_t size() const { return n; }
  double operator[](size_t i) const { return p[i]; }
};
template <class M>
flat flat_of(const M& m) {
  static_assert(M::IsRowMajor, "the reference's matrices must be row-major, as the tensors are");
  return {m.data(), static_cast<size_t>(m.size())};
}

// Native: the same block, forward and backward, in fp32 Eigen on one thread: the GEMMs through
// Eigen, the norms, RoPE, softmax and SwiGLU as loops over rows.
std::function<void()> native(io& a) {
  using M = Eigen::MatrixXf;
  const block_config& c = a.c;
  auto m = [](const f32t& t, int64_t r, int64_t cc) {
    return M(Eigen::Map<const Eigen::Matrix<float, -1, -1, Eigen::RowMajor>>(t.data(), r, cc));
  };
  const int64_t n = c.seq, d = c.dim(), f = c.ffn;
  struct mats {
    M X, DO, Wqkv, Wo, Wgu, Wd, C, S;
    Eigen::RowVectorXf an, mn;
  };
  mats k{m(a.x, n, d),
         m(a.dout, n, d),
         m(a.w.wqkv, d, 3 * d),
         m(a.w.wo, d, d),
         m(a.w.w_gate_up, d, 2 * f),
         m(a.w.w_down, f, d),
         m(a.rope.cos, n, head_dim / 2),
         m(a.rope.sin, n, head_dim / 2),
         m(a.w.attn_norm, 1, d),
         m(a.w.mlp_norm, 1, d)};
  return [c, n, d, f, k = std::move(k)] {
    const M &X = k.X, &DO = k.DO, &Wqkv = k.Wqkv, &Wo = k.Wo, &Wgu = k.Wgu, &Wd = k.Wd;
    auto rot = [&](M& t, int64_t col0, float sign) {
      for (int64_t h = 0; h < c.heads; ++h) {
        auto b = t.middleCols(col0 + h * head_dim, head_dim);
        const M x1 = b.leftCols(head_dim / 2), x2 = b.rightCols(head_dim / 2);
        b.leftCols(head_dim / 2) = x1.cwiseProduct(k.C) - sign * x2.cwiseProduct(k.S);
        b.rightCols(head_dim / 2) = x2.cwiseProduct(k.C) + sign * x1.cwiseProduct(k.S);
      }
    };
    auto norm = [&](const M& in, const Eigen::RowVectorXf& g, Eigen::VectorXf& r) {
      r = ((in.array().square().rowwise().sum() / d) + c.eps).rsqrt();
      return M((in.array().colwise() * r.array()).rowwise() * g.array());
    };
    auto norm_bwd = [&](const M& dy, const M& in, const Eigen::RowVectorXf& g,
                        const Eigen::VectorXf& r) {
      const Eigen::ArrayXXf gg = dy.array().rowwise() * g.array();
      const Eigen::ArrayXf cc = (gg * in.array()).rowwise().sum() / d;
      return M((gg.colwise() * r.array()) - (in.array().colwise() * (r.array().cube() * cc)));
    };
    Eigen::VectorXf r1, r2;
    const M h1 = norm(X, k.an, r1);
    M qkv = h1 * Wqkv;
    rot(qkv, 0, 1.0f);
    rot(qkv, d, 1.0f);
    M attn(n, d), dattn_in(n, d);
    std::vector<M> probs;
    const float scale = 1.0f / std::sqrt(float(head_dim));
    for (int64_t h = 0; h < c.heads; ++h) {
      M p = qkv.middleCols(h * head_dim, head_dim) *
            qkv.middleCols(d + h * head_dim, head_dim).transpose() * scale;
      for (int64_t i = 0; i < n; ++i) {
        auto row = p.row(i).head(i + 1).array();
        row = (row - row.maxCoeff()).exp();
        row /= row.sum();
        p.row(i).tail(n - i - 1).setZero();
      }
      attn.middleCols(h * head_dim, head_dim) = p * qkv.middleCols(2 * d + h * head_dim, head_dim);
      probs.push_back(std::move(p));
    }
    const M x1 = X + attn * Wo;
    const M h2 = norm(x1, k.mn, r2);
    const M gu = h2 * Wgu;
    const Eigen::ArrayXXf g = gu.leftCols(f).array(), u = gu.rightCols(f).array();
    const Eigen::ArrayXXf sg = 1.0f / (1.0f + (-g).exp());
    const M act = (g * sg * u).matrix();
    volatile float sink = (x1 + act * Wd).sum();
    // backward
    const M da = DO * Wd.transpose();
    const M dWd = act.transpose() * DO;
    M dgu(n, 2 * f);
    dgu.leftCols(f) = (da.array() * u * sg * (1.0f + g * (1.0f - sg))).matrix();
    dgu.rightCols(f) = (da.array() * g * sg).matrix();
    const M dWgu = h2.transpose() * dgu;
    const M dx1 = DO + norm_bwd(dgu * Wgu.transpose(), x1, k.mn, r2);
    const M dWo = attn.transpose() * dx1;
    const M dat = dx1 * Wo.transpose();
    M dqkv(n, 3 * d);
    for (int64_t h = 0; h < c.heads; ++h) {
      const M& p = probs[h];
      const M dO = dat.middleCols(h * head_dim, head_dim);
      dqkv.middleCols(2 * d + h * head_dim, head_dim) = p.transpose() * dO;
      const M dp = dO * qkv.middleCols(2 * d + h * head_dim, head_dim).transpose();
      const Eigen::VectorXf delta = (p.array() * dp.array()).rowwise().sum();
      const M ds = (p.array() * (dp.array().colwise() - delta.array())).matrix();
      dqkv.middleCols(h * head_dim, head_dim) =
          ds * qkv.middleCols(d + h * head_dim, head_dim) * scale;
      dqkv.middleCols(d + h * head_dim, head_dim) =
          ds.transpose() * qkv.middleCols(h * head_dim, head_dim) * scale;
    }
    rot(dqkv, 0, -1.0f);
    rot(dqkv, d, -1.0f);
    const M dWqkv = h1.transpose() * dqkv;
    const M dx = dx1 + norm_bwd(dqkv * Wqkv.transpose(), X, k.an, r1);
    sink = sink + dx.sum() + dWd.sum() + dWgu.sum() + dWo.sum() + dWqkv.sum();
  };
}

// The eight results of a run, in compare_all's order.
std::vector<f32t*> results_of(f32t& out, gradients& g) {
  return {&out,    &g.dx,         &g.d_attn_norm, &g.d_wqkv,
          &g.d_wo, &g.d_mlp_norm, &g.d_w_gate_up, &g.d_w_down};
}
std::vector<flat> results_of(const ref::result& r) {
  return {flat_of(r.out),  flat_of(r.dx),         flat_of(r.d_attn_norm), flat_of(r.d_wqkv),
          flat_of(r.d_wo), flat_of(r.d_mlp_norm), flat_of(r.d_w_gate_up), flat_of(r.d_w_down)};
}
// Every result against the reference, folded into one outcome (the worst one reported).
outcome compare_results(const std::vector<f32t*>& got, const ref::result& r) {
  const auto want = results_of(r);
  outcome o = compare_with(*got[0], want[0], tolerance);
  for (size_t i = 1; i < got.size(); ++i) fold_into(o, *got[i], want[i], tolerance);
  return o;
}

// --backend gpu|both: the block on the GPU from the entry's inputs; with `cpu`, on the
// interpreter too (into the entry's own tensors), and the two element by element. They agree to
// 1e-4 of the largest result (the reductions add in other orders).
gpu_outcome run_gpu(io& a, bool cpu) {
  gpu_outcome o;
  auto out = output<float>("out", {a.c.seq, a.c.dim()});
  gradients g(a.c);
  for (f32t* t : results_of(out, g)) poison(*t);
  o.gpu_ms = run_on_gpu(a.c, a.w, a.x, a.dout, out, g);
  const auto r = ref::block(a.c, a.w, a.x, a.dout);
  const auto on_gpu = results_of(out, g);
  o.gpu = compare_results(on_gpu, r);
  if (!cpu) return o;
  for (f32t* t : results_of(a.act.out, a.g)) poison(*t);
  samples::transformer::launches l;
  forward(a.c, a.w, a.x, a.rope, a.act, l);
  backward(a.c, a.w, a.x, a.rope, a.act, a.dout, a.g, l);
  const auto on_cpu = results_of(a.act.out, a.g);
  o.cpu = compare_results(on_cpu, r);
  o.cpu.launches = std::move(l.all);
  o.cpu_ran = true;
  double scale = 1.0;
  for (size_t i = 0; i < on_cpu.size(); ++i) {
    o.max_abs_diff = std::max(o.max_abs_diff, max_abs_diff(*on_gpu[i], *on_cpu[i]));
    for (int64_t j = 0; j < on_cpu[i]->numel(); ++j)
      scale = std::max(scale, double(std::abs(on_cpu[i]->flat(j))));
  }
  o.diff_tolerance = 1e-4 * scale;
  o.agree = o.max_abs_diff <= o.diff_tolerance;
  return o;
}

// --backend amd-emu: the block's 35 launches in the emulator from the entry's inputs
// (cli/emu/run_block.cpp), then on the interpreter into the entry's own tensors; each of the 8
// results against the reference and, element by element, the two runs against each other to
// 1e-4 of the interpreter's largest result, as on the GPU.
emu_outcome run_amd_emu(io& a, const ref::result& r, target t) {
  const auto on_cpu = results_of(a.act.out, a.g);
  for (f32t* p : on_cpu) poison(*p);
  emu_compare e("transformer_block", t);
  e.in(a.x).in(a.dout).in(a.w.attn_norm).in(a.w.wqkv).in(a.w.wo).in(a.w.mlp_norm);
  e.in(a.w.w_gate_up).in(a.w.w_down);
  e.cpu([&] {
    samples::transformer::launches l;
    forward(a.c, a.w, a.x, a.rope, a.act, l);
    backward(a.c, a.w, a.x, a.rope, a.act, a.dout, a.g, l);
    return std::move(l.all);
  });
  double scale = 1.0;
  for (const f32t* p : on_cpu)
    for (int64_t j = 0; j < p->numel(); ++j) scale = std::max(scale, double(std::abs(p->flat(j))));
  const auto want = results_of(r);
  for (size_t i = 0; i < on_cpu.size(); ++i) e.out(i, *on_cpu[i], want[i], tolerance, 1e-4 * scale);
  return e.done("8 outputs and gradients compared");
}

registrar reg{kernel<io, ref::result>{
                  .name = "transformer_block",
                  .description =
                      "TinyLlama-style decoder block (RMSNorm, RoPE attention, SwiGLU, residuals), "
                      "forward + backward from the library kernels, f32",
                  .size_help = "SEQ,HEADS,FFN (head dim 64)",
                  .default_size = {64, 2, 256},
                  .bench_size = {128, 2, 512},
                  .make =
                      [](const sizes& s, uint64_t seed) {
                        const block_config c = from(s);
                        return io{c,
                                  weights::random(c, seed),
                                  f32t::randn("x", {c.seq, c.dim()}, seed + 10),
                                  f32t::randn("dout", {c.seq, c.dim()}, seed + 11),
                                  kernels::rope_tables(c.seq, head_dim),
                                  activations(c),
                                  gradients(c)};
                      },
                  .launch =
                      [](io& a) {
                        samples::transformer::launches l;
                        forward(a.c, a.w, a.x, a.rope, a.act, l);
                        backward(a.c, a.w, a.x, a.rope, a.act, a.dout, a.g, l);
                        return std::move(l.all);
                      },
                  .reference = [](const io& a) { return ref::block(a.c, a.w, a.x, a.dout); },
                  .compare =
                      [](checker& ch, const io& a, const ref::result& r) {
                        ch.expect(a.act.out, flat_of(r.out), tolerance);
                        ch.expect(a.g.dx, flat_of(r.dx), tolerance);
                        ch.expect(a.g.d_attn_norm, flat_of(r.d_attn_norm), tolerance);
                        ch.expect(a.g.d_wqkv, flat_of(r.d_wqkv), tolerance);
                        ch.expect(a.g.d_wo, flat_of(r.d_wo), tolerance);
                        ch.expect(a.g.d_mlp_norm, flat_of(r.d_mlp_norm), tolerance);
                        ch.expect(a.g.d_w_gate_up, flat_of(r.d_w_gate_up), tolerance);
                        ch.expect(a.g.d_w_down, flat_of(r.d_w_down), tolerance);
                        ch.note("8 outputs and gradients compared; worst: " + ch.worst());
                      },
                  .native = native,
              },
              {.gpu = run_gpu, .amd_emu = run_amd_emu}};

}  // namespace
}  // namespace bv::cli
