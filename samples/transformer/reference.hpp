// The same decoder block in double with Eigen, forward and backward by hand, as the check of the
// kernel composition in block.hpp. Host only; clarity over speed.
#pragma once
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <vector>

#include "block.hpp"
#include "bv/kernels/ref/common.hpp"

namespace bv::samples::transformer::ref {

using kernels::ref::as_mat;
using kernels::ref::as_row;
using kernels::ref::dmat;
using Eigen::ArrayXd;
using Eigen::RowVectorXd;

struct result {
  dmat out, dx, d_wqkv, d_wo, d_w_gate_up, d_w_down;
  RowVectorXd d_attn_norm, d_mlp_norm;
};

namespace detail {
struct norm {
  dmat y;
  ArrayXd r;
};
inline norm rmsnorm(const dmat& x, const RowVectorXd& w, double eps) {
  norm n;
  n.r = ((x.array().square().rowwise().sum() / x.cols()) + eps).rsqrt();
  n.y = ((x.array().colwise() * n.r).rowwise() * w.array()).matrix();
  return n;
}
inline dmat rmsnorm_bwd(const dmat& dy, const dmat& x, const RowVectorXd& w, const ArrayXd& r,
                        RowVectorXd& dw) {
  const auto g = (dy.array().rowwise() * w.array()).eval();
  const ArrayXd c = (g * x.array()).rowwise().sum() / x.cols();
  dw = ((dy.array() * x.array()).colwise() * r).colwise().sum().matrix();
  return ((g.colwise() * r) - (x.array().colwise() * (r.cube() * c))).matrix();
}
// Rotate the column pairs (i, i + 32) of each head by sign * pos * 10000^(-2i/64).
inline dmat rope(const dmat& x, int64_t heads, double sign) {
  dmat y = x;
  const int half = head_dim / 2;
  for (int64_t p = 0; p < x.rows(); ++p)
    for (int64_t h = 0; h < heads; ++h)
      for (int i = 0; i < half; ++i) {
        const double a = sign * p * std::pow(10000.0, -2.0 * i / head_dim);
        const double x1 = x(p, h * head_dim + i), x2 = x(p, h * head_dim + half + i);
        y(p, h * head_dim + i) = x1 * std::cos(a) - x2 * std::sin(a);
        y(p, h * head_dim + half + i) = x2 * std::cos(a) + x1 * std::sin(a);
      }
  return y;
}
inline double silu(double g) { return g / (1.0 + std::exp(-g)); }
}  // namespace detail

inline result block(const block_config& c, const weights& w, const f32t& xt, const f32t& doutt) {
  const int64_t s = c.seq, d = c.dim(), f = c.ffn;
  const dmat x = as_mat(xt), dout = as_mat(doutt);
  const dmat wqkv = as_mat(w.wqkv), wo = as_mat(w.wo), wgu = as_mat(w.w_gate_up),
             wdown = as_mat(w.w_down);
  const RowVectorXd an = as_row(w.attn_norm), mn = as_row(w.mlp_norm);
  const double scale = 1.0 / std::sqrt(double(head_dim));
  // Forward.
  const auto n1 = detail::rmsnorm(x, an, c.eps);
  const dmat qkv = n1.y * wqkv;
  const dmat q = detail::rope(qkv.leftCols(d), c.heads, 1.0);
  const dmat k = detail::rope(qkv.middleCols(d, d), c.heads, 1.0);
  const dmat v = qkv.rightCols(d);
  dmat attn(s, d);
  std::vector<dmat> probs;
  for (int64_t h = 0; h < c.heads; ++h) {
    dmat sc = q.middleCols(h * head_dim, head_dim) * k.middleCols(h * head_dim, head_dim).transpose() * scale;
    for (int64_t i = 0; i < s; ++i) {
      for (int64_t j = i + 1; j < s; ++j) sc(i, j) = -std::numeric_limits<double>::infinity();
      const double m = sc.row(i).maxCoeff();
      sc.row(i) = (sc.row(i).array() - m).exp().matrix();
      sc.row(i) /= sc.row(i).sum();
    }
    attn.middleCols(h * head_dim, head_dim) = sc * v.middleCols(h * head_dim, head_dim);
    probs.push_back(sc);
  }
  const dmat x1 = x + attn * wo;
  const auto n2 = detail::rmsnorm(x1, mn, c.eps);
  const dmat gu = n2.y * wgu;
  dmat a(s, f);
  for (int64_t i = 0; i < s; ++i)
    for (int64_t j = 0; j < f; ++j) a(i, j) = detail::silu(gu(i, j)) * gu(i, f + j);
  result r;
  r.out = x1 + a * wdown;
  // Backward.
  const dmat d_a = dout * wdown.transpose();
  r.d_w_down = a.transpose() * dout;
  dmat d_gu(s, 2 * f);
  for (int64_t i = 0; i < s; ++i)
    for (int64_t j = 0; j < f; ++j) {
      const double g = gu(i, j), sg = 1.0 / (1.0 + std::exp(-g));
      d_gu(i, j) = d_a(i, j) * gu(i, f + j) * sg * (1.0 + g * (1.0 - sg));
      d_gu(i, f + j) = d_a(i, j) * detail::silu(g);
    }
  r.d_w_gate_up = n2.y.transpose() * d_gu;
  const dmat dx1 = dout + detail::rmsnorm_bwd(d_gu * wgu.transpose(), x1, mn, n2.r, r.d_mlp_norm);
  r.d_wo = attn.transpose() * dx1;
  const dmat d_attn = dx1 * wo.transpose();
  dmat dq(s, d), dk(s, d), dv(s, d);
  for (int64_t h = 0; h < c.heads; ++h) {
    const int64_t c0 = h * head_dim;
    const dmat& p = probs[h];
    const dmat dO = d_attn.middleCols(c0, head_dim);
    dv.middleCols(c0, head_dim) = p.transpose() * dO;
    const dmat dp = dO * v.middleCols(c0, head_dim).transpose();
    const Eigen::VectorXd delta = (p.array() * dp.array()).rowwise().sum();
    const dmat ds = (p.array() * (dp.array().colwise() - delta.array())).matrix();
    dq.middleCols(c0, head_dim) = ds * k.middleCols(c0, head_dim) * scale;
    dk.middleCols(c0, head_dim) = ds.transpose() * q.middleCols(c0, head_dim) * scale;
  }
  dmat d_qkv(s, 3 * d);
  d_qkv << detail::rope(dq, c.heads, -1.0), detail::rope(dk, c.heads, -1.0), dv;
  r.d_wqkv = n1.y.transpose() * d_qkv;
  r.dx = dx1 + detail::rmsnorm_bwd(d_qkv * wqkv.transpose(), x, an, n1.r, r.d_attn_norm);
  return r;
}

}  // namespace bv::samples::transformer::ref
