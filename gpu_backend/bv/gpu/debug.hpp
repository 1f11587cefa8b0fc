// The debugging aids on the GPU, compiled to cheap equivalents or to nothing, so a kernel runs
// unchanged: print_if -> device printf behind the program-id test; breakpoint_if and watch ->
// nothing; device_assert -> a message and a trap; contiguity hints -> the value itself.
#pragma once
#include <cstdio>

#include "bv/condition.hpp"
#include "bv/gpu/block.hpp"
#include "bv/gpu/program.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
// Whether a debug aid's condition holds for this program. A string literal (cond_literal) was
// parsed and checked by the compiler, so only its comparisons remain; a string made at run time
// goes through the same parser here, and a malformed one matches nothing (the interpreter reports
// it). Grammar: bv/condition.hpp. Constexpr so that tests can check it with static_assert.
template <class C>
BV_DI constexpr bool cond_holds(const C& c, int p0, int p1, int p2) {
  if constexpr (std::is_same_v<C, cond_literal>)
    return c.matches(p0, p1, p2);
  else if constexpr (std::is_convertible_v<const C&, const char*>)
    return parse_cond(static_cast<const char*>(c)).matches(p0, p1, p2);
  else if constexpr (requires { c(p0, p1, p2); })
    return static_cast<bool>(c(p0, p1, p2));
  else
    return static_cast<bool>(c(p0));
}

// Conditions other than string literals: a literal must convert to cond_literal (and be checked)
// instead of binding to a template parameter as an array.
template <class C>
concept runtime_cond = !std::is_array_v<C> && !std::is_same_v<C, cond_literal>;

template <class T>
BV_DI void print_value(const T& x) {
  if constexpr (std::is_same_v<T, bool>)
    printf("%s", x ? "true" : "false");
  else if constexpr (is_float<T>)
    printf("%g", static_cast<double>(cvt<float>(x)));
  else if constexpr (std::is_same_v<T, int64_t>)
    printf("%lld", static_cast<long long>(x));
  else if constexpr (std::is_convertible_v<const T&, const char*>)
    printf("%s", static_cast<const char*>(x));
  else
    printf("%d", static_cast<int>(x));
}

template <class X>
BV_DI void print_one(const X& x, int p0, int p1, int p2) {
  if constexpr (!Block<X> && requires { x.get(); }) {
    print_one(x.get(), p0, p1, p2);  // a view (a loaded tile, an accumulator, trans()): its block
  } else if constexpr (Block<X>) {
    using B = std::remove_cvref_t<X>;
    // Each thread prints the elements it owns: one line per element, in no particular order.
    if constexpr (B::rank == 1) {
      const B xs = settled(x);  // (every thread of the program is here: the condition is on ids)
      for (int i = 0; i < B::NF; ++i)
        if (gpu::owner1d<B::size, B::waves>(i)) {
          printf("[pid %d,%d,%d] [%d] = ", p0, p1, p2, gpu::flat_of<B::size, B::waves>(i));
          print_value(xs.f[i]);
          printf("\n");
        }
    } else {
      for (int ri = 0; ri < B::NR; ++ri)
        for (int ci = 0; ci < B::NC; ++ci)
          if (gpu::owner2d<B::rows, B::cols, B::waves>(ri, ci)) {
            printf("[pid %d,%d,%d] [%d,%d] = ", p0, p1, p2,
                   gpu::row_of<B::rows, B::cols, B::waves>(ri),
                   gpu::col_of<B::rows, B::cols, B::waves>(ci));
            print_value(x.v[ri * B::NC + ci]);
            printf("\n");
          }
    }
  } else if (gpu::prim::thread_id() == 0) {
    printf("[pid %d,%d,%d] ", p0, p1, p2);
    print_value(x);
    printf("\n");
  }
}
}  // namespace detail

namespace detail {
template <int W, class C, class... V>
BV_DI void print_if_holds(const program<W>& p, const C& cond, const V&... values) {
  const int a = p.id(0), b = p.id(1), c = p.id(2);
  if (!cond_holds(cond, a, b, c)) return;
  (print_one(values, a, b, c), ...);
}
}  // namespace detail

// print_if(p, cond, "x", x, ...): device printf of every value for the matching programs.
template <int W, class C, class... V>
requires detail::runtime_cond<C> BV_DI void print_if(const program<W>& p, const C& cond,
                                                     const V&... values) {
  detail::print_if_holds(p, cond, values...);
}
template <int W, class... V>
BV_DI void print_if(const program<W>& p, const cond_literal& cond, const V&... values) {
  detail::print_if_holds(p, cond, values...);
}

// breakpoint_if and watch: the interpreter's; nothing on the GPU (a literal condition is still
// checked, so a kernel that compiles here compiles for the interpreter too).
template <int W, class C>
requires detail::runtime_cond<C> BV_DI void breakpoint_if(const program<W>&, const C&) {}
template <int W>
BV_DI void breakpoint_if(const program<W>&, const cond_literal&) {}
template <int W, class X>
BV_DI void watch(const program<W>&, const char*, const X&) {}

// device_assert(p, cond, "message"): every element must hold; otherwise a message and a trap.
template <int W, class X>
BV_DI void device_assert(const program<W>& p, const X& cond, const char* msg) {
  bool ok = true;
  if constexpr (Block<X>) {
    using B = std::remove_cvref_t<X>;
    if constexpr (B::rank == 1) {
      const B cs = detail::settled(cond);
#pragma unroll
      for (int i = 0; i < B::NF; ++i) ok = ok && cvt<bool>(cs.f[i]);
    } else {
#pragma unroll
      for (int i = 0; i < B::NR * B::NC; ++i) ok = ok && cvt<bool>(cond.v[i]);
    }
  } else {
    ok = cvt<bool>(cond);
  }
  if (!ok) {
    printf("device_assert failed in program (%d,%d,%d), thread %d: %s\n", p.id(0), p.id(1), p.id(2),
           gpu::prim::thread_id(), msg);
    gpu::prim::trap();
  }
}

// Contiguity hints: the interpreter verifies them; the GPU takes them as given.
template <class X>
BV_DI X multiple_of(const X& x, int) {
  return x;
}
template <class X>
requires Block<X> BV_DI X max_contiguous(const X& x, int) { return x; }

}  // namespace gpu_lang
}  // namespace bv
