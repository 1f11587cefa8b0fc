// The states a block value can be in, and every transition between them. Each state is a fast
// path (a block that need not write its lanes, or need not copy them); this file is the only one
// that moves a block from one state to another, so the bookkeeping each state needs (a thread's
// list of views, its list of fused blocks, the readers a fused block counts on) cannot be
// forgotten by an operation that touches lanes.
//
// The states (value_state):
//   owned    the lanes are in the block's own array, v_. The only state with writable lanes.
//   view     a whole, unmasked, contiguous load: the lanes are memory, read in place through
//            view_ (views.hpp says when that memory may change under it).
//   affine   an integer block whose lanes are its affine form (affine.hpp), not written yet.
//   uniform  a bool block whose every lane holds one known value, not written yet.
//   fused    an f32 block whose lanes are an expression over other blocks (fused.hpp), not
//            computed yet.
// affine, uniform and fused are "pending": lz_.pending is set and v_ holds nothing yet.
//
// Invariants, kept by every transition below:
//   I1 view_ is set, lz_.pending is set, or neither: never both.
//   I2 view_ is set exactly while the running thread's view list holds an entry for the block.
//   I3 an f32 block is pending exactly while the thread's fused list holds an entry for it.
//   I4 lz_.readers (f32) counts the fused-list entries that read the block; while it is non-zero
//      the block's lanes must not change and the block must not end without settling them first.
//   I5 an integer block that is pending has a known form (aff.known); a bool block that is
//      pending has a known value (lz_.one >= 0). A known form or value is a claim about the
//      lanes that only ever ends (forget_form): writing a lane ends it.
//
// The transitions:
//   lanes(b)       any state: a pointer to the lanes to read (a view's memory, else v_); pending
//                  lanes are written out first.
//   to_owned(b)    any state -> owned (pending lanes written out, a view's lanes copied in).
//   for_write(b)   any state -> owned, the fused blocks that read b compute their lanes first
//                  (I4), and b's form or uniform value ends (I5): the lanes may now be written.
//   leave(b)       b's value ends (destroyed, or about to be replaced): readers settle (I4), a
//                  pending fused block leaves the fused list (I3), a view leaves the view list
//                  (I2). b holds nothing afterwards.
//   copy_into(b,o) a left or fresh b takes o's value: o's pending form or uniform value, o's
//                  memory in place (a second view), or o's lanes; a pending fused o computes its
//                  lanes first (a copy holds lanes, not an expression that reads other blocks).
//   assign(b,o)    leave(b), then b takes o's value; a pending fused o computes its lanes straight
//                  into b (o stays pending).
//   start_affine(b,f), start_uniform(b,v)  a fresh b becomes pending on a form or one value.
//   start_view(b,src)  a fresh b reads src in place; false when the view list is full.
//   start_fused(b,...) a fresh f32 b becomes a fused block; when the fused list is full its lanes
//                  are computed at once, and it is owned.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bv/cpu/affine.hpp"
#include "bv/cpu/fused_list.hpp"
#include "bv/cpu/views.hpp"
#include "bv/dtype.hpp"

namespace bv::detail {

enum class value_state : uint8_t { owned, view, affine, uniform, fused };

inline const char* value_state_name(value_state s) {
  switch (s) {
    case value_state::owned:
      return "owned";
    case value_state::view:
      return "view";
    case value_state::affine:
      return "affine";
    case value_state::uniform:
      return "uniform";
    case value_state::fused:
      return "fused";
  }
  return "?";
}

// What a block keeps about its pending lanes, per element type (other blocks pay nothing).
// Integer and bool blocks: a form or one value; lanes written out when read one by one.
struct lazy_state {
  bool pending = false;  // the lanes are not written yet
  int8_t one = -1;       // bool blocks: 0 or 1 when every lane is known to hold it, -1 otherwise
};
struct no_lazy {
  static constexpr bool pending = false;
  static constexpr int8_t one = -1;
};
// f32 blocks: a fused expression computed on first read.
struct fused_state {
  bool pending = false;  // the lanes are not computed yet
  // How many registered fused blocks read this block (fused_list.hpp); a copy starts with none.
  mutable uint8_t readers = 0;
  static constexpr int8_t one = -1;
  void (*eval)(const void* block, float* out) = nullptr;  // the fused block's lanes into out
  fused_state() = default;
  fused_state(const fused_state& o) : pending(o.pending), eval(o.eval) {}
  fused_state& operator=(const fused_state& o) {
    pending = o.pending;
    eval = o.eval;
    return *this;
  }
};
template <class T>
using lazy_slot = std::conditional_t<
    std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, bool>, lazy_state,
    std::conditional_t<std::is_same_v<T, float>, fused_state, no_lazy>>;

// n bytes from src to dst through libc's memcpy, which picks the widest moves this CPU has at run
// time. The size is hidden from the compiler on purpose: with a block's constant size GCC expands
// the copy inline instead (`rep movsq`, or a loop of 16-byte moves for the baseline x86-64).
inline void copy_lanes(void* dst, const void* src, std::size_t n) {
  asm("" : "+r"(n));
  std::memcpy(dst, src, n);
}

// The transitions, over a basic_block B (block.hpp), whose state fields they alone change:
// v_ (owned lanes), view_, aff (the form) and lz_ (pending state). Static members of one friend
// class rather than members of the block, so that block.hpp, fused.hpp and memory.hpp go through
// the same code and this file states every state change.
struct block_transitions {
  template <class B>
  static value_state state_of(const B& b) {
    using T = typename B::value_type;
    if (b.view_) return value_state::view;
    if (!b.lz_.pending) return value_state::owned;
    if constexpr (std::is_same_v<T, float>)
      return value_state::fused;
    else if constexpr (std::is_same_v<T, bool>)
      return value_state::uniform;
    else
      return value_state::affine;
  }

  // The fast paths below are always inlined, as they were when they were basic_block's own
  // members (a block is read and copied many times a program); the write-out they may need is not.
  template <class B>
  [[gnu::always_inline]] static const typename B::value_type* lanes(const B& b) {
    if (b.lz_.pending) [[unlikely]]
      write_out(b);
    return b.view_ ? b.view_ : b.v_.data();
  }

  template <class B>
  [[gnu::always_inline]] static void to_owned(const B& b) {
    if (b.lz_.pending) [[unlikely]]
      write_out(b);
    if (b.view_) copy_in(b);
  }

  template <class B>
  static typename B::array& for_write(B& b) {
    to_owned(b);
    settle_readers(b);
    forget_form(b);
    return b.v_;
  }

  // The end of what b's form or uniform value claimed about its lanes (I5); b is owned.
  template <class B>
  static void forget_form(B& b) {
    using T = typename B::value_type;
    if constexpr (is_int<T>) b.aff.known = false;
    if constexpr (std::is_same_v<T, bool>) b.lz_.one = -1;
  }

  // Inlined: every block's destructor runs it, and most blocks end owned with no readers.
  template <class B>
  [[gnu::always_inline]] static void leave(const B& b) {
    settle_readers(b);
    if constexpr (std::is_same_v<typename B::value_type, float>)
      if (b.lz_.pending) {
        b.lz_.pending = false;
        fused_drop(&b);
      }
    end_view(b);
  }

  template <class B, class O>
  [[gnu::always_inline]] static void copy_into(B& b, const O& o) {
    if constexpr (std::is_same_v<typename B::value_type, float>)
      if (o.lz_.pending) write_out(o);
    b.lz_ = o.lz_;
    if (!b.lz_.pending) take_lanes(b, o);
  }

  template <class B>
  static void assign(B& b, const B& o) {
    leave(b);
    b.aff = o.aff;
    if constexpr (std::is_same_v<typename B::value_type, float>) {
      if (o.lz_.pending) {
        o.lz_.eval(&o, b.v_.data());
        b.lz_ = {};
        return;
      }
    }
    b.lz_ = o.lz_;
    if (!b.lz_.pending) take_lanes(b, o);
  }

  // A fresh integer b whose lanes are f (pending when f is known; zero lanes otherwise, for a
  // block made from an unknown form).
  template <class B>
  static void start_affine(B& b, const affine& f) {
    b.aff = f;
    b.lz_.pending = f.known;
    if (!f.known) b.v_.setZero();
  }
  // A fresh bool b whose every lane is `value`.
  template <class B>
  static void start_uniform(B& b, bool value) {
    b.lz_.pending = true;
    b.lz_.one = value ? 1 : 0;
  }

  template <class B>
  static bool start_view(B& b, const typename B::value_type* src) {
    using T = typename B::value_type;
    if (!view_add(&b, src, sizeof(T) * B::size, &settle_view_fn<B>)) return false;
    b.view_ = src;
    return true;
  }

  template <class B>
  static void start_fused(B& b, void (*eval)(const void*, float*), uint8_t* const* leaves, int n) {
    b.lz_.eval = eval;
    if (fused_add(&b, &settle_fused_fn<B>, leaves, n))
      b.lz_.pending = true;
    else
      eval(&b, b.v_.data());  // no room in the list: computed now, as an unfused operator would
  }

  // The count a fused block that reads b registers itself in (I4).
  template <class B>
  static uint8_t* readers_of(const B& b) {
    return &b.lz_.readers;
  }

  // Pending lanes written out (affine, uniform, fused -> owned).
  template <class B>
  [[gnu::noinline]] static void write_out(const B& b) {
    using T = typename B::value_type;
    if constexpr (std::is_same_v<T, float>) {
      // Cleared first: the evaluation may read leaves that settle on the way.
      b.lz_.pending = false;
      fused_drop(&b);
      b.lz_.eval(&b, b.v_.data());
      return;
    } else if constexpr (is_int<T>) {
      // Wrapping unsigned arithmetic: the exact values fit in T (fit_affine), so the sum modulo
      // 2^bits is exact even where a partial product is not. Locals: stores into v_ could
      // otherwise alias the form and keep the loop scalar.
      using U = std::make_unsigned_t<T>;
      const U a0 = static_cast<U>(b.aff.a0), ar = static_cast<U>(b.aff.ar),
              ac = static_cast<U>(b.aff.ac);
      T* o = b.v_.data();
      for (int r = 0; r < B::rows; ++r) {
        const U base = a0 + ar * static_cast<U>(r);
        for (int c = 0; c < B::cols; ++c)
          o[r * B::cols + c] = static_cast<T>(base + ac * static_cast<U>(c));
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      b.v_.setConstant(b.lz_.one == 1);
    }
    if constexpr (!std::is_same_v<lazy_slot<T>, no_lazy>) b.lz_.pending = false;
  }

 private:
  // Before b's lanes change or end: the fused blocks that read it compute theirs (I4).
  template <class B>
  static void settle_readers(const B& b) {
    if constexpr (std::is_same_v<typename B::value_type, float>)
      if (b.lz_.readers) [[unlikely]]
        settle_fused_readers(&b.lz_.readers);
  }
  // view -> owned: the memory's lanes copied in, the view list entry dropped (I2).
  template <class B>
  static void copy_in(const B& b) {
    using T = typename B::value_type;
    copy_lanes(static_cast<void*>(b.v_.data()), b.view_, sizeof(T) * B::size);
    end_view(b);
  }
  template <class B>
  static void end_view(const B& b) {
    if (!b.view_) return;
    b.view_ = nullptr;
    view_drop(&b);
  }
  // b's lanes from o's (o is not pending): o's memory in place when o is a view and the view
  // list has room, else a copy.
  template <class B, class O>
  [[gnu::always_inline]] static void take_lanes(B& b, const O& o) {
    using T = typename B::value_type;
    if (o.view_ && start_view(b, o.view_)) return;
    // libc's copy, not Eigen's assignment (an SSE loop of 16-byte moves, about three times the
    // time for a 4 KB block), paid at every block copy.
    copy_lanes(static_cast<void*>(b.v_.data()),
               o.view_ ? static_cast<const void*>(o.view_) : static_cast<const void*>(o.v_.data()),
               sizeof(T) * B::size);
  }
  // What the lists call back: a view whose memory is about to be written, a fused block one of
  // whose operands is about to change.
  template <class B>
  static void settle_view_fn(const void* b) {
    copy_in(*static_cast<const B*>(b));
  }
  template <class B>
  static void settle_fused_fn(const void* b) {
    write_out(*static_cast<const B*>(b));
  }
};

}  // namespace bv::detail
