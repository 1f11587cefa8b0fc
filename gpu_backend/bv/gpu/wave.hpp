// The wave primitives the whole device lowering is written against: lane and wave ids, program
// ids, a butterfly shuffle inside a wave, LDS (shared memory) buffers, the workgroup barrier, and
// the matrix multiply-accumulate instructions. Everything else in gpu_backend/bv/gpu/ builds on
// these alone, so a CPU emulation of this file (lane by lane) can run the same lowering.
#pragma once
#include <cstdint>
#include <type_traits>

#include "bv/gpu/half.hpp"
#include "bv/gpu/hip_compat.hpp"

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
  const auto* pkt = static_cast<const unsigned char*>(__builtin_amdgcn_dispatch_ptr());
  const uint16_t wg = reinterpret_cast<const uint16_t*>(pkt + 4)[axis];
  const uint32_t grid = reinterpret_cast<const uint32_t*>(pkt + 12)[axis];
  return static_cast<int>(grid / wg);
}
#endif
BV_DI int lane_id() { return thread_id() & (wave_size - 1); }
BV_DI int wave_id() { return thread_id() / wave_size; }

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
BV_DI void barrier() { __syncthreads(); }

// A static LDS buffer of N elements of T. Every (T, N, Tag) names one buffer per kernel; an op
// that uses one brackets its use with barriers, so ops that share a buffer never overlap.
template <class T, int N, int Tag = 0>
BV_DI T* lds() {
  __shared__ unsigned char buf[N * sizeof(T)] __attribute__((aligned(16)));
  return reinterpret_cast<T*>(buf);
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
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
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
// An ordinary arrive (release: this thread's earlier LDS stores are visible to the waiters).
BV_DI void mbar_arrive(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mbarrier.arrive.shared.b64 _, [%0];\n" ::"r"(bar) : "memory");
#else
  (void)bar;
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
// The program's dynamic LDS (sized by the launch) and its size in bytes.
BV_DI unsigned char* dyn_lds() {
  extern __shared__ __align__(128) unsigned char bv_dyn_lds_[];
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
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short i16x4 __attribute__((ext_vector_type(4)));
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

BV_DI void trap() { __builtin_trap(); }

}  // namespace bv::gpu::prim
