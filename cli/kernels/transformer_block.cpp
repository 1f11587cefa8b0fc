// CLI entry: transformer_block, the samples/transformer decoder block (forward and backward
// composed from the kernel library) against its double reference.
#include <Eigen/Core>

#include "../../samples/transformer/check.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace samples::transformer;

block_config from(const std::vector<int64_t>& s) {
  block_config c;
  c.seq = s[0];
  c.heads = s[1];
  c.ffn = s[2];
  return c;
}

registrar reg{{
    .name = "transformer_block",
    .description = "TinyLlama-style decoder block (RMSNorm, RoPE attention, SwiGLU, residuals), "
                   "forward + backward from the library kernels, f32",
    .size_help = "SEQ,HEADS,FFN (head dim 64)",
    .default_size = {64, 2, 256},
    .bench_size = {128, 2, 512},
    .run =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          const auto rep = run_and_check(
              from(s), seed, [](const std::function<std::vector<launch_result>()>& once) {
                return launch_warm(once);
              });
          outcome o;
          o.tolerance = tolerance;
          o.match = true;
          std::string worst = rep.outputs.front().name;
          for (const auto& c : rep.outputs) {
            if (!c.finite || c.rel_l2 > o.rel_err) {
              o.rel_err = c.finite ? c.rel_l2 : INFINITY;
              worst = c.name;
            }
            o.max_abs_err = std::max(o.max_abs_err, c.max_abs);
            o.match = o.match && c.finite && c.rel_l2 <= tolerance;
          }
          o.launches = rep.launches;
          o.note = "8 outputs and gradients compared; worst: " + worst;
          return o;
        },
    .native =
        [](const std::vector<int64_t>& s, uint64_t seed) {
          // The same block, forward and backward, in fp32 Eigen on one thread: the GEMMs through
          // Eigen, the norms, RoPE, softmax and SwiGLU as loops over rows.
          const block_config c = from(s);
          const auto w = weights::random(c, seed);
          const auto x = f32t::randn("x", {c.seq, c.dim()}, seed + 10);
          const auto dout = f32t::randn("dout", {c.seq, c.dim()}, seed + 11);
          using M = Eigen::MatrixXf;
          auto m = [](const f32t& t, int64_t r, int64_t cc) {
            return M(
                Eigen::Map<const Eigen::Matrix<float, -1, -1, Eigen::RowMajor>>(t.data(), r, cc));
          };
          const int64_t n = c.seq, d = c.dim(), f = c.ffn;
          const M X = m(x, n, d), DO = m(dout, n, d), Wqkv = m(w.wqkv, d, 3 * d),
                  Wo = m(w.wo, d, d), Wgu = m(w.w_gate_up, d, 2 * f), Wd = m(w.w_down, f, d);
          const Eigen::RowVectorXf an = m(w.attn_norm, 1, d), mn = m(w.mlp_norm, 1, d);
          const kernels::rope_tables rope(n, head_dim);
          const M C = m(rope.cos, n, head_dim / 2), S = m(rope.sin, n, head_dim / 2);
          auto rot = [&](M& t, int64_t col0, float sign) {
            for (int64_t h = 0; h < c.heads; ++h) {
              auto b = t.middleCols(col0 + h * head_dim, head_dim);
              const M x1 = b.leftCols(head_dim / 2), x2 = b.rightCols(head_dim / 2);
              b.leftCols(head_dim / 2) = x1.cwiseProduct(C) - sign * x2.cwiseProduct(S);
              b.rightCols(head_dim / 2) = x2.cwiseProduct(C) + sign * x1.cwiseProduct(S);
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
          return time_it([&] {
            Eigen::VectorXf r1, r2;
            const M h1 = norm(X, an, r1);
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
              attn.middleCols(h * head_dim, head_dim) =
                  p * qkv.middleCols(2 * d + h * head_dim, head_dim);
              probs.push_back(std::move(p));
            }
            const M x1 = X + attn * Wo;
            const M h2 = norm(x1, mn, r2);
            const M gu = h2 * Wgu;
            const Eigen::ArrayXXf g = gu.leftCols(f).array(), u = gu.rightCols(f).array();
            const Eigen::ArrayXXf sg = 1.0f / (1.0f + (-g).exp());
            const M a = (g * sg * u).matrix();
            volatile float sink = (x1 + a * Wd).sum();
            // backward
            const M da = DO * Wd.transpose();
            const M dWd = a.transpose() * DO;
            M dgu(n, 2 * f);
            dgu.leftCols(f) = (da.array() * u * sg * (1.0f + g * (1.0f - sg))).matrix();
            dgu.rightCols(f) = (da.array() * g * sg).matrix();
            const M dWgu = h2.transpose() * dgu;
            const M dx1 = DO + norm_bwd(dgu * Wgu.transpose(), x1, mn, r2);
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
            const M dx = dx1 + norm_bwd(dqkv * Wqkv.transpose(), X, an, r1);
            sink = sink + dx.sum() + dWd.sum() + dWgu.sum() + dWo.sum() + dWqkv.sum();
          });
        },
}};
}  // namespace
}  // namespace bv::cli
