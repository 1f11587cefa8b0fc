// Block values on the CPU: every element of the block lives in one Eigen fixed-size array, and
// whole-block operations are Eigen expressions (vectorised; exp/log/tanh use Eigen's packet math).
#pragma once
#include <Eigen/Core>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bv/cpu/affine.hpp"
#include "bv/cpu/block_state.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/dtype.hpp"
#include "bv/operand.hpp"
#include "bv/ops.hpp"
#include "bv/rules.hpp"
#include "bv/shape.hpp"

namespace bv {

template <class T, class S, int W = default_waves>
struct basic_block;
// f32 arithmetic computed where it is consumed (fused.hpp).
template <class S, int W, class E>
struct fused;
namespace detail {
template <class B>
struct leaf_x;
}

// block<float, 1024> and block<float, 64, 64>: blocks of programs with the default wave count.
template <class T, int... D>
using block = basic_block<T, shape<D...>, default_waves>;

template <class T, class S, int W>
struct operand_traits<basic_block<T, S, W>> {
  static constexpr bool block = true;
  using elem = T;
  using shape_type = S;
  static constexpr int waves = W;
};
// A fused value is an f32 block whose lanes are computed where it is consumed.
template <class S, int W, class E>
struct operand_traits<fused<S, W, E>> : operand_traits<basic_block<float, S, W>> {};
template <class X>
inline constexpr bool is_fused = false;
template <class S, int W, class E>
inline constexpr bool is_fused<fused<S, W, E>> = true;

namespace detail {
using namespace bv::lang;  // operand traits and concepts (bv/operand.hpp)

// Eigen wants column-major storage for a one-column array.
template <class T, int R, int C>
using mat = Eigen::Array<T, R, C, (C == 1 && R != 1) ? Eigen::ColMajor : Eigen::RowMajor>;
}  // namespace detail

template <class T, class S, int W>
struct basic_block {
  static_assert(rules::element<T>());
  static_assert(is_shape<S>, "The second parameter of basic_block is a bv::shape<...>.");
  using value_type = T;
  using shape_type = S;
  static constexpr int waves = W;
  static constexpr int size = S::size;
  static constexpr int rank = S::rank;
  static constexpr int rows = S::rows;
  static constexpr int cols = S::cols;
  using array = Eigen::Array<T, size, 1>;

 private:
  // The block's state (block_state.hpp: owned, view, affine, uniform or fused) is these fields;
  // only block_transitions changes them.
  // The lanes when owned; written out on first read when pending.
  mutable array v_;
  // A loaded block that reads memory in place (views.hpp): its lanes are there, not in v_.
  mutable const T* view_ = nullptr;

 public:
  // Integer blocks: the affine form of the values, when known (affine.hpp).
  [[no_unique_address]] detail::affine_slot<T> aff{};

 private:
  [[no_unique_address]] mutable detail::lazy_slot<T> lz_{};

 public:
  basic_block() = default;
  explicit basic_block(const array& a) : v_(a) {}
  // A lazy copy writes nothing: its values are its form (or its one value); a copy of a view
  // reads the same memory.
  basic_block(const basic_block& o) : aff(o.aff) { detail::block_transitions::copy_into(*this, o); }
  basic_block& operator=(const basic_block& o) {
    if (this != &o) detail::block_transitions::assign(*this, o);
    return *this;
  }
  ~basic_block() { detail::block_transitions::leave(*this); }
  template <class E>
  static basic_block from(const E& expr) {
    basic_block b;
    b.v_ = expr;
    return b;
  }
  // An integer block whose values are its affine form, not written until read.
  static basic_block lazy(const detail::affine& f) {
    static_assert(is_int<T>, "Only integer blocks have an affine form.");
    basic_block b;
    detail::block_transitions::start_affine(b, f);
    return b;
  }
  // A bool block with every lane equal to `value`, not written until read.
  static basic_block uniform(bool value) {
    static_assert(std::is_same_v<T, bool>, "Only bool blocks are kept as one value.");
    basic_block b;
    detail::block_transitions::start_uniform(b, value);
    return b;
  }

  // The lanes' values in the block's own array (written out first if the block is lazy, copied
  // in if it is a view).
  const array& vals() const {
    detail::block_transitions::to_owned(*this);
    return v_;
  }
  // Writable lanes: what the form (or the one value) claimed about them ends here.
  array& vals() { return detail::block_transitions::for_write(*this); }
  // The lanes to read, wherever they are: a view's memory, or the block's array. Valid until the
  // block changes or the program writes that memory (which settles the view first).
  const T* read() const { return detail::block_transitions::lanes(*this); }
  auto arr() const { return Eigen::Map<const array>(read()); }
  const T* data() const { return read(); }
  T* data() { return vals().data(); }
  // Which of the states of block_state.hpp the block is in.
  detail::value_state state() const { return detail::block_transitions::state_of(*this); }
  // Whether the values are not written out yet (they are the form, one value, or an expression).
  bool pending() const { return lz_.pending; }
  // Whether the lanes are read in place from memory (views.hpp).
  bool is_view() const { return view_ != nullptr; }
  // Makes this (fresh) block read its lanes from src in place; false when it cannot (the
  // thread's list of views is full), and the caller copies them instead.
  bool view_of(const T* src) { return detail::block_transitions::start_view(*this, src); }
  // Bool blocks: 1 (0) when every lane is known set (clear) without reading them, -1 otherwise.
  int known_uniform() const {
    if constexpr (std::is_same_v<T, bool>)
      return lz_.one;
    else
      return -1;
  }

  T& operator[](int i) { return vals()[i]; }
  const T& operator[](int i) const { return vals()[i]; }
  T at(int r, int c) const { return read()[r * cols + c]; }

  // A 2-D view of the elements (row-major), for reductions and dot.
  auto grid() const { return Eigen::Map<const detail::mat<T, rows, cols>>(read()); }
  auto grid() { return Eigen::Map<detail::mat<T, rows, cols>>(vals().data()); }

  // x.to(f32) on an f32 block is x itself (a 4 KB copy per use otherwise: loads written
  // .to(f32) for any T); a temporary converts to a value, so nothing refers to it afterwards.
  template <class U>
  decltype(auto) to(dtype<U> d) const& {
    if constexpr (std::is_same_v<U, T>)
      return static_cast<const basic_block&>(*this);
    else
      return convert(d);
  }
  template <class U>
  basic_block<U, S, W> to(dtype<U> d) && {
    if constexpr (std::is_same_v<U, T>)
      return *this;  // a copy: a loaded block's copy reads the same memory (views.hpp)
    else
      return convert(d);
  }

  // Triton's x[None, :] and x[:, None].
  basic_block<T, shape<1, size>, W> row() const {
    static_assert(rank == 1, ".row() turns a 1-D block into a 1xN block; this block is 2-D.");
    return reshaped<shape<1, size>>(aff);
  }
  basic_block<T, shape<size, 1>, W> col() const {
    static_assert(rank == 1, ".col() turns a 1-D block into an Nx1 block; this block is 2-D.");
    if constexpr (is_int<T>)
      return reshaped<shape<size, 1>>(detail::affine{aff.known, aff.a0, aff.ac, 0});
    else
      return reshaped<shape<size, 1>>(aff);
  }

  template <class U>
  basic_block<U, S, W> convert(dtype<U>) const {
    if constexpr (is_int<T> && is_int<U>) {
      const detail::affine f = detail::fit_affine<U, rows, cols>(aff);
      if (lz_.pending && f.known) return basic_block<U, S, W>::lazy(f);
      auto out = basic_block<U, S, W>::from(arr().template cast<U>());
      out.aff = f;
      return out;
    } else {
      return basic_block<U, S, W>::from(arr().template cast<U>());
    }
  }

  // Writing elements directly ends what the form (or the one value) claimed about them.
  void forget_form() { detail::block_transitions::forget_form(*this); }

  template <class Y>
  basic_block& operator+=(const Y& y);
  template <class Y>
  basic_block& operator-=(const Y& y);
  template <class Y>
  basic_block& operator*=(const Y& y);
  template <class Y>
  basic_block& operator/=(const Y& y);

 private:
  template <class, class, int>
  friend struct basic_block;
  friend struct detail::block_transitions;

  // The same lanes under another shape of the same size, lazy if this one is.
  template <class S2>
  basic_block<T, S2, W> reshaped(const detail::affine_slot<T>& f) const {
    basic_block<T, S2, W> out;
    detail::block_transitions::copy_into(out, *this);
    out.aff = f;
    return out;
  }
};

namespace detail {
// Whether V is a block with exactly S's lanes and element type T: its array can be used as is.
template <class V, class T, class S>
constexpr bool same_lanes() {
  if constexpr (Block<V>)
    return shape_of<V>::size == S::size && std::is_same_v<elem_of<V>, T>;
  else
    return false;
}

// The elements of x as an Eigen expression of element type R and shape S (broadcast if needed):
// x's own array, by reference, when nothing changes (a 4 KB copy per operand otherwise).
template <class R, class S, class X>
decltype(auto) as_array(const X& x) {
  using A = Eigen::Array<R, S::size, 1>;
  if constexpr (Scalar<X>) {
    return A::Constant(static_cast<R>(x));
  } else {
    using XS = shape_of<X>;
    if constexpr (XS::size == S::size && std::is_same_v<elem_of<X>, R>) {
      return x.arr();
    } else if constexpr (XS::size == S::size) {
      return x.arr().template cast<R>();
    } else {
      A out;
      const auto* xv = x.data();
      for (int r = 0; r < S::rows; ++r)
        for (int c = 0; c < S::cols; ++c)
          out[r * S::cols + c] =
              static_cast<R>(xv[(XS::rows == 1 ? 0 : r) * XS::cols + (XS::cols == 1 ? 0 : c)]);
      return out;
    }
  }
}

// Apply f to x and y broadcast to a common shape, computing in element type C and producing Out.
template <class Out, class C, class X, class Y, class F>
auto zip(const X& x, const Y& y, F f) {
  using S = typename shape_join<shape_of<X>, shape_of<Y>>::type;
  constexpr int W = join_waves<X, Y>();
  using O = std::conditional_t<std::is_void_v<Out>, C, Out>;
  return basic_block<O, S, W>::from(f(as_array<C, S>(x), as_array<C, S>(y)).template cast<O>());
}

template <class T>
using cmp_t = T;

// The affine form of an operand of an integer op computed in C, seen in the result's shape S.
template <class S, class C, class X>
affine form_in(const X& x) {
  if constexpr (Scalar<X>)
    return affine_const(static_cast<int64_t>(static_cast<C>(x)));
  else if constexpr (is_int<elem_of<X>>)
    return broadcast_affine<shape_of<X>>(x.aff);
  else
    return {};
}
template <char Op, class C, class Out, class X, class Y>
affine arith_affine(const X& x, const Y& y) {
  using S = typename Out::shape_type;
  return fit_affine<C, S::rows, S::cols>(combine_affine<Op>(form_in<S, C>(x), form_in<S, C>(y)));
}

// i32 +, -, *: computed with two's-complement wrap-around, as the GPU does (and without the
// undefined behaviour of signed overflow in the interpreter). While the overflow check is on, the
// exact result is computed in i64 too; lanes where they differ are noted on the program and
// reported, with a source line, at its next memory operation (operators have no
// source_location of their own).
// One i32 operand seen in the result's shape S, a row at a time: row r is either S::cols lanes
// from a pointer (a block of S's lanes, or a row vector broadcast down) or one value (a number,
// or a column vector's r-th lane broadcast across). Other operands (another element type, other
// broadcasts) are copied into S's lanes first.
template <class S, class X>
struct i32_rows {
  static constexpr bool number = Scalar<X>;
  using XS = std::conditional_t<number, shape<1, 1>, shape_of<X>>;
  static constexpr bool i32 = !number && std::is_same_v<elem_of<X>, int32_t>;
  static constexpr bool full = i32 && XS::size == S::size;
  static constexpr bool row = i32 && !full && XS::rows == 1 && XS::cols == S::cols;
  static constexpr bool col = i32 && !full && XS::cols == 1 && XS::rows == S::rows;
  static constexpr bool copied = !number && !full && !row && !col;
  // Whether row r is a value (else a pointer); the same for every row.
  static constexpr bool value = number || col;
  std::conditional_t<copied, Eigen::Array<int32_t, S::size, 1>, char> copy{};
  const int32_t* p = nullptr;
  int32_t scalar = 0;
  explicit i32_rows(const X& x) {
    if constexpr (number) {
      scalar = static_cast<int32_t>(x);
    } else if constexpr (copied) {
      copy = as_array<int32_t, S>(x);
      p = copy.data();
    } else {
      p = x.data();
    }
  }
  const int32_t* row_ptr(int r) const { return (full || copied) ? p + r * S::cols : p; }
  int32_t row_value(int r) const { return number ? scalar : p[r]; }
  // Lane i of the result's shape.
  int32_t operator[](int i) const {
    if constexpr (value)
      return row_value(i / S::cols);
    else if constexpr (row)
      return p[i % S::cols];
    else
      return p[i];
  }
};

template <char Op>
inline int32_t wrap_i32(int32_t p, int32_t q) {
  const uint32_t a = static_cast<uint32_t>(p), b = static_cast<uint32_t>(q);
  if constexpr (Op == '+')
    return static_cast<int32_t>(a + b);
  else if constexpr (Op == '-')
    return static_cast<int32_t>(a - b);
  else
    return static_cast<int32_t>(a * b);
}
template <char Op>
inline int64_t exact_i64(int32_t p, int32_t q) {
  if constexpr (Op == '+')
    return int64_t(p) + q;
  else if constexpr (Op == '-')
    return int64_t(p) - q;
  else
    return int64_t(p) * q;
}

// Whether r, the wrapped result of p Op q, differs from the exact one: sign tests in 32 bits for
// + and - (vectorisable without 64-bit compares), the exact product for *.
template <char Op>
inline int wrapped_i32(int32_t p, int32_t q, int32_t r) {
  if constexpr (Op == '+')
    return static_cast<int>(static_cast<uint32_t>((p ^ r) & (q ^ r)) >> 31);
  else if constexpr (Op == '-')
    return static_cast<int>(static_cast<uint32_t>((p ^ q) & (p ^ r)) >> 31);
  else
    return exact_i64<Op>(p, q) != r;
}

// The lanes p for which p * q fits in i32: [lo, hi]. A product with one value is then tested by
// two 32-bit compares per lane (vectorisable) instead of a 64-bit product.
struct i32_factor_range {
  int32_t lo = INT32_MIN, hi = INT32_MAX;
  explicit i32_factor_range(int32_t q) {
    if (q > 0) {
      lo = INT32_MIN / q, hi = INT32_MAX / q;  // division truncates toward zero: ceil, floor
    } else if (q == -1) {
      lo = -INT32_MAX;
    } else if (q < 0) {
      lo = INT32_MAX / q, hi = INT32_MIN / q;
    }
  }
};

// n lanes of p Op q into o, each operand a pointer or a value; the number of lanes that wrapped
// when `count` (else 0).
template <char Op, bool PA, bool PB>
int i32_run(const int32_t* ap, int32_t av, const int32_t* bp, int32_t bv, int32_t* o, int n,
            bool count) {
  auto A = [&](int i) {
    if constexpr (PA)
      return ap[i];
    else
      return av;
  };
  auto B = [&](int i) {
    if constexpr (PB)
      return bp[i];
    else
      return bv;
  };
  for (int i = 0; i < n; ++i) o[i] = wrap_i32<Op>(A(i), B(i));
  if (!count) return 0;
  int bad = 0;
  if constexpr (Op == '*' && PA != PB) {
    const i32_factor_range f(PA ? bv : av);
    for (int i = 0; i < n; ++i) {
      const int32_t x = PA ? A(i) : B(i);
      bad += (x < f.lo) | (x > f.hi);
    }
  } else {
    for (int i = 0; i < n; ++i) bad += wrapped_i32<Op>(A(i), B(i), o[i]);
  }
  return bad;
}

template <char Op, class X, class Y>
auto i32_arith(const X& x, const Y& y) {
  using S = typename shape_join<shape_of<X>, shape_of<Y>>::type;
  constexpr int W = join_waves<X, Y>();
  using B = basic_block<int32_t, S, W>;
  // A known form whose exact values fit in i32 (fit_affine) cannot have wrapped: the lanes can
  // wait until something reads them.
  const affine form = arith_affine<Op, int32_t, B>(x, y);
  if (form.known) return B::lazy(form);
  const i32_rows<S, X> a(x);
  const i32_rows<S, Y> b(y);
  using RA = i32_rows<S, X>;
  using RB = i32_rows<S, Y>;
  constexpr bool PA = !RA::value, PB = !RB::value;
  B out;
  int32_t* o = out.data();
  const bool count = value_checks.load(std::memory_order_relaxed) & checks::overflow;
  int bad = 0;
  // Operands that are the same in every row (whole blocks, numbers) go as one run of lanes;
  // broadcasts a row at a time, each row a straight vector loop.
  constexpr bool flat = !RA::row && !RA::col && !RB::row && !RB::col;
  if constexpr (flat)
    bad = i32_run<Op, PA, PB>(a.p, a.scalar, b.p, b.scalar, o, S::size, count);
  else
    for (int r = 0; r < S::rows; ++r)
      bad += i32_run<Op, PA, PB>(PA ? a.row_ptr(r) : nullptr, PA ? 0 : a.row_value(r),
                                 PB ? b.row_ptr(r) : nullptr, PB ? 0 : b.row_value(r),
                                 o + r * S::cols, S::cols, count);
  if (bad) [[unlikely]] {
    int first = 0;
    while (exact_i64<Op>(a[first], b[first]) == o[first]) ++first;
    note_i32_overflow(Op, a[first], b[first], bad);
  }
  return out;
}

// i64 +, -, *: as zip, keeping the affine form.
template <char Op, class X, class Y, class F>
auto i64_arith(const X& x, const Y& y, F f) {
  using B =
      basic_block<int64_t, typename shape_join<shape_of<X>, shape_of<Y>>::type, join_waves<X, Y>()>;
  const affine form = arith_affine<Op, int64_t, B>(x, y);
  if (form.known) return B::lazy(form);
  return zip<void, int64_t>(x, y, f);
}

// A comparison of two integer operands whose forms are known, when it comes out the same in
// every lane: 1 (all true) or 0 (all false); -1 when it depends on the lane.
template <char Op, char Op2, class S, class C, class X, class Y>
int uniform_compare(const X& x, const Y& y) {
  if constexpr (!is_int<C> || (Scalar<X> && Scalar<Y>)) {
    return -1;
  } else {
    const affine d = combine_affine<'-'>(form_in<S, C>(x), form_in<S, C>(y));
    if (!d.known) return -1;
    const int64_t lo = d.lo<S::rows, S::cols>(), hi = d.hi<S::rows, S::cols>();
    bool t = false, f = false;  // x - y in [lo, hi]: known true everywhere, or false everywhere
    if constexpr (Op == '<' && Op2 == ' ') t = hi < 0, f = lo >= 0;
    if constexpr (Op == '<' && Op2 == '=') t = hi <= 0, f = lo > 0;
    if constexpr (Op == '>' && Op2 == ' ') t = lo > 0, f = hi <= 0;
    if constexpr (Op == '>' && Op2 == '=') t = lo >= 0, f = hi < 0;
    if constexpr (Op == '=' && Op2 == '=') t = lo == 0 && hi == 0, f = hi < 0 || lo > 0;
    if constexpr (Op == '!' && Op2 == '=') t = hi < 0 || lo > 0, f = lo == 0 && hi == 0;
    return t ? 1 : (f ? 0 : -1);
  }
}

// & and | of bool operands when a known-uniform side decides the result: 1 or 0, else -1.
template <char Op, class X, class Y>
int uniform_logic(const X& x, const Y& y) {
  auto one = [](const auto& v) -> int {
    if constexpr (Scalar<std::remove_cvref_t<decltype(v)>>)
      return v ? 1 : 0;
    else
      return v.known_uniform();
  };
  const int a = one(x), b = one(y);
  constexpr int absorbing = Op == '&' ? 0 : 1;
  if (a == absorbing || b == absorbing) return absorbing;
  if (a >= 0 && b >= 0) return 1 - absorbing;
  return -1;
}
}  // namespace detail

namespace detail {
// f32 operands of one shape (or a number with one): the operation is fused (fused.hpp).
template <class X>
concept F32Block = Block<X> && std::is_same_v < elem_of<X>,
float > ;
template <class X>
concept Number =
    std::is_arithmetic_v<std::remove_cvref_t<X>> && !std::is_same_v<std::remove_cvref_t<X>, bool>;
template <class X, class Y>
concept Fusable = (F32Block<X> && F32Block<Y> && std::is_same_v<shape_of<X>, shape_of<Y>> &&
                   waves_of<X> == waves_of<Y>) ||
                  (F32Block<X> && Number<Y>) || (Number<X> && F32Block<Y>);
template <char Op, class X, class Y>
auto fuse(X&& x, Y&& y);
template <char Op, class T, class S, int W, class Y>
void update(basic_block<T, S, W>& b, const Y& y);
}  // namespace detail

// Arithmetic, comparisons and bitwise operators: blocks with blocks or scalars, broadcasting.
#define BV_ARITH(op, ch)                                               \
  template <class X, class Y>                                          \
  requires detail::BinaryOperands<X, Y>                                \
  auto operator op(X&& x, Y&& y) {                                     \
    using C = typename detail::result_elem<X, Y>::type;                \
    auto f = [](const auto& a, const auto& b) { return a op b; };      \
    if constexpr (detail::Fusable<X, Y>)                               \
      return detail::fuse<ch>(std::forward<X>(x), std::forward<Y>(y)); \
    else if constexpr (std::is_same_v<C, int32_t> && ch != '/')        \
      return detail::i32_arith<ch>(x, y);                              \
    else if constexpr (std::is_same_v<C, int64_t> && ch != '/')        \
      return detail::i64_arith<ch>(x, y, f);                           \
    else                                                               \
      return detail::zip<void, C>(x, y, f);                            \
  }
BV_ARITH_OPS(BV_ARITH)
#undef BV_ARITH

#define BV_CMP(op, c1, c2)                                                                  \
  template <class X, class Y>                                                               \
  requires detail::BinaryOperands<X, Y>                                                     \
  auto operator op(const X& x, const Y& y) {                                                \
    using C = typename detail::result_elem<X, Y>::type;                                     \
    using S = typename detail::shape_join<detail::shape_of<X>, detail::shape_of<Y>>::type;  \
    using B = basic_block<bool, S, detail::join_waves<X, Y>()>;                             \
    if (const int u = detail::uniform_compare<c1, c2, S, C>(x, y); u >= 0)                  \
      return B::uniform(u == 1);                                                            \
    return detail::zip<bool, C>(x, y, [](const auto& a, const auto& b) { return a op b; }); \
  }
BV_COMPARE_OPS(BV_CMP)
#undef BV_CMP

#define BV_BITWISE(op, name)                                                                     \
  template <class X, class Y>                                                                    \
  requires detail::BinaryOperands<X, Y>                                                          \
  auto operator op(const X& x, const Y& y) {                                                     \
    using C = typename detail::result_elem<X, Y>::type;                                          \
    static_assert(rules::bitwise<C>());                                                          \
    if constexpr (std::is_same_v<C, bool> && (name[0] == '&' || name[0] == '|')) {               \
      using S = typename detail::shape_join<detail::shape_of<X>, detail::shape_of<Y>>::type;     \
      using B = basic_block<bool, S, detail::join_waves<X, Y>()>;                                \
      if (const int u = detail::uniform_logic<name[0]>(x, y); u >= 0) return B::uniform(u == 1); \
    }                                                                                            \
    return detail::zip<void, C>(x, y, [](const auto& a, const auto& b) {                         \
      return a.binaryExpr(b, [](C p, C q) { return static_cast<C>(p op q); });                   \
    });                                                                                          \
  }
BV_BITWISE_OPS(BV_BITWISE)
#undef BV_BITWISE

template <class X, class Y>
requires detail::BinaryOperands<X, Y>
auto operator%(const X& x, const Y& y) {
  using C = typename detail::result_elem<X, Y>::type;
  return detail::zip<void, C>(x, y, [](const auto& a, const auto& b) {
    return a.binaryExpr(b, [](C p, C q) -> C {
      if constexpr (is_float<C>) {
        return static_cast<C>(std::fmod(static_cast<float>(p), static_cast<float>(q)));
      } else {
        return p % q;
      }
    });
  });
}

// Masks combine with && and || too.
template <class X, class Y>
requires detail::BinaryOperands<X, Y>
auto operator&&(const X& x, const Y& y) { return x & y; }
template <class X, class Y>
requires detail::BinaryOperands<X, Y>
auto operator||(const X& x, const Y& y) { return x | y; }

template <class T, class S, int W>
basic_block<T, S, W> operator-(const basic_block<T, S, W>& x) {
  auto out = basic_block<T, S, W>::from(-x.arr());
  if constexpr (is_int<T>)
    out.aff = detail::fit_affine<T, S::rows, S::cols>(
        detail::combine_affine<'-'>(detail::affine_const(0), x.aff));
  return out;
}
template <class T, class S, int W>
basic_block<bool, S, W> operator!(const basic_block<T, S, W>& x) {
  if constexpr (std::is_same_v<T, bool>)
    if (x.known_uniform() >= 0) return basic_block<bool, S, W>::uniform(x.known_uniform() == 0);
  return basic_block<bool, S, W>::from(
      x.vals().unaryExpr([](T a) { return !static_cast<bool>(a); }));
}
template <class T, class S, int W>
basic_block<T, S, W> operator~(const basic_block<T, S, W>& x) {
  static_assert(rules::bit_not<T>());
  if constexpr (std::is_same_v<T, bool>)
    return !x;
  else
    return basic_block<T, S, W>::from(x.vals().unaryExpr([](T a) { return static_cast<T>(~a); }));
}

template <class T, class S, int W>
template <class Y>
basic_block<T, S, W>& basic_block<T, S, W>::operator+=(const Y& y) {
  if constexpr (detail::Fusable<basic_block, Y>) {
    detail::update<'+'>(*this, y);  // in place, one pass
    return *this;
  } else {
    return *this = (*this + y).to(dtype<T>{});
  }
}
template <class T, class S, int W>
template <class Y>
basic_block<T, S, W>& basic_block<T, S, W>::operator-=(const Y& y) {
  if constexpr (detail::Fusable<basic_block, Y>) {
    detail::update<'-'>(*this, y);  // in place, one pass
    return *this;
  } else {
    return *this = (*this - y).to(dtype<T>{});
  }
}
template <class T, class S, int W>
template <class Y>
basic_block<T, S, W>& basic_block<T, S, W>::operator*=(const Y& y) {
  if constexpr (detail::Fusable<basic_block, Y>) {
    detail::update<'*'>(*this, y);  // in place, one pass
    return *this;
  } else {
    return *this = (*this * y).to(dtype<T>{});
  }
}
template <class T, class S, int W>
template <class Y>
basic_block<T, S, W>& basic_block<T, S, W>::operator/=(const Y& y) {
  if constexpr (detail::Fusable<basic_block, Y>) {
    detail::update<'/'>(*this, y);  // in place, one pass
    return *this;
  } else {
    return *this = (*this / y).to(dtype<T>{});
  }
}

namespace detail {
// where() on operands with the mask's lanes (or scalars): a straight loop that reads both sides and
// blends them with the mask's bits, which the compiler vectorises (Eigen's select, and a ternary
// on bool, branch per lane). One return statement keeps the result in the caller's slot.
template <class C, class V>
struct lanes_of {  // a block's lanes, or a scalar, read as C
  const C* p = nullptr;
  C k{};
  explicit lanes_of(const V& v) {
    if constexpr (Scalar<V>)
      k = static_cast<C>(v);
    else
      p = v.data();
  }
  C operator[](int i) const {
    if constexpr (Scalar<V>)
      return k;
    else
      return p[i];
  }
};
template <class C>
C blend(uint8_t m, C a, C b) {
  if constexpr (sizeof(C) == 4 || sizeof(C) == 8) {
    using U = std::conditional_t<sizeof(C) == 4, uint32_t, uint64_t>;
    const U k = U(0) - static_cast<U>(m != 0);
    return std::bit_cast<C>(static_cast<U>((std::bit_cast<U>(a) & k) | (std::bit_cast<U>(b) & ~k)));
  } else {
    return m ? a : b;
  }
}
template <class C, class S, class X, class Y>
void select_lanes(C* o, const bool* mask, const X& x, const Y& y) {
  // Read as bytes: GCC vectorises no load of type bool.
  const uint8_t* m = reinterpret_cast<const uint8_t*>(mask);
  const lanes_of<C, X> a(x);
  const lanes_of<C, Y> b(y);
  for (int i = 0; i < S::size; ++i) o[i] = blend<C>(m[i], a[i], b[i]);
}
}  // namespace detail

// where(mask, a, b): a where the mask is set, b elsewhere; all three broadcast together.
template <class M, class X, class Y>
requires(Block<M> && (Block<X> || Scalar<X>)&&(Block<Y> || Scalar<Y>)) auto where(const M& mask,
                                                                                  const X& x,
                                                                                  const Y& y) {
  static_assert(rules::where_mask<detail::elem_of<M>>());
  using R = detail::where_result<M, X, Y>;
  using C = typename R::elem;
  using S = typename R::shape_type;
  constexpr int W = R::waves;
  if constexpr (detail::same_lanes<M, bool, S>() && (Scalar<X> || detail::same_lanes<X, C, S>()) &&
                (Scalar<Y> || detail::same_lanes<Y, C, S>())) {
    basic_block<C, S, W> out;
    // A mask known set everywhere (cols < n with n the block's width) picks x without a pass of
    // its own: a fused x computes its lanes straight into the result.
    if constexpr (Block<X>)
      if (mask.known_uniform() == 1) {
        out = x;
        return out;
      }
    detail::select_lanes<C, S>(out.data(), mask.data(), x, y);
    return out;
  } else {
    return basic_block<C, S, W>::from(detail::as_array<bool, S>(mask).select(
        detail::as_array<C, S>(x), detail::as_array<C, S>(y)));
  }
}

template <class U, class T, class S, int W>
basic_block<U, S, W> cast(const basic_block<T, S, W>& x, dtype<U> d = {}) {
  return x.to(d);
}

// trans(x): rows become columns (tl.trans).
template <class T, int R, int C, int W>
basic_block<T, shape<C, R>, W> trans(const basic_block<T, shape<R, C>, W>& x) {
  basic_block<T, shape<C, R>, W> out;
  Eigen::Map<detail::mat<T, C, R>>(out.data()) = x.grid().transpose();
  if constexpr (is_int<T>) out.aff = {x.aff.known, x.aff.a0, x.aff.ac, x.aff.ar};
  return out;
}

// broadcast_to<R, C>(x): x repeated to a larger shape, as tl.broadcast_to.
template <int... D, class T, class S, int W>
basic_block<T, shape<D...>, W> broadcast_to(const basic_block<T, S, W>& x) {
  static_assert(rules::broadcast_to<(broadcasts_to<S, shape<D...>>)>());
  auto out = basic_block<T, shape<D...>, W>::from(detail::as_array<T, shape<D...>>(x));
  if constexpr (is_int<T>) out.aff = detail::broadcast_affine<S>(x.aff);
  return out;
}

}  // namespace bv

#include "bv/cpu/fused.hpp"
