// Pointers, pointer blocks, masked and vectorised loads and stores, and atomics on the GPU.
// A ptr_block is a base address and a block of integer offsets (kept in the offsets' own type:
// i32 offsets stay 32-bit, as in Triton). Loads and stores move each thread's contiguous run of
// registers with one vector access when, at run time, its offsets are consecutive, aligned and
// all active; otherwise lane by lane under the mask. Masked-off lanes are never dereferenced.
#pragma once
#include "bv/gpu/block.hpp"
#include "bv/gpu/program.hpp"

namespace bv {
inline namespace gpu_lang {

template <class T>
struct ptr {
  T* p = nullptr;
  using element_type = T;
  template <class U = T>
  requires(!std::is_const_v<U>) BV_HD operator ptr<const U>() const { return {p}; }
};

template <class T, class S, int W, class I = int32_t>
struct ptr_block {
  T* p = nullptr;
  basic_block<I, S, W> off;
  using element_type = T;
  using shape_type = S;
  static constexpr int waves = W;
  static constexpr int size = S::size;
  BV_DI operator ptr_block<const T, S, W, I>() const { return {p, off}; }
};

template <class X>
inline constexpr bool is_ptr_block = false;
template <class T, class S, int W, class I>
inline constexpr bool is_ptr_block<ptr_block<T, S, W, I>> = true;

template <class T, detail::Index I>
BV_DI ptr<T> operator+(ptr<T> a, I k) {
  return {a.p + k};
}
template <class T, detail::Index I>
BV_DI ptr<T> operator+(I k, ptr<T> a) {
  return {a.p + k};
}
template <class T, detail::Index I>
BV_DI ptr<T> operator-(ptr<T> a, I k) {
  return {a.p - k};
}
template <class T, detail::IndexBlock B>
BV_DI auto operator+(ptr<T> a, const B& offs) {
  using R = std::remove_cvref_t<B>;
  return ptr_block<T, typename R::shape_type, R::waves, typename R::value_type>{a.p, offs};
}
template <class T, detail::IndexBlock B>
BV_DI auto operator+(const B& offs, ptr<T> a) {
  return a + offs;
}
template <class T, class S, int W, class I, class B>
requires(detail::IndexBlock<B> || detail::Index<B>) BV_DI auto operator+(
    const ptr_block<T, S, W, I>& a, const B& offs) {
  auto o = a.off + offs;
  using R = decltype(o);
  return ptr_block<T, typename R::shape_type, W, typename R::value_type>{a.p, o};
}
template <class T, class S, int W, class I, class B>
requires(detail::IndexBlock<B> || detail::Index<B>) BV_DI auto operator+(
    const B& offs, const ptr_block<T, S, W, I>& a) {
  return a + offs;
}
template <class T, class S, int W, class I, detail::Index K>
BV_DI ptr_block<T, S, W, I> operator-(const ptr_block<T, S, W, I>& a, K k) {
  return {a.p, (a.off - static_cast<I>(k)).to(dtype<I>{})};
}
template <class T, class S, int W, class I, class B>
requires(detail::IndexBlock<B> || detail::Index<B>) BV_DI ptr_block<T, S, W, I>
&operator+=(ptr_block<T, S, W, I>& a, const B& offs) {
  a.off = (a.off + offs).to(dtype<I>{});
  return a;
}
template <class T, int N, int W, class I>
BV_DI ptr_block<T, shape<1, N>, W, I> row(const ptr_block<T, shape<N>, W, I>& a) {
  return {a.p, a.off.row()};
}
template <class T, int N, int W, class I>
BV_DI ptr_block<T, shape<N, 1>, W, I> col(const ptr_block<T, shape<N>, W, I>& a) {
  return {a.p, a.off.col()};
}

namespace detail {
struct no_mask {};
struct no_other {};

template <int Bytes>
using raw_vec = std::conditional_t<
    Bytes == 16, uint4,
    std::conditional_t<Bytes == 8, uint2,
                       std::conditional_t<Bytes == 4, uint32_t,
                                          std::conditional_t<Bytes == 2, uint16_t, uint8_t>>>>;

// Whether V registers' offsets are consecutive, all lanes active and the address V-aligned.
template <int V, bool Masked, class T, class I>
BV_DI bool vector_ok(const T* base, const I (&off)[V], const bool (&m)[V]) {
  // Aligned to the access (16 bytes at most: wider runs are moved as several 16-byte pieces).
  constexpr size_t align = V * sizeof(T) < 16 ? V * sizeof(T) : 16;
  bool ok = (reinterpret_cast<uintptr_t>(base + off[0]) % align) == 0;
#if BV_NVIDIA
#pragma unroll
  for (int j = 1; j < V; ++j) ok = ok && off[j] == off[0] + j;
#else
  // As a difference (unsigned: it may wrap where the offsets are far apart). A 2-D block's
  // offsets are a row part plus a column, the column an opaque lane part plus a constant
  // (layout.hpp's col_of): the compiler folds (row + (lane + c + j)) - (row + (lane + c)) to j,
  // not row + (lane + c + j) == (row + (lane + c)) + j. So the runs of an arange's columns are
  // known contiguous at compile time, and the tests no longer hold lane masks across the loops
  // (attention's SGPR spills on gfx942 and gfx90a).
  using U = std::make_unsigned_t<I>;
#pragma unroll
  for (int j = 1; j < V; ++j)
    ok = ok && static_cast<U>(static_cast<U>(off[j]) - static_cast<U>(off[0])) == static_cast<U>(j);
#endif
  if constexpr (Masked) {
#pragma unroll
    for (int j = 0; j < V; ++j) ok = ok && m[j];
  }
  return ok;
}

// The reload of a 1-D block's row and column roles. The device compiler drops it when no
// .row()/.col() uses the role. The emulator's host compiler instruments each load for the
// memory counters before it removes dead code, so there a 1-D load would count its roles' bytes
// as well (3 to 5 times its own): the emulator reads the roles uninstrumented, out of line (IPA
// would otherwise move the read back into the instrumented caller), and does not count them.
template <class U>
#if BV_AMD_EMU
__attribute__((no_sanitize_address, noipa))
#endif
BV_DI U role_load(const U* p) {
  return *p;
}

template <int V, class U>
BV_DI void vload(U* out, const U* addr) {
  constexpr int bytes = V * sizeof(U);
  if constexpr (bytes > 16) {
    vload<V / 2>(out, addr);
    vload<V / 2>(out + V / 2, addr + V / 2);
  } else {
    const raw_vec<bytes> r = *reinterpret_cast<const raw_vec<bytes>*>(addr);
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__) && __clang_major__ < 16
    // clang-15 (Debian's hipcc, gfx90a): a memcpy straight into `out` kept the destination block
    // in scratch where the load sits in one arm of a branch (the norms' row loads); element by
    // element through a local it stays in registers. Newer clangs do better with the memcpy.
    struct elems {
      U e[V];
    };
    elems x;
    __builtin_memcpy(&x, &r, bytes);
#pragma unroll
    for (int j = 0; j < V; ++j) out[j] = x.e[j];
#else
    // Through void*: U may be a class (bv::bfloat16), trivially copyable but with constructors.
    __builtin_memcpy(static_cast<void*>(out), &r, bytes);
#endif
  }
}
template <int V, class U>
BV_DI void vstore(U* addr, const U* in) {
  constexpr int bytes = V * sizeof(U);
  if constexpr (bytes > 16) {
    vstore<V / 2>(addr, in);
    vstore<V / 2>(addr + V / 2, in + V / 2);
  } else {
    raw_vec<bytes> r;
    __builtin_memcpy(&r, in, bytes);
    *reinterpret_cast<raw_vec<bytes>*>(addr) = r;
  }
}

// The base address as the lane-by-lane path of a 2-D block uses it. On AMD it is passed through
// an empty volatile asm in that path: a run's offsets are known to be off[0] + j, and the
// compiler made each address base + j uniform, hoisted out of the loops, an SGPR pair each for
// the whole loop (attention's k and v: 12 SGPRs, spilled) for a path that runs only at a
// tensor's edges or on a misaligned base. Now the sums are formed in that path. 1-D blocks keep
// the uniform sums: the norms' row loops on 16 waves are short of VGPRs, not SGPRs.
template <class U>
BV_DI void lane_base(U*& base) {
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__)
  asm volatile("" : "+v"(base));
#else
  (void)base;
#endif
}

// Load V consecutive registers: one vector access when possible, else lane by lane.
template <int V, bool Masked, bool TwoD, class U, class I, class O>
BV_DI void load_run(U* out, const U* base, const I (&off)[V], const bool (&m)[V], O other) {
  if constexpr (V > 1 && (V * sizeof(U)) % 4 == 0) {
    if (vector_ok<V, Masked>(base, off, m)) {
      vload<V>(out, base + off[0]);
      return;
    }
  }
  if constexpr (TwoD) lane_base(base);
#pragma unroll
  for (int j = 0; j < V; ++j) {
    // A scalar `other` travels as a value: were it read from memory in one arm, the compiler
    // could select between addresses and keep it in scratch.
    if constexpr (std::is_same_v<O, U>)
      out[j] = (!Masked || m[j]) ? base[off[j]] : other;
    else
      out[j] = (!Masked || m[j]) ? base[off[j]] : other[j];
  }
}
template <int V, bool Masked, bool Replicas, bool TwoD, class U, class I>
BV_DI void store_run(U* base, const I (&off)[V], const bool (&m)[V], const bool (&own)[V],
                     const U (&in)[V]) {
  if constexpr (V > 1 && (V * sizeof(U)) % 4 == 0) {
    bool ok = vector_ok<V, Masked>(base, off, m);
    if constexpr (Replicas) {
#pragma unroll
      for (int j = 0; j < V; ++j) ok = ok && own[j];
    }
    if (ok) {
      vstore<V>(base + off[0], in);
      return;
    }
  }
  if constexpr (TwoD) lane_base(base);
#pragma unroll
  for (int j = 0; j < V; ++j)
    if ((!Masked || m[j]) && (!Replicas || own[j])) base[off[j]] = in[j];
}

template <class S, int W>
constexpr bool has_replicas() {
  if constexpr (S::rank == 1) {
    using L = gpu::layout1d<S::size, W>;
    return S::size < L::v * L::threads;
  } else {
    using L = gpu::layout2d<S::rows, S::cols, W>;
    return S::rows < L::rows::tile() || S::cols < L::cols::tile();
  }
}

template <class S, class M>
constexpr void check_mask() {
  if constexpr (Block<M>) {
    static_assert(rules::mask_block<elem_of<M>>());
    static_assert(rules::mask_shape<(broadcasts_to<shape_of<M>, S>)>());
  } else {
    static_assert(rules::mask_scalar<(std::is_same_v<M, bool> || std::is_same_v<M, no_mask>)>());
  }
}
template <class P, class M>
BV_DI bool mask_at(const M& m, P p, int a, int b) {
  if constexpr (std::is_same_v<M, no_mask>)
    return true;
  else
    return get<bool>(m, p, a, b);
}

// A pointer block whose offsets hold their values in every register set (block.hpp's lazy
// blocks); loads, stores and atomics read offsets, masks and values through f and r.
template <class T, class S, int W, class I>
BV_DI ptr_block<T, S, W, I> settled(const ptr_block<T, S, W, I>& pb) {
  return {pb.p, settled(pb.off)};
}

template <class T, class S, int W, class I, class M, class O>
BV_DI auto load_impl(const ptr_block<T, S, W, I>& pb0, const M& mask0, const O other0) {
  const ptr_block<T, S, W, I> pb = settled(pb0);
  const M mask = settled(mask0);
  // `other` by value: a scalar bound to a reference lives in scratch on some compilers.
  const O other = settled(other0);
  using U = std::remove_const_t<T>;
  constexpr bool masked = !std::is_same_v<M, no_mask>;
  constexpr bool has_other = !std::is_same_v<O, no_other>;
  static_assert(rules::other_needs_mask<(!has_other || masked)>());
  if constexpr (has_other) static_assert(rules::load_other<T, elem_of<O>>());
  check_mask<S, M>();
  basic_block<U, S, W> out;
  const U* base = pb.p;
  auto oth = [other](auto p, int a, int b) -> U {
    if constexpr (has_other)
      return get<U>(other, p, a, b);
    else
      return cvt<U>(0);
  };
  if constexpr (S::rank == 1) {
    using B = basic_block<U, S, W>;
    constexpr int V = gpu::layout1d<S::size, W>::v;
#pragma unroll
    for (int g = 0; g < B::NF; g += V) {
      I off[V];
      bool m[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        off[j] = pb.off.f[g + j];
        m[j] = mask_at(mask, part_f{}, g + j, 0);
      }
      if constexpr (Block<O>) {
        U o[V];
#pragma unroll
        for (int j = 0; j < V; ++j) o[j] = oth(part_f{}, g + j, 0);
        load_run<V, masked, false>(out.f + g, base, off, m, o);
      } else {
        const U o = oth(part_f{}, 0, 0);
        load_run<V, masked, false>(out.f + g, base, off, m, o);
      }
    }
    // The row and column roles: reloaded (the compiler drops them when no .row()/.col() uses
    // them).
#pragma unroll
    for (int i = 0; i < B::NRow; ++i) {
      U v = oth(part_r{}, i, 0);
      if (mask_at(mask, part_r{}, i, 0)) v = role_load(base + pb.off.r[i]);
      out.r[i] = v;
    }
#pragma unroll
    for (int i = 0; i < B::NCol; ++i) {
      U v = oth(part_c{}, i, 0);
      if (mask_at(mask, part_c{}, i, 0)) v = role_load(base + pb.off.c[i]);
      out.c[i] = v;
    }
  } else {
    using B = basic_block<U, S, W>;
    constexpr int V = gpu::tile2d::spt1 <= B::NC ? gpu::tile2d::spt1 : B::NC;
    if constexpr (BV_NVIDIA && V > 1 && (V * sizeof(U)) % 4 == 0) {
      // One test for the whole block, then straight-line vector loads: the compiler can issue
      // them all back to back (a test and a branch per run would serialise them). NVIDIA only:
      // on gfx90a the extra live masks cost registers (bf16 matmul spilled).
      bool all_ok = true;
#pragma unroll
      for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
        for (int cg = 0; cg < B::NC; cg += V) {
          I off[V];
          bool m[V];
#pragma unroll
          for (int j = 0; j < V; ++j) {
            off[j] = pb.off.v[ri * B::NC + cg + j];
            m[j] = mask_at(mask, part_2{}, ri, cg + j);
          }
          all_ok = all_ok & vector_ok<V, masked>(base, off, m);
        }
      if (all_ok) {
#pragma unroll
        for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
          for (int cg = 0; cg < B::NC; cg += V)
            vload<V>(out.v + ri * B::NC + cg, base + pb.off.v[ri * B::NC + cg]);
        return out;
      }
    }
#pragma unroll
    for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
      for (int cg = 0; cg < B::NC; cg += V) {
        I off[V];
        bool m[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          off[j] = pb.off.v[ri * B::NC + cg + j];
          m[j] = mask_at(mask, part_2{}, ri, cg + j);
        }
        if constexpr (Block<O>) {
          U o[V];
#pragma unroll
          for (int j = 0; j < V; ++j) o[j] = oth(part_2{}, ri, cg + j);
          load_run<V, masked, true>(out.v + ri * B::NC + cg, base, off, m, o);
        } else {
          const U o = oth(part_2{}, 0, 0);
          load_run<V, masked, true>(out.v + ri * B::NC + cg, base, off, m, o);
        }
      }
  }
  return out;
}

template <class T, class S, int W, class I, class V, class M>
BV_DI void store_impl(const ptr_block<T, S, W, I>& pb0, const V& value0, const M& mask0) {
  const ptr_block<T, S, W, I> pb = settled(pb0);
  const V value = settled(value0);
  const M mask = settled(mask0);
  static_assert(rules::store_writable<T>());
  static_assert(rules::store_shape<(Scalar<V> || broadcasts_to<shape_of<V>, S>)>());
  check_mask<S, M>();
  constexpr bool masked = !std::is_same_v<M, no_mask>;
  constexpr bool replicas = has_replicas<S, W>();
  if constexpr (S::rank == 1) {
    using L = gpu::layout1d<S::size, W>;
    constexpr int VW = L::v;
#pragma unroll
    for (int g = 0; g < L::regs; g += VW) {
      I off[VW];
      bool m[VW], own[VW];
      T in[VW];
#pragma unroll
      for (int j = 0; j < VW; ++j) {
        off[j] = pb.off.f[g + j];
        m[j] = mask_at(mask, part_f{}, g + j, 0);
        in[j] = get<T>(value, part_f{}, g + j, 0);
        own[j] = gpu::owner1d<S::size, W>(g + j);
      }
      store_run<VW, masked, replicas, false>(pb.p, off, m, own, in);
    }
  } else {
    using B = basic_block<T, S, W>;
    constexpr int VW = gpu::tile2d::spt1 <= B::NC ? gpu::tile2d::spt1 : B::NC;
    if constexpr (BV_NVIDIA && VW > 1 && (VW * sizeof(T)) % 4 == 0) {
      // As in load: one test for the whole block, then straight-line vector stores.
      bool all_ok = true;
#pragma unroll
      for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
        for (int cg = 0; cg < B::NC; cg += VW) {
          I off[VW];
          bool m[VW];
#pragma unroll
          for (int j = 0; j < VW; ++j) {
            off[j] = pb.off.v[ri * B::NC + cg + j];
            m[j] = mask_at(mask, part_2{}, ri, cg + j);
            if constexpr (replicas) m[j] = m[j] && gpu::owner2d<S::rows, S::cols, W>(ri, cg + j);
          }
          all_ok = all_ok & vector_ok<VW, masked || replicas>(pb.p, off, m);
        }
      if (all_ok) {
#pragma unroll
        for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
          for (int cg = 0; cg < B::NC; cg += VW) {
            T in[VW];
#pragma unroll
            for (int j = 0; j < VW; ++j) in[j] = get<T>(value, part_2{}, ri, cg + j);
            vstore<VW>(pb.p + pb.off.v[ri * B::NC + cg], in);
          }
        return;
      }
    }
    // Run by run. On AMD a column's runs go one after another, down its rows: what a column
    // alone decides (its masks, its offsets) is dead after them. In rows' order the compiler kept
    // every column's lane masks live through the whole block, an SGPR pair each (a 256-wide
    // matmul tile's store spilled 136 SGPRs on gfx942).
    constexpr int runs = B::NR * B::NC / VW;
#pragma unroll
    for (int q = 0; q < runs; ++q) {
      const int ri = BV_NVIDIA ? q / (B::NC / VW) : q % B::NR;
      const int cg = VW * (BV_NVIDIA ? q % (B::NC / VW) : q / B::NR);
      I off[VW];
      bool m[VW], own[VW];
      T in[VW];
#pragma unroll
      for (int j = 0; j < VW; ++j) {
        off[j] = pb.off.v[ri * B::NC + cg + j];
        m[j] = mask_at(mask, part_2{}, ri, cg + j);
        in[j] = get<T>(value, part_2{}, ri, cg + j);
        own[j] = gpu::owner2d<S::rows, S::cols, W>(ri, cg + j);
      }
      store_run<VW, masked, replicas, true>(pb.p, off, m, own, in);
    }
  }
}
}  // namespace detail

template <class T, class S, int W, class I>
BV_DI auto load(const ptr_block<T, S, W, I>& p) {
  return detail::load_impl(p, detail::no_mask{}, detail::no_other{});
}
template <class T, class S, int W, class I, class M>
requires(Block<M> || std::is_same_v<M, bool>) BV_DI
    auto load(const ptr_block<T, S, W, I>& p, const M& mask) {
  return detail::load_impl(p, mask, detail::no_other{});
}
template <class T, class S, int W, class I, class M, class O>
requires((Block<M> || std::is_same_v<M, bool>)&&(Block<O> || Scalar<O>)) BV_DI
    auto load(const ptr_block<T, S, W, I>& p, const M& mask, const O& other) {
  return detail::load_impl(p, mask, other);
}
template <class T>
BV_DI std::remove_const_t<T> load(ptr<T> p) {
  return *p.p;
}

template <class T, class S, int W, class I, class V>
requires(Block<V> || Scalar<V>) BV_DI void store(const ptr_block<T, S, W, I>& p, const V& value) {
  detail::store_impl(p, value, detail::no_mask{});
}
template <class T, class S, int W, class I, class V, class M>
requires((Block<V> || Scalar<V>)&&(Block<M> || std::is_same_v<M, bool>)) BV_DI
    void store(const ptr_block<T, S, W, I>& p, const V& value, const M& mask) {
  detail::store_impl(p, value, mask);
}
// A scalar store is done once per program (by its first thread).
template <class T, class V>
requires Scalar<V> BV_DI void store(ptr<T> p, V value) {
  static_assert(!std::is_const_v<T>, "store: this pointer points to const data.");
  if (gpu::prim::thread_id() == 0) *p.p = cvt<T>(value);
}

// ---------------------------------------------------------------------------------------------
// Atomics: each returns the values memory held before.
namespace detail {
enum class rmw { add, max, min, xchg };

template <class To, class From>
BV_DI To bits(const From& x) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  __builtin_memcpy(&t, &x, sizeof(To));
  return t;
}

// Compare-and-swap loop applying f to the value at a; 2-byte values go through their 4-byte word.
template <class T, class F>
BV_DI T cas_loop(T* a, F f) {
  if constexpr (sizeof(T) == 4) {
    auto* w = reinterpret_cast<unsigned int*>(a);
    unsigned int old = *w, assumed;
    do {
      assumed = old;
      old = atomicCAS(w, assumed, bits<unsigned int>(f(bits<T>(assumed))));
    } while (old != assumed);
    return bits<T>(old);
  } else if constexpr (sizeof(T) == 8) {
    auto* w = reinterpret_cast<unsigned long long*>(a);
    unsigned long long old = *w, assumed;
    do {
      assumed = old;
      old = atomicCAS(w, assumed, bits<unsigned long long>(f(bits<T>(assumed))));
    } while (old != assumed);
    return bits<T>(old);
  } else {
    static_assert(sizeof(T) == 2, "atomics work on 2-, 4- and 8-byte elements");
    auto* w = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(a) & ~uintptr_t(3));
    const int shift = (reinterpret_cast<uintptr_t>(a) & 2) ? 16 : 0;
    unsigned int old = *w, assumed;
    do {
      assumed = old;
      const T cur = bits<T>(static_cast<uint16_t>(assumed >> shift));
      const uint16_t nv = bits<uint16_t>(f(cur));
      const unsigned int repl = (assumed & ~(0xffffu << shift)) | (unsigned int)nv << shift;
      old = atomicCAS(w, assumed, repl);
    } while (old != assumed);
    return bits<T>(static_cast<uint16_t>(old >> shift));
  }
}

template <class T>
BV_DI T atomic_one(rmw op, T* a, T v) {
  if constexpr (std::is_same_v<T, int32_t>) {
    switch (op) {
      case rmw::add:
        return atomicAdd(a, v);
      case rmw::max:
        return atomicMax(a, v);
      case rmw::min:
        return atomicMin(a, v);
      default:
        return atomicExch(a, v);
    }
  } else if constexpr (std::is_same_v<T, float>) {
    if (op == rmw::add) return atomicAdd(a, v);
    if (op == rmw::xchg) return atomicExch(a, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (op == rmw::add)
      return static_cast<int64_t>(
          atomicAdd(reinterpret_cast<unsigned long long*>(a), static_cast<unsigned long long>(v)));
  }
  using C = compute_t<T>;
  return cas_loop(a, [&](T cur) -> T {
    const C c = cvt<C>(cur), x = cvt<C>(v);
    switch (op) {
      case rmw::add:
        return cvt<T>(c + x);
      case rmw::max:
        return (x > c) ? v : cur;
      case rmw::min:
        return (x < c) ? v : cur;
      default:
        return v;
    }
  });
}

// Broadcast a value thread 0 computed to every thread of the program.
template <class T>
BV_DI T from_thread0(T x) {
  T* slot = gpu::prim::lds<T, 1, gpu::lds_tag::broadcast>();
  gpu::prim::barrier();
  if (gpu::prim::thread_id() == 0) *slot = x;
  gpu::prim::barrier();
  return *slot;
}

// A scalar atomic (one per program, by thread 0), ordered as the program's own code orders it:
// every thread's earlier loads and stores before it, their later ones after it, at device scope
// (a spin lock's critical section: the stores made under it are visible before its release, and
// the holder's loads see what the previous holder stored). Every thread gets the old value.
template <class F>
BV_DI auto scalar_atomic(F&& op) {
  decltype(op()) old{};
  gpu::prim::barrier();
  if (gpu::prim::thread_id() == 0) {
    gpu::prim::device_fence();
    old = op();
    gpu::prim::device_fence();
  }
  return from_thread0(old);
}

template <class T, class S, int W, class I, class V, class M>
BV_DI auto atomic_impl(rmw op, const ptr_block<T, S, W, I>& pb0, const V& value0, const M& mask0) {
  const ptr_block<T, S, W, I> pb = settled(pb0);
  const V value = settled(value0);
  const M mask = settled(mask0);
  static_assert(rules::atomic_operand<T>());
  check_mask<S, M>();
  basic_block<T, S, W> old;
  if constexpr (S::rank == 1) {
    using B = basic_block<T, S, W>;
    constexpr int N = S::size;
    T* slots = gpu::prim::lds<T, N, gpu::lds_tag::atomic_old>();
    gpu::prim::barrier();
#pragma unroll
    for (int i = 0; i < B::NF; ++i) {
      old.f[i] = cvt<T>(0);
      if (gpu::owner1d<N, W>(i) && mask_at(mask, part_f{}, i, 0)) {
        old.f[i] = atomic_one(op, pb.p + pb.off.f[i], get<T>(value, part_f{}, i, 0));
      }
      if (gpu::owner1d<N, W>(i)) slots[gpu::flat_of<N, W>(i)] = old.f[i];
    }
    gpu::prim::barrier();
#pragma unroll
    for (int i = 0; i < B::NF; ++i) old.f[i] = slots[gpu::flat_of<N, W>(i)];
#pragma unroll
    for (int i = 0; i < B::NRow; ++i) old.r[i] = slots[gpu::col_of<1, N, W>(i)];
#pragma unroll
    for (int i = 0; i < B::NCol; ++i) old.c[i] = slots[gpu::row_of<N, 1, W>(i)];
  } else {
    using B = basic_block<T, S, W>;
    constexpr int R = S::rows, C = S::cols;
    constexpr bool replicas = has_replicas<S, W>();
    T* slots = gpu::prim::lds<T, (replicas ? R * C : 1), gpu::lds_tag::atomic_old>();
    if constexpr (replicas) gpu::prim::barrier();
#pragma unroll
    for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
      for (int ci = 0; ci < B::NC; ++ci) {
        T& o = old.v[ri * B::NC + ci];
        o = cvt<T>(0);
        const bool own = gpu::owner2d<R, C, W>(ri, ci);
        if (own && mask_at(mask, part_2{}, ri, ci))
          o = atomic_one(op, pb.p + pb.off.v[ri * B::NC + ci], get<T>(value, part_2{}, ri, ci));
        if constexpr (replicas)
          if (own) slots[gpu::row_of<R, C, W>(ri) * C + gpu::col_of<R, C, W>(ci)] = o;
      }
    if constexpr (replicas) {
      gpu::prim::barrier();
#pragma unroll
      for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
        for (int ci = 0; ci < B::NC; ++ci)
          old.v[ri * B::NC + ci] = slots[gpu::row_of<R, C, W>(ri) * C + gpu::col_of<R, C, W>(ci)];
    }
  }
  return old;
}
}  // namespace detail

#define BV_ATOMIC(name, op)                                                                     \
  template <class T, class S, int W, class I, class V>                                          \
  requires(Block<V> || Scalar<V>) BV_DI auto name(const ptr_block<T, S, W, I>& p, const V& v) { \
    return detail::atomic_impl(detail::rmw::op, p, v, detail::no_mask{});                       \
  }                                                                                             \
  template <class T, class S, int W, class I, class V, class M>                                 \
  requires((Block<V> || Scalar<V>)&&(Block<M> || std::is_same_v<M, bool>)) BV_DI auto name(     \
      const ptr_block<T, S, W, I>& p, const V& v, const M& mask) {                              \
    return detail::atomic_impl(detail::rmw::op, p, v, mask);                                    \
  }                                                                                             \
  template <class T, class V>                                                                   \
  requires Scalar<V> BV_DI T name(ptr<T> p, V v) {                                              \
    return detail::scalar_atomic(                                                               \
        [&] { return detail::atomic_one(detail::rmw::op, p.p, cvt<T>(v)); });                   \
  }
BV_ATOMIC_OPS(BV_ATOMIC)
#undef BV_ATOMIC

// atomic_cas(p, expected, desired): if *p == expected, *p = desired; returns the old value. Done
// once per program; every thread gets the old value (so a spin loop on it stays uniform).
template <class T, class C, class V>
requires(Scalar<C>&& Scalar<V>) BV_DI T atomic_cas(ptr<T> p, C expected, V desired) {
  static_assert(rules::cas_operand<T>());
  return detail::scalar_atomic([&]() -> T {
    if constexpr (sizeof(T) == 4)
      return detail::bits<T>(atomicCAS(reinterpret_cast<unsigned int*>(p.p),
                                       detail::bits<unsigned int>(cvt<T>(expected)),
                                       detail::bits<unsigned int>(cvt<T>(desired))));
    else
      return detail::bits<T>(atomicCAS(reinterpret_cast<unsigned long long*>(p.p),
                                       detail::bits<unsigned long long>(cvt<T>(expected)),
                                       detail::bits<unsigned long long>(cvt<T>(desired))));
  });
}

}  // namespace gpu_lang
}  // namespace bv
