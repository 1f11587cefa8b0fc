// References for attention forward (o and lse) and backward (dq, dk, dv) over [B, H, S, D], in
// double with Eigen, one (batch, head) at a time, materialising the S x S score matrix. Host only.
#pragma once
#include <cmath>
#include <limits>

#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

namespace detail {
template <class T>
dmat head(const tensor<T>& t, int64_t bh) {
  const int64_t s = t.size(2), d = t.size(3);
  dmat m(s, d);
  for (int64_t i = 0; i < s * d; ++i)
    m.data()[i] = static_cast<double>(static_cast<float>(t.flat(bh * s * d + i)));
  return m;
}
// Row-softmax of the scaled (and causally masked) scores; lse per row on the side.
inline dmat attention_probs(const dmat& q, const dmat& k, bool causal, Eigen::VectorXd& lse) {
  const int64_t s = q.rows();
  dmat sc = (q * k.transpose()) / std::sqrt(static_cast<double>(q.cols()));
  if (causal)
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = i + 1; j < s; ++j) sc(i, j) = -std::numeric_limits<double>::infinity();
  lse.resize(s);
  for (int64_t i = 0; i < s; ++i) {
    const double m = sc.row(i).maxCoeff();
    const double l = (sc.row(i).array() - m).exp().sum();
    lse[i] = m + std::log(l);
    sc.row(i) = (sc.row(i).array() - lse[i]).exp().matrix();
  }
  return sc;
}
}  // namespace detail

// One (batch, head): o and lse from its q, k, v.
struct head_outputs {
  dmat o;
  Eigen::VectorXd lse;
};
inline head_outputs head_attention(const dmat& q, const dmat& k, const dmat& v, bool causal) {
  head_outputs r;
  r.o = detail::attention_probs(q, k, causal, r.lse) * v;
  return r;
}
// One (batch, head): dq, dk, dv from its q, k, v and dout.
struct head_grads {
  dmat dq, dk, dv;
};
inline head_grads head_attention_grads(const dmat& q, const dmat& k, const dmat& v,
                                       const dmat& dout, bool causal) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  Eigen::VectorXd lse;
  const dmat P = detail::attention_probs(q, k, causal, lse);
  const dmat dP = dout * v.transpose();
  const Eigen::VectorXd delta = (P.array() * dP.array()).rowwise().sum();
  const dmat dS = (P.array() * (dP.array().colwise() - delta.array())).matrix();
  return {dS * k * scale, dS.transpose() * q * scale, P.transpose() * dout};
}

struct attention_result {
  std::vector<double> o, lse;
};
template <class T>
attention_result attention_fwd(const tensor<T>& q, const tensor<T>& k, const tensor<T>& v,
                               bool causal) {
  attention_result r;
  const int64_t bh = q.size(0) * q.size(1);
  for (int64_t h = 0; h < bh; ++h) {
    const head_outputs out =
        head_attention(detail::head(q, h), detail::head(k, h), detail::head(v, h), causal);
    const auto f = flat(out.o);
    r.o.insert(r.o.end(), f.begin(), f.end());
    r.lse.insert(r.lse.end(), out.lse.data(), out.lse.data() + out.lse.size());
  }
  return r;
}

struct attention_grads {
  std::vector<double> dq, dk, dv;
};
template <class T>
attention_grads attention_bwd(const tensor<T>& q, const tensor<T>& k, const tensor<T>& v,
                              const tensor<T>& dout, bool causal) {
  attention_grads g;
  const int64_t bh = q.size(0) * q.size(1);
  for (int64_t h = 0; h < bh; ++h) {
    const head_grads hg = head_attention_grads(detail::head(q, h), detail::head(k, h),
                                               detail::head(v, h), detail::head(dout, h), causal);
    for (auto [src, dst] :
         {std::pair{&hg.dq, &g.dq}, std::pair{&hg.dk, &g.dk}, std::pair{&hg.dv, &g.dv}}) {
      const auto f = flat(*src);
      dst->insert(dst->end(), f.begin(), f.end());
    }
  }
  return g;
}

}  // namespace bv::kernels::ref
