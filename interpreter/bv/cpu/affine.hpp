// Integer blocks that are affine in their (row, column) index remember that form next to their
// values: arange, pid * BLOCK + arange, row * stride + cols, rows.col() * s + cols.row(). Pointer
// blocks made from them then know they are contiguous (or strided) and in bounds from two
// numbers, and need not write out one 64-bit offset per lane: the fast path of the interpreter's
// loads and stores. The values stay the truth; the form is a claim that is only ever dropped
// (unknown), never guessed: an op that does not know how to carry it gives "unknown".
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace bv::detail {

struct affine {
  bool known = false;
  int64_t a0 = 0, ar = 0, ac = 0;  // value(r, c) = a0 + ar * r + ac * c

  int64_t at(int64_t r, int64_t c) const { return a0 + ar * r + ac * c; }
  // The smallest and largest value over an R x C grid.
  template <int R, int C>
  int64_t lo() const {
    return a0 + std::min<int64_t>(0, ar * (R - 1)) + std::min<int64_t>(0, ac * (C - 1));
  }
  template <int R, int C>
  int64_t hi() const {
    return a0 + std::max<int64_t>(0, ar * (R - 1)) + std::max<int64_t>(0, ac * (C - 1));
  }
};

inline affine affine_const(int64_t v) { return {true, v, 0, 0}; }

// The slot a block keeps its form in: integer blocks only (other blocks pay nothing).
struct no_affine {
  static constexpr bool known = false;
};
template <class T>
using affine_slot =
    std::conditional_t<std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>, affine, no_affine>;

// A block whose form is known need not write its lanes until something reads them one by one
// (the affine state of block_state.hpp): arange, pid * BLOCK + arange and offs < n then cost two
// numbers each in a program that only loads and stores through them.

// The form of a block of shape XS seen in a broadcast to a larger shape: along a dimension of
// size 1 the value does not change.
template <class XS>
affine broadcast_affine(affine f) {
  if (XS::rows == 1) f.ar = 0;
  if (XS::cols == 1) f.ac = 0;
  return f;
}

// Combining two forms; any 64-bit overflow of the coefficients gives "unknown".
template <char Op>
affine combine_affine(const affine& x, const affine& y) {
  affine r;
  if (!x.known || !y.known) return r;
  bool bad = false;
  if constexpr (Op == '+' || Op == '-') {
    auto f = [&](int64_t a, int64_t b) {
      int64_t o;
      bad |= Op == '+' ? __builtin_add_overflow(a, b, &o) : __builtin_sub_overflow(a, b, &o);
      return o;
    };
    r = {true, f(x.a0, y.a0), f(x.ar, y.ar), f(x.ac, y.ac)};
  } else if constexpr (Op == '*') {
    // Affine times a constant stays affine; the product of two varying blocks does not.
    const bool xc = x.ar == 0 && x.ac == 0, yc = y.ar == 0 && y.ac == 0;
    if (!xc && !yc) return r;
    const affine& v = xc ? y : x;
    const int64_t k = xc ? x.a0 : y.a0;
    auto f = [&](int64_t a) {
      int64_t o;
      bad |= __builtin_mul_overflow(a, k, &o);
      return o;
    };
    r = {true, f(v.a0), f(v.ar), f(v.ac)};
  } else {
    return r;
  }
  if (bad) r.known = false;
  return r;
}

// A form is only kept for an element type whose values it describes exactly: an i32 block whose
// affine values leave the i32 range wrapped around, and its form would lie. Coefficients are
// bounded (2^40) so that lo() and hi() cannot overflow for any block size.
template <class T, int R, int C>
affine fit_affine(affine f) {
  static_assert(R <= (1 << 20) && C <= (1 << 20));
  if (!f.known) return f;
  constexpr int64_t lim = int64_t(1) << 40;
  if (f.a0 < -lim || f.a0 > lim || f.ar < -lim || f.ar > lim || f.ac < -lim || f.ac > lim)
    f.known = false;
  else if constexpr (std::is_same_v<T, int32_t>)
    f.known = f.lo<R, C>() >= std::numeric_limits<int32_t>::min() &&
              f.hi<R, C>() <= std::numeric_limits<int32_t>::max();
  else if constexpr (!std::is_same_v<T, int64_t>)
    f.known = false;
  return f;
}

}  // namespace bv::detail
