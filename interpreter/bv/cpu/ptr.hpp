// Pointers into tensors. A ptr<T> is one address with the allocation it belongs to; adding a block
// of integer offsets gives a ptr_block, a block of addresses (Triton's pointer tensors). Every
// address keeps its allocation, so every lane can be checked against it.
#pragma once
#include "bv/cpu/block.hpp"
#include "bv/cpu/runtime.hpp"

namespace bv {

template <class T>
struct ptr {
  T* p = nullptr;
  const detail::alloc_info* alloc = nullptr;

  using element_type = T;
  // The element index of this address within its buffer.
  int64_t index() const {
    return alloc ? static_cast<int64_t>(p - static_cast<T*>(alloc->buffer)) : 0;
  }
  operator ptr<const T>() const { return {p, alloc}; }
};

template <class T, class S, int W>
struct ptr_block {
  T* p = nullptr;  // the common base address
  const detail::alloc_info* alloc = nullptr;
  basic_block<int64_t, S, W> off;  // per-lane element offsets from p

  using element_type = T;
  using shape_type = S;
  static constexpr int waves = W;
  static constexpr int size = S::size;
  operator ptr_block<const T, S, W>() const { return {p, alloc, off}; }
};

template <class X>
inline constexpr bool is_ptr_block = false;
template <class T, class S, int W>
inline constexpr bool is_ptr_block<ptr_block<T, S, W>> = true;

namespace detail {
template <class I>
concept Index = std::is_integral_v<I> && !std::is_same_v<I, bool>;
template <class B>
concept IndexBlock = Block<B> && is_int<elem_of<B>>;
}  // namespace detail

// ptr + scalar, ptr - scalar
template <class T, detail::Index I>
ptr<T> operator+(ptr<T> a, I k) {
  return {a.p + k, a.alloc};
}
template <class T, detail::Index I>
ptr<T> operator+(I k, ptr<T> a) {
  return a + k;
}
template <class T, detail::Index I>
ptr<T> operator-(ptr<T> a, I k) {
  return {a.p - k, a.alloc};
}

// ptr + block of offsets
template <class T, detail::IndexBlock B>
auto operator+(ptr<T> a, const B& offs) {
  using S = detail::shape_of<B>;
  constexpr int W = detail::waves_of<B>;
  ptr_block<T, S, W> out{a.p, a.alloc, {}};
  out.off = offs.to(i64);
  return out;
}
template <class T, detail::IndexBlock B>
auto operator+(const B& offs, ptr<T> a) {
  return a + offs;
}

// ptr_block + offsets (block or scalar), broadcasting
template <class T, class S, int W, class B>
  requires(detail::IndexBlock<B> || detail::Index<B>)
auto operator+(const ptr_block<T, S, W>& a, const B& offs) {
  auto o = a.off + offs;
  using R = decltype(o);
  return ptr_block<T, typename R::shape_type, W>{a.p, a.alloc, o.to(i64)};
}
template <class T, class S, int W, class B>
  requires(detail::IndexBlock<B> || detail::Index<B>)
auto operator+(const B& offs, const ptr_block<T, S, W>& a) {
  return a + offs;
}
template <class T, class S, int W, detail::Index I>
ptr_block<T, S, W> operator-(const ptr_block<T, S, W>& a, I k) {
  return {a.p, a.alloc, a.off - static_cast<int64_t>(k)};
}
template <class T, class S, int W, class B>
  requires(detail::IndexBlock<B> || detail::Index<B>)
ptr_block<T, S, W>& operator+=(ptr_block<T, S, W>& a, const B& offs) {
  a = a + offs;
  return a;
}

// Pointer blocks can be expanded like other blocks.
template <class T, int N, int W>
ptr_block<T, shape<1, N>, W> row(const ptr_block<T, shape<N>, W>& a) {
  return {a.p, a.alloc, a.off.row()};
}
template <class T, int N, int W>
ptr_block<T, shape<N, 1>, W> col(const ptr_block<T, shape<N>, W>& a) {
  return {a.p, a.alloc, a.off.col()};
}

}  // namespace bv
