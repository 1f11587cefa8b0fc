// Element-wise fusion of f32 arithmetic. `x * r * w` on f32 blocks of one shape (or with numbers)
// does not compute a block per operator: it makes a fused block, a basic_block whose lanes are an
// expression over its operands, computed once, in one vectorised pass, where the value is
// consumed. A store computes it straight into memory, sum() adds it up as it goes, `acc += ...`
// updates acc in place; anything else (a read of its lanes, a copy) computes it into the block's
// own lanes first, which is what the unfused operator did. A row norm's ten passes over a row
// become four.
//
// The language does not change: a fused block is a basic_block (it converts to one, binds to
// `const basic_block&` and deduces its T, S and W), and the values are the same, lane by lane and
// bit by bit, as the operators computed them one at a time (the same f32 operations in the same
// order; no contraction into fma). What makes it safe under `auto` is fused_list.hpp: a fused
// block refers to the blocks it reads, and any of them that is about to change or end makes it
// compute its lanes first. A fused operand that is itself a temporary is folded into the new
// expression; a named one is read as a block (computed once, then read).
#pragma once
#include <Eigen/Core>
#include <type_traits>
#include <utility>

namespace bv {

namespace detail {

// A block operand, read where the expression is computed.
template <class B>
struct leaf_x {
  static constexpr int leaves = 1;
  const B* b = nullptr;
  auto arr() const { return Eigen::Map<const typename B::array>(b->read()); }
  void collect(uint8_t** out, int& n) const { out[n++] = block_transitions::readers_of(*b); }
};
// A number operand.
template <int N>
struct number_x {
  static constexpr int leaves = 0;
  float k = 0;
  auto arr() const { return Eigen::Array<float, N, 1>::Constant(k); }
  void collect(uint8_t**, int&) const {}
};
// a Op b on Eigen arrays or expressions.
template <char Op, class A, class B>
auto apply_op(const A& a, const B& b) {
  if constexpr (Op == '+')
    return a + b;
  else if constexpr (Op == '-')
    return a - b;
  else if constexpr (Op == '*')
    return a * b;
  else
    return a / b;
}
template <char Op, class L, class R>
struct op_x {
  static constexpr int leaves = L::leaves + R::leaves;
  L l;
  R r;
  auto arr() const { return apply_op<Op>(l.arr(), r.arr()); }
  void collect(uint8_t** out, int& n) const {
    l.collect(out, n);
    r.collect(out, n);
  }
};
}  // namespace detail

template <class S, int W, class E>
struct fused : basic_block<float, S, W> {
  using base = basic_block<float, S, W>;

  // Lanes computed by the caller (e stays empty and is never used).
  fused() = default;
  explicit fused(const E& ex) : e(ex) {
    uint8_t* leaves[E::leaves > 0 ? E::leaves : 1];
    int n = 0;
    e.collect(leaves, n);
    detail::block_transitions::start_fused(static_cast<base&>(*this), &eval_fn, leaves, n);
  }
  // A copy holds lanes, not the expression: it reads nothing that could change under it.
  fused(const fused& o) : base(o) {}
  fused& operator=(const fused& o) {
    base::operator=(o);
    return *this;
  }
  using base::operator=;
  // Here, not only in ~basic_block: a fused block read by another settles while e still exists.
  ~fused() { detail::block_transitions::leave(static_cast<base&>(*this)); }

  // The expression, while the lanes are not computed (pending()).
  const E& expr() const { return e; }
  // Computes the lanes into out (n = S::size floats; they must not be an operand's lanes).
  void eval_into(float* out) const { eval_fn(static_cast<const base*>(this), out); }

  // x.to(f32) of a temporary fused block stays fused; other types convert its lanes.
  template <class U>
  decltype(auto) to(dtype<U> d) const& {
    return base::to(d);
  }
  template <class U>
  auto to(dtype<U> d) && {
    if constexpr (std::is_same_v<U, float>) {
      if (this->pending()) return fused(e);
      fused out;
      out.vals() = this->arr();
      return out;
    } else {
      return base::convert(d);
    }
  }

 private:
  static void eval_fn(const void* self, float* out) {
    const auto* f = static_cast<const fused*>(static_cast<const base*>(self));
    Eigen::Map<typename base::array> lanes(out);
    lanes = f->e.arr();
  }

  E e{};
};

namespace detail {

// The block side of a fusable pair.
template <class X, class Y>
using fused_shape = std::conditional_t<Block<X>, shape_of<X>, shape_of<Y>>;

template <class B>
using f32_of = basic_block<float, shape_of<B>, waves_of<B>>;

// An operand as part of an expression: a number, the expression of a temporary fused block, or
// a block read in place.
template <int N, class X>
auto node_of(X&& x) {
  using D = std::remove_cvref_t<X>;
  if constexpr (Scalar<D>)
    return number_x<N>{static_cast<float>(x)};
  else if constexpr (is_fused<D> && !std::is_lvalue_reference_v<X>)
    return x.expr();
  else
    return leaf_x<f32_of<D>>{&x};
}
// An operand read as it is now (its lanes, if it is a block).
template <int N, class X>
auto value_of(const X& x) {
  if constexpr (Scalar<X>)
    return number_x<N>{static_cast<float>(x)};
  else
    return leaf_x<f32_of<X>>{&x};
}
// Whether x is a temporary fused block whose expression no longer describes it: it computed its
// lanes because an operand changed (possible only for a named block passed with std::move).
template <class X>
bool stale(const X& x) {
  if constexpr (is_fused<std::remove_cvref_t<X>> && !std::is_lvalue_reference_v<X>)
    return !x.pending();
  else
    return false;
}

template <char Op, class X, class Y>
auto fuse(X&& x, Y&& y) {
  using S = fused_shape<std::remove_cvref_t<X>, std::remove_cvref_t<Y>>;
  constexpr int N = S::size, W = join_waves<X, Y>();
  using E =
      op_x<Op, decltype(node_of<N>(std::forward<X>(x))), decltype(node_of<N>(std::forward<Y>(y)))>;
  using F = fused<S, W, E>;
  if (stale<X>(x) || stale<Y>(y)) [[unlikely]] {
    F out;
    out.vals() =
        op_x<Op, decltype(value_of<N>(x)), decltype(value_of<N>(y))>{value_of<N>(x), value_of<N>(y)}
            .arr();
    return out;
  }
  return F(E{node_of<N>(std::forward<X>(x)), node_of<N>(std::forward<Y>(y))});
}

// b op= y for f32 b: one pass over b's lanes (y's expression, if it is a pending fused block).
template <char Op, class T, class S, int W, class Y>
void update(basic_block<T, S, W>& b, const Y& y) {
  auto& v = b.vals();  // first: the fused blocks that read b compute their lanes (y may be one)
  constexpr int N = S::size;
  auto apply = [&](const auto& rhs) { v = apply_op<Op>(v, rhs.arr()); };
  if constexpr (is_fused<Y>) {
    if (y.pending()) return apply(y.expr());
  }
  apply(value_of<N>(y));
}

}  // namespace detail

}  // namespace bv
