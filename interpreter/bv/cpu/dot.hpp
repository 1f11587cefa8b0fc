// dot(a, b) and dot(a, b, acc): block matrix product with fp32 accumulation (tl.dot).
#pragma once
#include <source_location>

#include "bv/cpu/block.hpp"
#include "bv/cpu/render.hpp"

namespace bv {

template <class A, int M, int K, class B, int K2, int N, int W>
basic_block<compute_t<promote_t<A, B>>, shape<M, N>, W> dot(
    const basic_block<A, shape<M, K>, W>& a, const basic_block<B, shape<K2, N>, W>& b,
    std::source_location loc = std::source_location::current()) {
  static_assert(rules::dot<A, M, K, B, K2, N, false>());
  using R = compute_t<promote_t<A, B>>;
  basic_block<R, shape<M, N>, W> out;
  auto out_m = Eigen::Map<Eigen::Matrix<R, M, N, Eigen::RowMajor>>(out.vals().data());
  out_m.noalias() = a.grid().template cast<R>().matrix() * b.grid().template cast<R>().matrix();
  if (detail::hooks.load(std::memory_order_relaxed)) [[unlikely]]
    detail::on_op(loc, "dot", &detail::render_erased<decltype(out)>, &out);
  return out;
}

template <class A, int M, int K, class B, int K2, int N, class C, int W>
basic_block<C, shape<M, N>, W> dot(const basic_block<A, shape<M, K>, W>& a,
                                   const basic_block<B, shape<K2, N>, W>& b,
                                   const basic_block<C, shape<M, N>, W>& acc,
                                   std::source_location loc = std::source_location::current()) {
  static_assert(rules::dot<A, M, K, B, K2, N, true>());
  basic_block<C, shape<M, N>, W> out = acc;
  auto out_m = Eigen::Map<Eigen::Matrix<C, M, N, Eigen::RowMajor>>(out.vals().data());
  out_m.noalias() += a.grid().template cast<C>().matrix() * b.grid().template cast<C>().matrix();
  if (detail::hooks.load(std::memory_order_relaxed)) [[unlikely]]
    detail::on_op(loc, "dot", &detail::render_erased<decltype(out)>, &out);
  return out;
}

}  // namespace bv
