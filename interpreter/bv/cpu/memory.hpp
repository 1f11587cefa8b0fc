// Masked loads and stores, and atomics (tl.load, tl.store, tl.atomic_*). Every active lane is
// checked against its allocation; a lane outside it is not performed (a load gives `other`, or
// zero; a store is dropped) and the run goes on to report it.
#pragma once
#include <cstring>
#include <source_location>

#include "bv/cpu/access_path.hpp"
#include "bv/cpu/block.hpp"
#include "bv/cpu/nan_reads.hpp"
#include "bv/cpu/ptr.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/cpu/values.hpp"

namespace bv {

namespace detail {
struct no_mask {};
struct no_other {};

// The mask's lanes for a block of shape S: the mask's own array when it already has S's lanes
// (no copy on the common path), else a broadcast copy.
template <class S, class M>
decltype(auto) mask_array(const M& m) {
  if constexpr (same_lanes<M, bool, S>()) {
    static_assert(rules::mask_shape<(broadcasts_to<shape_of<M>, S>)>());
    return (m.vals());
  } else if constexpr (Block<M>) {
    static_assert(rules::mask_block<elem_of<M>>());
    static_assert(rules::mask_shape<(broadcasts_to<shape_of<M>, S>)>());
    // A concrete array, by value: eval() of an array already materialised returns a reference.
    return Eigen::Array<bool, S::size, 1>(as_array<bool, S>(m));
  } else {
    static_assert(rules::mask_scalar<(std::is_same_v<M, bool>)>());
    return Eigen::Array<bool, S::size, 1>(Eigen::Array<bool, S::size, 1>::Constant(m));
  }
}

// Whether a mask is known to have every lane set without reading its lanes (offs < n in an
// interior program: a lazy bool block, affine.hpp), so the access needs no mask at all.
template <class M>
bool mask_known_set(const M& m) {
  if constexpr (std::is_same_v<M, no_mask>)
    return true;
  else if constexpr (Block<M>)
    return m.known_uniform() == 1;
  else
    return m;
}

// Calls run with the mask's lanes, or with null when every lane is known active (no mask at
// all, or a mask known set without reading its lanes).
template <class S, class M, class F>
void with_mask_lanes(const M& mask, F&& run) {
  if (mask_known_set(mask)) {
    run(nullptr);
  } else if constexpr (!std::is_same_v<M, no_mask>) {
    const auto& m = mask_array<S>(mask);
    run(m.data());
  }
}

// Whether every active lane lies inside the buffer (the fast path that needs no check).
// An affine block of offsets (ptr.hpp) answers from its form without reading any offset.
template <class T, class S, int W>
bool all_in_bounds(const ptr_block<T, S, W>& p, int64_t base, int64_t numel, const bool* mask) {
  if (!mask || all_set(mask, S::size)) {
    const affine& f = p.form();
    if (f.known) {
      t_last_span = {};
      return f.lo<S::rows, S::cols>() + base >= 0 && f.hi<S::rows, S::cols>() + base < numel;
    }
    const int64_t* off = p.offsets().data();
    const span_info sp = analyse<S::rows, S::cols>(off);
    t_last_span = {off, sp.row_contiguous};
    return sp.lo + base >= 0 && sp.hi + base < numel;
  }
  t_last_span = {};
  const int64_t* off = p.offsets().data();
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (int i = 0; i < S::size; ++i)
    if (mask[i]) {
      lo = off[i] < lo ? off[i] : lo;
      hi = off[i] > hi ? off[i] : hi;
    }
  return lo > hi || (lo + base >= 0 && hi + base < numel);
}

// One contiguous run of n elements: memcpy when nothing converts (libc's copy uses the widest
// vectors the CPU has, whatever this file was compiled for).
template <class D, class Src>
void copy_run(D* dst, const Src* src, int n) {
  if constexpr (std::is_same_v<std::remove_const_t<Src>, D> && std::is_trivially_copyable_v<D>) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(D));
  } else
    for (int c = 0; c < n; ++c) dst[c] = src[c];
}

// A block that is one contiguous run is most often one of a row of programs walking an array
// (pid * BLOCK + arange): ask for the run that follows it, which the next program will touch.
// The hardware prefetchers stop at page boundaries, and a block of 1024 f32 is exactly a page:
// without this each program starts on a cold page. A wrong guess costs a few cache lines.
// Only inside the buffer: past its end lies other memory (a row norm's w is one run, loaded by
// every program; 64 prefetches of what follows it bought nothing).
template <class T>
void prefetch_next_run(const T* run, int n, bool write, const alloc_info* a) {
  const char* next = reinterpret_cast<const char*>(run + n);
  const size_t bytes = std::min<size_t>(static_cast<size_t>(n) * sizeof(T), 8192);
  if (!a || next + bytes > static_cast<const char*>(a->buffer) + a->numel * a->elem_bytes) return;
  for (size_t b = 0; b < bytes; b += 64)
    if (write)
      __builtin_prefetch(next + b, 1, 2);
    else
      __builtin_prefetch(next + b, 0, 2);
}

// Whether a block of shape S at these offsets is one contiguous run of S::size elements.
template <class S>
bool one_run(const affine& f) {
  return f.known && f.ac == 1 && (S::rows == 1 || f.ar == S::cols);
}

// Every lane loaded (stored): one copy when the block is one contiguous run, rows copied whole
// when the offsets are contiguous along rows, a strided walk when they are affine otherwise, a
// gather (scatter) from the offsets else.
template <class U, class T, class S, int W>
void gather_block(U* out, const ptr_block<T, S, W>& p) {
  const affine& f = p.form();
  if (!f.known) return gather_all<S::rows, S::cols>(out, p.p, p.offsets().data());
  if (one_run<S>(f)) {
    const T* src = p.p + f.a0;
    prefetch_next_run(src, S::size, false, p.alloc);
    return copy_run(out, src, S::size);
  }
  // Locals: the stores could alias the form and p.p, which would be read again per lane.
  const T* base = p.p;
  const int64_t a0 = f.a0, ar = f.ar, ac = f.ac;
  for (int r = 0; r < S::rows; ++r) {
    const T* src = base + a0 + ar * r;
    U* dst = out + r * S::cols;
    if (ac == 1)
      copy_run(dst, src, S::cols);
    else
      for (int c = 0; c < S::cols; ++c) dst[c] = src[ac * c];
  }
}
template <class T, class S, int W, class U>
void scatter_block(const ptr_block<T, S, W>& p, const U* vals) {
  const affine& f = p.form();
  if (!f.known) return scatter_all<S::rows, S::cols>(p.p, p.offsets().data(), vals);
  if (one_run<S>(f)) {
    T* dst = p.p + f.a0;
    prefetch_next_run(dst, S::size, true, p.alloc);
    return copy_run(dst, vals, S::size);
  }
  T* base = p.p;  // locals, as in gather_block
  const int64_t a0 = f.a0, ar = f.ar, ac = f.ac;
  for (int r = 0; r < S::rows; ++r) {
    T* dst = base + a0 + ar * r;
    const U* src = vals + r * S::cols;
    if (ac == 1)
      copy_run(dst, src, S::cols);
    else
      for (int c = 0; c < S::cols; ++c) dst[ac * c] = src[c];
  }
}

// The values to store as an array of T with S's lanes: the block's own array when it already is
// one (no copy on the common path), else a converted, broadcast copy.
template <class T, class S, class V>
decltype(auto) values_array(const V& value) {
  if constexpr (same_lanes<V, T, S>())
    return value.arr();
  else
    return Eigen::Array<T, S::size, 1>(as_array<T, S>(value));
}

// Before a store into an allocation: the views reading its buffer copy their lanes in (an
// unbound pointer could be anywhere: every view does).
inline void settle_views_of(const alloc_info* a) {
  if (!t_views.n) return;
  if (!a || a->elem_bytes <= 0) return settle_all_views();
  const char* lo = static_cast<const char*>(a->buffer);
  settle_views(lo, lo + a->numel * a->elem_bytes);
}

template <class T, class S, int W>
access make_access(access_kind kind, const ptr_block<T, S, W>& p, const bool* mask,
                   const std::source_location& loc, const char* op) {
  access a;
  a.kind = kind;
  a.alloc = p.alloc;
  a.base = p.alloc ? static_cast<int64_t>(p.p - static_cast<T*>(p.alloc->buffer)) : 0;
  if (p.form().known)
    a.off = lane_offsets(
        &p,
        [](const void* q) { return static_cast<const ptr_block<T, S, W>*>(q)->offsets().data(); },
        p.form().a0);
  else
    a.off = p.offsets().data();
  a.mask = mask;
  a.all_active = !mask || all_set(mask, S::size);  // once here, not in every check
  a.lanes = S::size;
  a.rows = S::rows;
  a.cols = S::cols;
  a.rank = S::rank;
  a.waves = W;
  const affine& f = p.form();
  a.rows_contiguous = f.known && f.ac == 1;
  a.row_stride = f.ar;
  a.cols_contiguous = f.known && f.ar == 1 && S::rows > 1;
  a.col_stride = f.ac;
  a.loc = &loc;
  a.op = op;
  return a;
}

// Offsets count whole elements, so every lane shares the base's alignment: one test.
template <class T, class S, int W>
bool aligned(const ptr_block<T, S, W>& p) {
  return reinterpret_cast<uintptr_t>(p.p) % alignof(T) == 0;
}
// all_in_bounds for a pointer bound to a tensor, from the tensor's buffer.
template <class T, class S, int W>
bool all_in_bounds(const ptr_block<T, S, W>& p, const bool* mask) {
  const int64_t base = static_cast<int64_t>(p.p - static_cast<T*>(p.alloc->buffer));
  return all_in_bounds(p, base, p.alloc->numel, mask);
}

// Decide which lanes to perform; null means "every active lane".
template <class T, class S, int W>
const bool* admit(access_kind kind, const ptr_block<T, S, W>& p, const bool* mask,
                  const std::source_location& loc, const char* op, bool has_other,
                  const uint8_t* value_class = nullptr) {
  if (!p.alloc) {
    // A pointer that was never bound to a tensor: nothing can be checked or performed.
    access a = make_access(kind, p, mask, loc, op);
    a.has_other = has_other;
    return on_access(a, false);
  }
  const bool misaligned = !aligned(p);
  const bool inb = !misaligned && all_in_bounds(p, mask);
  if (inb && hooks.load(std::memory_order_relaxed) == 0) return nullptr;
  access a = make_access(kind, p, mask, loc, op);
  a.has_other = has_other;
  a.value_class = value_class;
  a.misaligned = misaligned;
  return on_access(a, inb);
}

// Stores and atomics: classify the values written when a value check is on (null: all clean).
template <class A>
const uint8_t* classify_values(const A& vals, const bool* mask) {
  if (!value_checks_on()) return nullptr;
  using T = typename A::Scalar;
  thread_local std::vector<uint8_t> buf;
  buf.resize(static_cast<size_t>(vals.size()));
  return classify<T>(vals.data(), static_cast<int>(vals.size()), mask, buf.data()) ? buf.data()
                                                                                   : nullptr;
}

// Whether the active lanes of n loaded values hold NaN/Inf that no check's tag explains (read
// from memory, not made by the uninit or masked checks).
template <class U>
bool holds_nonfinite(const U* v, int n, const bool* mask) {
  if (all_finite(v, n)) return false;
  thread_local std::vector<uint8_t> buf;
  buf.resize(static_cast<size_t>(n));
  return (classify(v, n, mask, buf.data()) & (1u << vc_nonfinite)) != 0;
}
// The same for a view's N lanes at mem (every lane active), in the form views.hpp calls later.
template <class U, int N>
bool reads_nonfinite(const void* mem) {
  return holds_nonfinite(static_cast<const U*>(mem), N, nullptr);
}

// After a masked load without `other`: give the masked-off lanes a tracked poison (masked check),
// and note NaN/Inf read from memory so the nan check does not blame the kernel for them.
template <class U, class S, int W>
void after_load(basic_block<U, S, W>& out, const bool* mask, bool has_other) {
  constexpr int N = S::size;
  const uint32_t vc = value_checks.load(std::memory_order_relaxed);
  if (!vc) return;
  if (mask && !has_other && (vc & checks::masked) && !std::is_same_v<U, bool> &&
      !all_set(mask, N)) {
    U* v = out.data();
    for (int i = 0; i < N; ++i)
      if (!mask[i]) v[i] = masked_value<U>();
  }
  if constexpr (is_float<U>) {
    if (!(vc & checks::nan)) return;
    // A view's values are tested later (nan_reads.hpp says why); a view has every lane.
    if (out.is_view()) return nan_watch_view(&out, &reads_nonfinite<U, N>);
    if (holds_nonfinite(out.read(), N, mask)) nan_note_read();
  }
}

// Whether a whole load of U x S is worth reading in place (views.hpp) rather than copying.
template <class U, class S>
inline constexpr bool viewable = !std::is_same_v<U, bool> && sizeof(U) * S::size >= 512;

template <class T, class S, int W, class M, class O>
auto load_impl(const ptr_block<T, S, W>& p, const M& mask, const O& other,
               const std::source_location& loc) {
  using U = std::remove_const_t<T>;
  constexpr bool has_other = !std::is_same_v<O, no_other>;
  static_assert(rules::other_needs_mask<(!has_other || !std::is_same_v<M, no_mask>)>());
  if constexpr (has_other) static_assert(rules::load_other<T, elem_of<O>>());
  basic_block<U, S, W> out;
  // mp: the mask's lanes, or null when every lane is active.
  auto run = [&](const bool* mp) {
    const bool* ok = admit(access_kind::load, p, mp, loc, "load", has_other);
    if (!ok && (!mp || all_set(mp, S::size))) {
      const affine& f = p.form();
      if constexpr (viewable<U, S>)
        if (one_run<S>(f)) {
          const U* src = p.p + f.a0;
          prefetch_next_run(src, S::size, false, p.alloc);
          if (out.view_of(src)) return after_load(out, mp, has_other);
        }
      gather_block(out.data(), p);
    } else {
      U* o = out.data();
      // Lanes not loaded hold `other`, or zero.
      if constexpr (has_other)
        out.vals() = as_array<U, S>(other);
      else
        out.vals().setZero();
      // A local base: the stores into o could alias p.p, which would be read again per lane.
      const T* base = p.p;
      const int64_t* off = p.offsets().data();
      for (int i = 0; i < S::size; ++i)
        if ((!mp || mp[i]) && (!ok || ok[i])) o[i] = base[off[i]];
    }
    after_load(out, mp, has_other);
  };
  with_mask_lanes<S>(mask, run);
  return out;
}

template <class T, class S, int W, class V, class M>
void store_impl(const ptr_block<T, S, W>& p, const V& value, const M& mask,
                const std::source_location& loc) {
  static_assert(rules::store_writable<T>());
  static_assert(rules::store_shape<(Scalar<V> || broadcasts_to<shape_of<V>, S>)>());
  settle_views_of(p.alloc);
  // The lanes performed: all (ok null, every lane active) or those ok and mp allow.
  auto perform = [&](const T* src, const bool* mp, const bool* ok) {
    if (!ok && (!mp || all_set(mp, S::size))) {
      scatter_block(p, src);
    } else {
      T* base = p.p;  // local, as in load_impl
      const int64_t* off = p.offsets().data();
      for (int i = 0; i < S::size; ++i)
        if ((!mp || mp[i]) && (!ok || ok[i])) base[off[i]] = src[i];
    }
  };
  if constexpr (is_fused<V> && same_lanes<V, T, S>()) {
    // A fused value (fused.hpp) whose store is one whole run, in bounds, under a schedule that
    // does not stop at the access (no debugger stepping, no shuffled preemption) is computed
    // straight into memory, and the value checks classify what was written: the access reaches
    // the checks with the same classes it would have had, one pass and one copy sooner.
    // The one whole run, computed in place.
    auto compute_in_memory = [&] {
      float* dst = p.p + p.form().a0;
      prefetch_next_run(dst, S::size, true, p.alloc);
      value.eval_into(dst);
      return dst;
    };
    if (value.pending() && value_checks_on() && mask_known_set(mask) && p.alloc &&
        one_run<S>(p.form()) && stores_write_first() && aligned(p) && all_in_bounds(p, nullptr)) {
      const Eigen::Map<const Eigen::Array<float, S::size, 1>> written(compute_in_memory());
      admit(access_kind::store, p, nullptr, loc, "store", false, classify_values(written, nullptr));
      return note_progress();
    }
    // With no value check to classify it first: computed straight into memory when the store is
    // one whole run, into its own lanes otherwise.
    if (value.pending() && !value_checks_on()) {
      with_mask_lanes<S>(mask, [&](const bool* mp) {
        const bool* ok = admit(access_kind::store, p, mp, loc, "store", false);
        if (!ok && (!mp || all_set(mp, S::size)) && one_run<S>(p.form()) && value.pending()) {
          compute_in_memory();
        } else {
          perform(value.read(), mp, ok);
        }
      });
      return note_progress();
    }
  }
  const auto& vals = values_array<T, S>(value);
  auto run = [&](const bool* mp) {
    const bool* ok =
        admit(access_kind::store, p, mp, loc, "store", false, classify_values(vals, mp));
    // admit may have yielded (the shuffled schedule), which settles a view: read its lanes anew.
    const T* src = vals.data();
    if constexpr (same_lanes<V, T, S>()) src = value.read();
    perform(src, mp, ok);
  };
  with_mask_lanes<S>(mask, run);
  note_progress();
}

template <class T>
ptr_block<T, shape<1>, 1> as_block(ptr<T> p) {
  return ptr_block<T, shape<1>, 1>{p.p, p.alloc, affine_const(0)};
}
}  // namespace detail

// load(p), load(p, mask), load(p, mask, other)
template <class T, class S, int W>
auto load(const ptr_block<T, S, W>& p, std::source_location loc = std::source_location::current()) {
  return detail::load_impl(p, detail::no_mask{}, detail::no_other{}, loc);
}
template <class T, class S, int W, class M>
requires(Block<M> || std::is_same_v<M, bool>) auto load(
    const ptr_block<T, S, W>& p, const M& mask,
    std::source_location loc = std::source_location::current()) {
  return detail::load_impl(p, mask, detail::no_other{}, loc);
}
template <class T, class S, int W, class M, class O>
requires((Block<M> || std::is_same_v<M, bool>)&&(Block<O> || Scalar<O>)) auto load(
    const ptr_block<T, S, W>& p, const M& mask, const O& other,
    std::source_location loc = std::source_location::current()) {
  return detail::load_impl(p, mask, other, loc);
}
// A scalar load: one address, one value.
template <class T>
std::remove_const_t<T> load(ptr<T> p, std::source_location loc = std::source_location::current()) {
  return detail::load_impl(detail::as_block(p), detail::no_mask{}, detail::no_other{}, loc)[0];
}

template <class T, class S, int W, class V>
requires(Block<V> ||
         Scalar<V>) void store(const ptr_block<T, S, W>& p, const V& value,
                               std::source_location loc = std::source_location::current()) {
  detail::store_impl(p, value, detail::no_mask{}, loc);
}
template <class T, class S, int W, class V, class M>
requires((Block<V> || Scalar<V>)&&(Block<M> || std::is_same_v<M, bool>)) void store(
    const ptr_block<T, S, W>& p, const V& value, const M& mask,
    std::source_location loc = std::source_location::current()) {
  detail::store_impl(p, value, mask, loc);
}
template <class T, class V>
requires Scalar<V>
void store(ptr<T> p, V value, std::source_location loc = std::source_location::current()) {
  detail::store_impl(detail::as_block(p), value, detail::no_mask{}, loc);
}

// Atomics. Each returns the values memory held before. atomic_cas on a scalar pointer is the
// building block of locks: when it fails, the program yields so that the holder can go on.
namespace detail {
enum class rmw { add, max, min, xchg };

template <class T, class S, int W, class V, class M>
auto atomic_impl(rmw op, const ptr_block<T, S, W>& p, const V& value, const M& mask,
                 const std::source_location& loc, const char* name) {
  static_assert(rules::atomic_operand<T>());
  settle_all_views();
  const auto vals = as_array<T, S>(value).eval();
  basic_block<T, S, W> old;
  old.vals().setZero();
  Eigen::Array<bool, S::size, 1> m;
  if constexpr (std::is_same_v<M, no_mask>)
    m.setConstant(true);
  else
    m = mask_array<S>(mask);
  const bool* ok =
      admit(access_kind::atomic, p, m.data(), loc, name, false, classify_values(vals, m.data()));
  // atomic_xchg on one address is how a lock taken with atomic_cas is released (race check).
  if (op == rmw::xchg && S::size == 1 && hooks.load(std::memory_order_relaxed))
    on_lock(p.p + p.offsets()[0], false);
  for (int i = 0; i < S::size; ++i) {
    if (!m[i] || (ok && !ok[i])) continue;
    T* a = p.p + p.offsets()[i];
    atomic_lock(a);
    old[i] = *a;
    switch (op) {
      case rmw::add:
        *a = static_cast<T>(*a + vals[i]);
        break;
      case rmw::max:
        if (vals[i] > *a) *a = vals[i];
        break;
      case rmw::min:
        if (vals[i] < *a) *a = vals[i];
        break;
      case rmw::xchg:
        *a = vals[i];
        break;
    }
    atomic_unlock(a);
  }
  note_progress();
  return old;
}
}  // namespace detail

#define BV_ATOMIC(name, op)                                                                     \
  template <class T, class S, int W, class V>                                                   \
  requires(Block<V> || Scalar<V>) auto name(                                                    \
      const ptr_block<T, S, W>& p, const V& v,                                                  \
      std::source_location loc = std::source_location::current()) {                             \
    return detail::atomic_impl(detail::rmw::op, p, v, detail::no_mask{}, loc, #name);           \
  }                                                                                             \
  template <class T, class S, int W, class V, class M>                                          \
  requires((Block<V> || Scalar<V>)&&(Block<M> || std::is_same_v<M, bool>)) auto name(           \
      const ptr_block<T, S, W>& p, const V& v, const M& mask,                                   \
      std::source_location loc = std::source_location::current()) {                             \
    return detail::atomic_impl(detail::rmw::op, p, v, mask, loc, #name);                        \
  }                                                                                             \
  template <class T, class V>                                                                   \
  requires Scalar<V> T name(ptr<T> p, V v,                                                      \
                            std::source_location loc = std::source_location::current()) {       \
    return detail::atomic_impl(detail::rmw::op, detail::as_block(p), v, detail::no_mask{}, loc, \
                               #name)[0];                                                       \
  }
BV_ATOMIC_OPS(BV_ATOMIC)
#undef BV_ATOMIC

// atomic_cas(p, expected, desired): if *p == expected, *p = desired; returns the old value.
template <class T, class C, class V>
requires(Scalar<C>&& Scalar<V>) T
    atomic_cas(ptr<T> p, C expected, V desired,
               std::source_location loc = std::source_location::current()) {
  static_assert(rules::cas_operand<T>());
  detail::settle_all_views();
  auto b = detail::as_block(p);
  Eigen::Array<bool, 1, 1> m;
  m[0] = true;
  const bool* ok =
      detail::admit(detail::access_kind::atomic, b, m.data(), loc, "atomic_cas", false);
  if (ok && !ok[0]) return T{};
  const uint64_t seen = detail::progress_epoch();
  detail::atomic_lock(p.p);
  const T old = *p.p;
  const bool swapped = old == static_cast<T>(expected);
  if (swapped) *p.p = static_cast<T>(desired);
  detail::atomic_unlock(p.p);
  if (swapped && old != static_cast<T>(desired) && detail::hooks.load(std::memory_order_relaxed))
    detail::on_lock(p.p, true);
  if (swapped)
    detail::note_progress();
  else
    detail::wait_for_progress(loc, seen);  // a spin loop: let the lock holder run
  return old;
}

}  // namespace bv
