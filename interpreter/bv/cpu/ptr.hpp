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

// A block of addresses: a base and one element offset per lane. When the offsets are affine in
// the lane's (row, column) (affine.hpp), only that form is kept and the offsets are written out
// the first time something needs them lane by lane (a masked edge, a check, a trace): contiguous
// and strided tiles then load and store without a 64-bit offset per lane.
template <class T, class S, int W>
class ptr_block {
 public:
  T* p = nullptr;  // the common base address
  const detail::alloc_info* alloc = nullptr;

  using element_type = T;
  using shape_type = S;
  using offset_block = basic_block<int64_t, S, W>;
  static constexpr int waves = W;
  static constexpr int size = S::size;

  ptr_block() = default;
  ptr_block(T* base, const detail::alloc_info* a, const offset_block& off)
      : p(base), alloc(a), form_(off.aff), have_off_(true), off_(off) {}
  ptr_block(T* base, const detail::alloc_info* a, const detail::affine& form)
      : p(base), alloc(a), form_(form), have_off_(!form.known) {
    if (!form.known) off_.vals().setZero();
  }
  ptr_block(const ptr_block& o) : p(o.p), alloc(o.alloc), form_(o.form_), have_off_(o.have_off_) {
    if (have_off_) off_ = o.off_;
  }
  ptr_block& operator=(const ptr_block& o) {
    p = o.p;
    alloc = o.alloc;
    form_ = o.form_;
    have_off_ = o.have_off_;
    if (have_off_) off_ = o.off_;
    return *this;
  }

  // The offsets' affine form (known or not).
  const detail::affine& form() const { return form_; }
  // The per-lane offsets, written out from the form on first use.
  const offset_block& offsets() const {
    if (!have_off_) {
      // Locals: the stores into off_ could otherwise alias the form and keep the loop scalar.
      const int64_t a0 = form_.a0, ar = form_.ar, ac = form_.ac;
      int64_t* o = off_.data();
      for (int r = 0; r < S::rows; ++r)
        for (int c = 0; c < S::cols; ++c) o[r * S::cols + c] = a0 + ar * r + ac * c;
      off_.aff = form_;
      have_off_ = true;
    }
    return off_;
  }

  operator ptr_block<const T, S, W>() const {
    if (form_.known) return {p, alloc, form_};
    return {p, alloc, off_};
  }

 private:
  detail::affine form_;
  mutable bool have_off_ = false;
  mutable offset_block off_;
};

template <class X>
inline constexpr bool is_ptr_block = false;
template <class T, class S, int W>
inline constexpr bool is_ptr_block<ptr_block<T, S, W>> = true;

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

namespace detail {
// A pointer block over shape S from a base and the offsets' form if known, else from offsets.
template <class T, class S, int W, class F>
ptr_block<T, S, W> make_ptr_block(T* p, const alloc_info* a, const affine& form, F offsets) {
  if (form.known) return {p, a, form};
  return {p, a, offsets()};
}
}  // namespace detail

// ptr + block of offsets
template <class T, detail::IndexBlock B>
auto operator+(ptr<T> a, const B& offs) {
  using S = detail::shape_of<B>;
  constexpr int W = detail::waves_of<B>;
  return detail::make_ptr_block<T, S, W>(a.p, a.alloc,
                                         detail::fit_affine<int64_t, S::rows, S::cols>(offs.aff),
                                         [&] { return offs.to(i64); });
}
template <class T, detail::IndexBlock B>
auto operator+(const B& offs, ptr<T> a) {
  return a + offs;
}

// ptr_block + offsets (block or scalar), broadcasting
template <class T, class S, int W, class B>
requires(detail::IndexBlock<B> || detail::Index<B>) auto operator+(const ptr_block<T, S, W>& a,
                                                                   const B& offs) {
  using R = broadcast_t<S, std::conditional_t<detail::Index<B>, S, detail::shape_of<B>>>;
  const detail::affine form =
      detail::fit_affine<int64_t, R::rows, R::cols>(detail::combine_affine<'+'>(
          detail::broadcast_affine<S>(a.form()), detail::form_in<R, int64_t>(offs)));
  return detail::make_ptr_block<T, R, W>(a.p, a.alloc, form,
                                         [&] { return (a.offsets() + offs).to(i64); });
}
template <class T, class S, int W, class B>
requires(detail::IndexBlock<B> || detail::Index<B>) auto operator+(const B& offs,
                                                                   const ptr_block<T, S, W>& a) {
  return a + offs;
}
template <class T, class S, int W, detail::Index I>
ptr_block<T, S, W> operator-(const ptr_block<T, S, W>& a, I k) {
  return a + (-static_cast<int64_t>(k));
}
template <class T, class S, int W, class B>
requires(detail::IndexBlock<B> || detail::Index<B>) ptr_block<T, S, W>
&operator+=(ptr_block<T, S, W>& a, const B& offs) {
  a = a + offs;
  return a;
}

// Pointer blocks can be expanded like other blocks.
template <class T, int N, int W>
ptr_block<T, shape<1, N>, W> row(const ptr_block<T, shape<N>, W>& a) {
  if (a.form().known) return {a.p, a.alloc, a.form()};
  return {a.p, a.alloc, a.offsets().row()};
}
template <class T, int N, int W>
ptr_block<T, shape<N, 1>, W> col(const ptr_block<T, shape<N>, W>& a) {
  const detail::affine& f = a.form();
  if (f.known) return {a.p, a.alloc, detail::affine{true, f.a0, f.ac, 0}};
  return {a.p, a.alloc, a.offsets().col()};
}

}  // namespace bv
