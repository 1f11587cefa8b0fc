// The wave primitives the whole device lowering is written against: lane and wave ids, program
// ids, a butterfly shuffle inside a wave, LDS (shared memory) buffers, the workgroup barrier, and
// the matrix multiply-accumulate instructions. Everything else in gpu_backend/bv/gpu/ builds on
// these alone, so a CPU emulation of this file (lane by lane) can run the same lowering.
#pragma once
#include <cstdint>
#include <type_traits>

#include "bv/gpu/half.hpp"
#include "bv/gpu/hip_compat.hpp"
#include "bv/gpu/lds_tag.hpp"

#define BV_DI __device__ __forceinline__

namespace bv::gpu::prim {

#if BV_NVIDIA
inline constexpr int wave_size = 32;
#else
inline constexpr int wave_size = 64;
#endif

#if BV_NVIDIA
BV_DI int thread_id() { return static_cast<int>(threadIdx.x); }
BV_DI int program_id(int axis) {
  return static_cast<int>(axis == 0 ? blockIdx.x : (axis == 1 ? blockIdx.y : blockIdx.z));
}
BV_DI int num_programs(int axis) {
  return static_cast<int>(axis == 0 ? gridDim.x : (axis == 1 ? gridDim.y : gridDim.z));
}
#else
// The hardware registers and the dispatch packet directly (HIP's threadIdx/gridDim go through
// the device library, which a build with -nogpulib does not have).
BV_DI int thread_id() { return static_cast<int>(__builtin_amdgcn_workitem_id_x()); }
BV_DI int program_id(int axis) {
  return static_cast<int>(axis == 0   ? __builtin_amdgcn_workgroup_id_x()
                          : axis == 1 ? __builtin_amdgcn_workgroup_id_y()
                                      : __builtin_amdgcn_workgroup_id_z());
}
BV_DI int num_programs(int axis) {
  // hsa_kernel_dispatch_packet_t: u16 workgroup_size_{x,y,z} at byte 4, u32 grid_size_{x,y,z}
  // (in work-items) at byte 12.
  // A C cast: the packet lives in the constant address space, which static_cast cannot leave
  // (hipcc's host pass type-checks this device function too).
  const auto* pkt = (const unsigned char*)__builtin_amdgcn_dispatch_ptr();
  const uint16_t wg = reinterpret_cast<const uint16_t*>(pkt + 4)[axis];
  const uint32_t grid = reinterpret_cast<const uint32_t*>(pkt + 12)[axis];
  return static_cast<int>(grid / wg);
}
#endif
BV_DI int lane_id() { return thread_id() & (wave_size - 1); }
BV_DI int wave_id() { return thread_id() / wave_size; }
// v, which every lane of the wave holds (all lanes active), as the compiler can see it is: on
// AMD the first lane's, in a scalar register; on NVIDIA a wave reduction, whose result is in a
// uniform register, so that what is computed from it (a ring's slot, then wgmma's descriptors)
// stays in the uniform datapath rather than being copied there before each use.
BV_DI int wave_uniform(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#elif defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_readfirstlane(v);  // in a scalar register: branches on it are uniform
#else
  return v;
#endif
}

// The value `v` of lane (lane_id() ^ mask) of the same wave.
template <class T>
BV_DI T shuffle_xor(T v, int mask) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffle_xor moves 4- or 8-byte values.");
  if constexpr (sizeof(T) == 8) {
    uint64_t u;
    __builtin_memcpy(&u, &v, 8);
    uint32_t lo = static_cast<uint32_t>(u), hi = static_cast<uint32_t>(u >> 32);
    lo = shuffle_xor(lo, mask);
    hi = shuffle_xor(hi, mask);
    u = (static_cast<uint64_t>(hi) << 32) | lo;
    __builtin_memcpy(&v, &u, 8);
    return v;
  } else {
    uint32_t u;
    __builtin_memcpy(&u, &v, 4);
#if BV_NVIDIA
    u = __shfl_xor_sync(0xffffffffu, u, mask);
#else
    // ds_swizzle / DPP would serve masks < 32; bpermute is the general wave-wide permute.
    u = static_cast<uint32_t>(
        __builtin_amdgcn_ds_bpermute((lane_id() ^ mask) << 2, static_cast<int>(u)));
#endif
    __builtin_memcpy(&v, &u, 4);
    return v;
  }
}

// The workgroup barrier: every wave of the program reaches it, and LDS writes before it are
// visible to LDS reads after it.
//
// On AMD the fences are the compiler's builtins, as ROCm 6's own __syncthreads has them. HIP 5.2's
// __syncthreads and __threadfence call __atomic_work_item_fence, a device-library function: where
// that library is not linked (clang-19 for gfx942, which HIP 5.2 does not know) each barrier was
// an external call, and the call's ABI clobbers the caller-saved registers, so every value live
// across a reduction's barriers (the norms' row blocks) had to move to callee-saved VGPRs, AGPRs
// or scratch: the norms' backward spilled on 16 waves (128 VGPRs a lane) and even on 8.
BV_DI void barrier() {
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
#else
  __syncthreads();
#endif
}

// A named barrier of `threads` threads (a multiple of 32; NVIDIA, id 1 to 15: 0 is barrier()'s):
// sync waits until that many have arrived or synced, arrive counts this warp and goes on. A
// producer that must not overwrite what the others still read syncs, the others arrive, so no
// consumer waits for another (the tile loop's refills).
BV_DI void named_sync(int id, int threads) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id, (void)threads;
#endif
}
BV_DI void named_arrive(int id, int threads) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id, (void)threads;
#endif
}
// Adds 1 to the LDS word at addr and returns what it held, acquire and release at the program:
// the thread that counts last sees what every thread counted before it had done (the tile loop's
// count of the warps past a step, whose last warp refills the step's slots).
BV_DI uint32_t lds_count(uint32_t addr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  uint32_t old;
  asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], 1;\n"
               : "=r"(old)
               : "r"(addr)
               : "memory");
  return old;
#else
  (void)addr;
  __builtin_trap();  // only the NVIDIA tile loop counts
#endif
}

// A sequentially consistent fence at device scope (__threadfence), on AMD as a builtin for the
// reason above.
BV_DI void device_fence() {
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__)
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent");
#else
  __threadfence();
#endif
}

// A static LDS buffer of N elements of T. Every (T, N, Tag) names one buffer per kernel; an op
// that uses one brackets its use with barriers, so ops that share a buffer never overlap. The
// lowering's tags, and when an op needs one of its own: lds_tag.hpp.
template <class T, int N, int Tag = 0, int Align = 16>
BV_DI T* lds() {
#if BV_AMD_EMU
  // The emulator's LDS of the lane's workgroup; this static's address names the buffer.
  static char name;
  return static_cast<T*>(bv::emu::lds_static(&name, N * sizeof(T)));
#else
  __shared__ unsigned char buf[N * sizeof(T)] __attribute__((aligned(Align)));
  return reinterpret_cast<T*>(buf);
#endif
}

// Matrix multiply-accumulate on one wave.
#if BV_NVIDIA
// mma.sync m16n8k16: a = 4 x 32-bit (A 16x16 row fragment), b = 2 x 32-bit (B 16x8 col
// fragment), c = 4 floats (C 16x8); lane = 4 * group + thread_in_group (PTX ISA's layout).
template <class T>
BV_DI void mma_16x8x16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#else
  (void)c, (void)a, (void)b;
  __trap();  // unreachable: dot only picks mma on sm_80 and later
#endif
}
// ldmatrix (sm_75+): four 8x8 matrices of 16-bit elements from LDS; lane l gives the address of
// row l % 8 of matrix l / 8 (16 contiguous bytes), and lane 4g + t receives elements (g, 2t) and
// (g, 2t + 1) of each matrix (with .trans: (2t, g) and (2t + 1, g)) in r[matrix].
BV_DI uint32_t lds_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
BV_DI void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(lds_addr(row)));
#else
  (void)r, (void)row;
  __trap();
#endif
}
BV_DI void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(lds_addr(row)));
#else
  (void)r, (void)row;
  __trap();
#endif
}
// stmatrix (sm_90): the inverse of ldmatrix_x4: lane l gives the address of row l % 8 of matrix
// l / 8, and r[i] holds elements (g, 2t) and (g, 2t + 1) of matrix i for lane 4g + t.
BV_DI void stmatrix_x4(void* row, const uint32_t (&r)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n"
               :
               : "r"(lds_addr(row)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
#else
  (void)r, (void)row;
  __trap();
#endif
}
// Asynchronous global -> LDS copies (cp.async, sm_80+) whose completion an mbarrier in LDS
// tracks: the operand path of block-pointer loads (block_ptr.hpp). `dst` and `bar` are LDS
// (shared-window) addresses. cp_async_4 copies src_bytes (0, 2 or 4) and zero-fills the rest of
// the 4 bytes, so a masked-off pair never reads global memory.
inline constexpr bool has_cp_async =
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    false;
#else
    true;
#endif
BV_DI void cp_async_4(uint32_t dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
               : "memory");
#else
  (void)dst, (void)src, (void)src_bytes;
  __trap();
#endif
}
BV_DI void cp_async_4_full(uint32_t dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
#else
  (void)dst, (void)src;
  __trap();
#endif
}
// 16-byte copies (.cg: through L2 only), src_bytes 0..16, the rest zero-filled.
BV_DI void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
#else
  (void)dst, (void)src, (void)src_bytes;
  __trap();
#endif
}
BV_DI void cp_async_16_full(uint32_t dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
#else
  (void)dst, (void)src;
  __trap();
#endif
}
// mbarrier (sm_80+): init with the number of arrivals per phase; the cp.async arrive fires once
// every earlier cp.async of the calling thread has landed (.noinc: counted in the init count).
BV_DI void mbar_init(uint32_t bar, int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
  (void)bar, (void)count;
  __trap();
#endif
}
BV_DI void cp_async_arrive(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
#else
  (void)bar;
  __trap();
#endif
}
// Wait for every cp.async this thread issued: a program leaves none in flight into LDS that the
// next program on the SM may be given (a ring's prefetch past a loop that stopped early).
BV_DI void cp_async_drain() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}
// An ordinary arrive (release: this thread's earlier LDS stores are visible to the waiters).
BV_DI void mbar_arrive(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mbarrier.arrive.shared.b64 _, [%0];\n" ::"r"(bar) : "memory");
#else
  (void)bar;
  __trap();
#endif
}
// `count` arrivals at once (sm_90): a thread that arrives for others whose arrival would carry
// nothing (a TMA copy's issuer, for the threads that issue no box).
BV_DI void mbar_arrive_n(uint32_t bar, uint32_t count) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(count)
               : "memory");
#else
  (void)bar, (void)count;
  __trap();
#endif
}
// Wait until the phase of parity `parity` of the mbarrier has completed (acquire: the copies it
// tracked are visible to the caller).
BV_DI void mbar_wait(uint32_t bar, int parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  uint32_t done;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t done;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
#else
  (void)bar, (void)parity;
  __trap();
#endif
}
// wgmma (sm_90a: nvcc -arch=sm_90a): one warpgroup (4 consecutive warps) multiplies a 64 x 16
// tile of A by a 16 x N tile of B (N = 64 or 128), both read from LDS through matrix descriptors,
// into N / 2 f32 accumulators per thread (warp w4 of the group: rows 16 w4 + g and + 8, columns
// 8 j + 2 t + e in d[4 j + 2 h + e]; g = lane / 4, t = lane % 4), as mma.sync's m16n8 tiles side
// by side. A is K-major (its rows contiguous), B N-major (imm-trans-b) or K-major, both in the
// 128-byte swizzle.
// Asynchronous: wgmma_fence before, wgmma_commit and wgmma_wait0 after; LDS written by the
// generic proxy (cp.async) is made visible to wgmma by fence_proxy_async.
inline constexpr bool has_wgmma =
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    true;
#else
    false;
#endif
// A shared-memory matrix descriptor: start address, leading and stride byte offsets, 128-byte
// swizzle (PTX ISA, "Matrix Descriptor Format"), as its two 32-bit halves: the start address
// (address / 16, 14 bits) and the leading offset are the low half, the stride offset and the
// swizzle the high. An offset added to the address (+, in bytes) changes the low half only: any
// LDS address is below 256 KiB, so the 14-bit field never carries. Kept apart so that the
// descriptors of a dot's wgmmas are one 32-bit add each from one base, the high half shared,
// where they were 64-bit adds (ptxas still copies both halves to uniform registers for each
// wgmma).
struct wgmma_desc {
  uint32_t lo, hi;
  BV_DI wgmma_desc(uint32_t lds_addr, uint32_t lbo, uint32_t sbo)
      : lo(((lds_addr & 0x3FFFF) >> 4) | (((lbo & 0x3FFFF) >> 4) << 16)),
        hi(((sbo & 0x3FFFF) >> 4) | (1u << 30)) {}
  BV_DI wgmma_desc operator+(uint32_t bytes) const {
    wgmma_desc d = *this;
    d.lo += bytes >> 4;
    return d;
  }
};
// Pins a register's value at this point of the program: an empty asm that takes and "writes" it,
// so the compiler computes it before and cannot move its definition past later asm (wgmma's
// fence), as CUTLASS's warpgroup_fence_operand does.
BV_DI void pin(uint32_t& r) { asm volatile("" : "+r"(r)::"memory"); }
BV_DI void pin(float& r) { asm volatile("" : "+f"(r)::"memory"); }
// x in a register of its own: an identity byte permute (prmt with selector 0x3210, its operands
// in registers), which ptxas does not merge with x's register as it merges a copy (see
// wgmma_rs_core in dot.hpp).
BV_DI uint32_t own_reg(uint32_t x) {
#if defined(__CUDA_ARCH__)
  uint32_t y;
  asm volatile("prmt.b32 %0, %1, %2, %3;" : "=r"(y) : "r"(x), "r"(0u), "r"(0x3210u));
  return y;
#else
  return x;
#endif
}
BV_DI void fence_proxy_async() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
BV_DI void wgmma_fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
BV_DI void wgmma_commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
BV_DI void wgmma_wait0() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
}
// All but the newest group: that one may still run (for_range keeps a dot's group in flight).
BV_DI void wgmma_wait1() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
#endif
}
// One asm statement per element type (the type is part of the instruction's name). Their
// accumulator operands, d[0 .. 31] or d[0 .. 63] as %0 .. %31 or %0 .. %63, are listed once:
// BV_WGMMA_D32 / BV_WGMMA_D64 and the register lists BV_WGMMA_R32 / BV_WGMMA_R64.
#define BV_WGMMA_F8(o)                                                                        \
  "+f"(d[o]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3]), "+f"(d[o + 4]), "+f"(d[o + 5]), \
      "+f"(d[o + 6]), "+f"(d[o + 7])
#define BV_WGMMA_D32 BV_WGMMA_F8(0), BV_WGMMA_F8(8), BV_WGMMA_F8(16), BV_WGMMA_F8(24)
#define BV_WGMMA_D64 \
  BV_WGMMA_D32, BV_WGMMA_F8(32), BV_WGMMA_F8(40), BV_WGMMA_F8(48), BV_WGMMA_F8(56)
#define BV_WGMMA_R32                                                                       \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define BV_WGMMA_R64                                                                       \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "  \
  "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "  \
  "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
// Both operands from LDS (TransB 1: B N-major; 0: K-major, each of B's columns contiguous in k):
// N = 64 or 128.
#define BV_WGMMA_SS_F32_M64N64K16(ab)                                           \
  asm volatile(                                                                 \
      "{\n .reg .pred p;\n .reg .b64 da, db;\n setp.ne.b32 p, %36, 0;\n"        \
      " mov.b64 da, {%32, %33};\n mov.b64 db, {%34, %35};\n"                    \
      " wgmma.mma_async.sync.aligned.m64n64k16.f32." ab "." ab " " BV_WGMMA_R32 \
      ", da, db, p, 1, 1, 0, %37;\n}\n"                                         \
      : BV_WGMMA_D32                                                            \
      : "r"(da.lo), "r"(da.hi), "r"(db.lo), "r"(db.hi), "r"(1), "n"(TransB))
#define BV_WGMMA_SS_F32_M64N128K16(ab)                                           \
  asm volatile(                                                                  \
      "{\n .reg .pred p;\n .reg .b64 da, db;\n setp.ne.b32 p, %68, 0;\n"         \
      " mov.b64 da, {%64, %65};\n mov.b64 db, {%66, %67};\n"                     \
      " wgmma.mma_async.sync.aligned.m64n128k16.f32." ab "." ab " " BV_WGMMA_R64 \
      ", da, db, p, 1, 1, 0, %69;\n}\n"                                          \
      : BV_WGMMA_D64                                                             \
      : "r"(da.lo), "r"(da.hi), "r"(db.lo), "r"(db.hi), "r"(1), "n"(TransB))
template <class T, int N, int TransB>
BV_DI void wgmma_ss_64xNx16(float (&d)[N / 2], wgmma_desc da, wgmma_desc db) {
  static_assert(N == 64 || N == 128, "internal: wgmma from LDS takes N = 64 or 128");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (N == 64) {
    if constexpr (std::is_same_v<T, half>)
      BV_WGMMA_SS_F32_M64N64K16("f16");
    else
      BV_WGMMA_SS_F32_M64N64K16("bf16");
  } else {
    if constexpr (std::is_same_v<T, half>)
      BV_WGMMA_SS_F32_M64N128K16("f16");
    else
      BV_WGMMA_SS_F32_M64N128K16("bf16");
  }
#else
  (void)d, (void)da, (void)db;
  __trap();  // unreachable: dot only picks wgmma on sm_90a
#endif
}
#undef BV_WGMMA_SS_F32_M64N64K16
#undef BV_WGMMA_SS_F32_M64N128K16
// wgmma with A in registers: warp w4 of the warpgroup gives rows 16 w4 .. 16 w4 + 15 of the
// 64 x 16 A as mma.sync's m16n8k16 A fragment (a[0..3]), B is read through a descriptor
// (TransB 0: K-major, each of B's columns contiguous in k; 1: N-major), and the N / 2 accumulators
// lie as in wgmma_ss_64xNx16. Used by dot for an a in registers (dot.hpp, wg_rs_dot).
#define BV_WGMMA_RS_F32_M64N64K16(ab)                                           \
  asm volatile(                                                                 \
      "{\n .reg .pred p;\n .reg .b64 db;\n setp.ne.b32 p, %38, 0;\n"            \
      " mov.b64 db, {%36, %37};\n"                                              \
      " wgmma.mma_async.sync.aligned.m64n64k16.f32." ab "." ab " " BV_WGMMA_R32 \
      ", {%32, %33, %34, %35}, db, p, 1, 1, %39;\n}\n"                          \
      : BV_WGMMA_D32                                                            \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(db.lo), "r"(db.hi), "r"(1), "n"(TransB))
#define BV_WGMMA_RS_F32_M64N128K16(ab)                                           \
  asm volatile(                                                                  \
      "{\n .reg .pred p;\n .reg .b64 db;\n setp.ne.b32 p, %70, 0;\n"             \
      " mov.b64 db, {%68, %69};\n"                                               \
      " wgmma.mma_async.sync.aligned.m64n128k16.f32." ab "." ab " " BV_WGMMA_R64 \
      ", {%64, %65, %66, %67}, db, p, 1, 1, %71;\n}\n"                           \
      : BV_WGMMA_D64                                                             \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(db.lo), "r"(db.hi), "r"(1), "n"(TransB))
template <class T, int N, int TransB>
BV_DI void wgmma_rs_64xNx16(float (&d)[N / 2], const uint32_t (&a)[4], wgmma_desc db) {
  static_assert(N == 64 || N == 128, "internal: wgmma with A in registers takes N = 64 or 128");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (N == 64) {
    if constexpr (std::is_same_v<T, half>)
      BV_WGMMA_RS_F32_M64N64K16("f16");
    else
      BV_WGMMA_RS_F32_M64N64K16("bf16");
  } else {
    if constexpr (std::is_same_v<T, half>)
      BV_WGMMA_RS_F32_M64N128K16("f16");
    else
      BV_WGMMA_RS_F32_M64N128K16("bf16");
  }
#else
  (void)d, (void)a, (void)db;
  __trap();  // unreachable: dot only picks wgmma on sm_90a
#endif
}
#undef BV_WGMMA_RS_F32_M64N64K16
#undef BV_WGMMA_RS_F32_M64N128K16
#undef BV_WGMMA_F8
#undef BV_WGMMA_D32
#undef BV_WGMMA_D64
#undef BV_WGMMA_R32
#undef BV_WGMMA_R64
// The program's dynamic LDS (sized by the launch) and its size in bytes.
BV_DI unsigned char* dyn_lds() {
  extern __shared__ __align__(1024) unsigned char bv_dyn_lds_[];
  return bv_dyn_lds_;
}
BV_DI uint32_t dyn_lds_bytes() {
#if defined(__CUDA_ARCH__)
  uint32_t r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
#else
  return 0;
#endif
}
// The Tensor Memory Accelerator (sm_90a): a tensor map, 128 bytes in global memory, describes a
// 2-D tensor of 16-bit elements (columns innermost) and a box of it; one instruction copies the
// box at given coordinates into LDS, 128-byte swizzled as wgmma reads it (16-byte chunk c of box
// row r at c ^ (r % 8), for a destination 1024-byte aligned), zero-filled outside the tensor, and
// counts its bytes on an mbarrier (mbar_arrive_tx). The map is built in place by one full wave
// (tmap_build): from zeros in 128 LDS bytes, field by field, then copied to global memory with a
// release of the tensor-map proxy, which the building wave acquires; other waves may use it after
// a barrier.
inline constexpr bool has_tma = has_wgmma;
// Two more dimensions (n2 > 1): n2 copies of the 2-D tensor, bytes2 apart, and n3 copies of
// those, bytes3 apart, a box taking all of them (box rows, then the next copy's); a fifth (n4 >
// 1): n4 copies of those, bytes4 apart, box4 of them a box.
BV_DI void tmap_build(uint32_t lds, void* map, const void* base, uint32_t cols, uint32_t rows,
                      uint64_t row_bytes, uint32_t box_cols, uint32_t box_rows, uint32_t n2 = 1,
                      uint64_t bytes2 = 0, uint32_t n3 = 1, uint64_t bytes3 = 0, uint32_t n4 = 1,
                      uint64_t bytes4 = 0, uint32_t box4 = 1) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("st.shared.u32 [%0], 0;" ::"r"(lds + 4 * lane_id()) : "memory");
  __syncwarp();
  if (lane_id() == 0) {
    asm volatile(
        "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;\n"
        "tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 1;\n"
        "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %2;\n"
        "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %3;\n"
        "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %4;\n"
        "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %5;\n"
        "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %6;\n"
        "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 0, 1;\n"
        "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 1, 1;\n"
        "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 1;\n"  // .u16
        "tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%0], 0;\n"
        "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 3;\n"  // 128 bytes
        "tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%0], 0;\n"     // zeros
        ::"r"(lds),
        "l"(base), "r"(box_cols), "r"(box_rows), "r"(cols), "r"(rows), "l"(row_bytes)
        : "memory");
    if (n2 > 1)
      asm volatile(
          "tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 3;\n"
          "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 2, %1;\n"
          "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 2, %1;\n"
          "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 1, %2;\n"
          "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 2, 1;\n"
          "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 3, %3;\n"
          "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 3, %3;\n"
          "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 2, %4;\n"
          "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 3, 1;\n" ::"r"(lds),
          "r"(n2), "l"(bytes2), "r"(n3), "l"(bytes3)
          : "memory");
    if (n4 > 1)
      asm volatile(
          "tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 4;\n"
          "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 4, %1;\n"
          "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 4, %2;\n"
          "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 3, %3;\n"
          "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 4, 1;\n" ::"r"(lds),
          "r"(box4), "r"(n4), "l"(bytes4)
          : "memory");
  }
  __syncwarp();
  asm volatile(
      "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
      "[%0], [%1], 128;\n"
      "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\n" ::"l"(map),
      "r"(lds)
      : "memory");
#else
  (void)lds, (void)map, (void)base, (void)cols, (void)rows, (void)row_bytes, (void)box_cols,
      (void)box_rows, (void)n2, (void)bytes2, (void)n3, (void)bytes3, (void)n4, (void)bytes4,
      (void)box4;
  __trap();
#endif
}
// Copy the box at (col, row) of the tensor `map` describes (a 2-D map, or the first box of the
// extra dimensions of a 4-D one: tmap_build's n2, n3; of a 5-D one, row is the fifth dimension's
// index, the second's to fourth 0) into LDS at dst; its bytes complete on the mbarrier bar.
template <int Rank>
BV_DI void tma_load(uint32_t dst, const void* map, int col, int row, uint32_t bar) {
  static_assert(Rank == 2 || Rank == 4 || Rank == 5, "internal: tensor maps of 2, 4 or 5 dims");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (Rank == 2)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
        "l"(map), "r"(col), "r"(row), "r"(bar)
        : "memory");
  else if constexpr (Rank == 4)
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3, %4, %4}], [%5];\n" ::"r"(dst),
        "l"(map), "r"(col), "r"(row), "r"(0), "r"(bar)
        : "memory");
  else
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3, %3, %3, %4}], [%5];\n" ::"r"(dst),
        "l"(map), "r"(col), "r"(0), "r"(row), "r"(bar)
        : "memory");
#else
  (void)dst, (void)map, (void)col, (void)row, (void)bar;
  __trap();
#endif
}
// Starts fetching a tensor map into the descriptor cache.
BV_DI void tmap_prefetch(const void* map) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
#else
  (void)map;
#endif
}
// An arrive that also expects `bytes` more of asynchronous copies in the current phase.
BV_DI void mbar_arrive_tx(uint32_t bar, uint32_t bytes) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
  __trap();
#endif
}
inline constexpr bool has_stmatrix =
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    false;
#else
    true;
#endif
inline constexpr bool has_mma =
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    false;
#else
    true;
#endif
#else
// MFMA 32x32 on CDNA (gfx90a, gfx94x): lane l supplies A[l % 32][k0 + ...] and B[k0 + ...][l % 32]
// with k0 = (l / 32) * KPL; lane l holds D[8 * (i / 4) + 4 * (l / 32) + i % 4][l % 32] in acc[i].
#if BV_AMD_EMU
// The host compiler's vectors of these shapes (bv/emu/device.hpp), which the emulator's MFMA takes.
using f32x16 = bv::emu::f32x16;
using f16x4 = bv::emu::f16x4;
using i16x4 = bv::emu::i16x4;
#else
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short i16x4 __attribute__((ext_vector_type(4)));
#endif
BV_DI void mfma_32x32x8_f16(f32x16& c, f16x4 a, f16x4 b) {
  c = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
}
BV_DI void mfma_32x32x8_bf16(f32x16& c, i16x4 a, i16x4 b) {
  c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
}
BV_DI void mfma_32x32x2_f32(f32x16& c, float a, float b) {
  c = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c, 0, 0, 0);
}
inline constexpr bool has_mma = true;
#endif

// nvcc takes __builtin_trap for a host function in device code; its device trap is __trap.
BV_DI void trap() {
#if BV_NVIDIA
  __trap();
#else
  __builtin_trap();
#endif
}

}  // namespace bv::gpu::prim
