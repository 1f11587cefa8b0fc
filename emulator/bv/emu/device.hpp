// The device side of the AMD emulator: what a GPU compiler gives the backend's AMD lowering
// (gpu_backend/bv/gpu/), written for the host compiler. With BV_AMD_EMU=1, lang/bv/config.hpp
// includes this header, and the lowering compiles unchanged: its __builtin_amdgcn_* calls become
// the functions below, which ask the emulator's runtime (emulator/src/workgroup.cpp) for the
// calling lane's ids, or meet the other lanes of its wave (ds_bpermute, MFMA) or of its workgroup
// (the barrier). Each lane runs on its own fiber; one OS thread runs a workgroup.
//
// Deliberately absent: __shared__ (a static LDS variable would be one per process, not one per
// workgroup; LDS goes through bv::gpu::prim::lds, which the emulator backs) and the HIP host
// runtime (hipMalloc, <<<>>>: bv/emu/launch.hpp launches kernels instead).
#pragma once
#include <math.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline

namespace bv::emu {

// The host compiler's vectors of the shapes the MFMA builtins take (clang's ext_vector_type
// for the GPU); wave.hpp names them f32x16, f16x4 and i16x4 under emulation.
typedef float f32x16 __attribute__((vector_size(64)));
typedef _Float16 f16x4 __attribute__((vector_size(8)));
typedef short i16x4 __attribute__((vector_size(8)));

// The calling lane's hardware state and its meetings with other lanes (emulator/src).
unsigned workitem_id();
unsigned workgroup_id(int axis);
const void* dispatch_packet();
int bpermute(int byte_addr, int value);
void barrier();
// The static LDS buffer named by `key` (one per (T, N, Tag) of bv::gpu::prim::lds) in the
// calling lane's workgroup.
void* lds_static(const void* key, std::size_t bytes);
enum class mfma_op : int { f32_32x32x8f16, f32_32x32x8bf16_1k, f32_32x32x2f32 };
// One lane's operands of an MFMA (a and b: 4 or 8 bytes, c: 16 floats); d receives its 16
// results once every lane of the wave has given its operands.
void wave_mfma(mfma_op op, const void* a, const void* b, const float* c, float* d, int cbsz,
               int abid, int blgp);

}  // namespace bv::emu

// ---- The amdgcn builtins the lowering calls, as the emulator's functions. -----------------------
inline unsigned __builtin_amdgcn_workitem_id_x() { return bv::emu::workitem_id(); }
inline unsigned __builtin_amdgcn_workgroup_id_x() { return bv::emu::workgroup_id(0); }
inline unsigned __builtin_amdgcn_workgroup_id_y() { return bv::emu::workgroup_id(1); }
inline unsigned __builtin_amdgcn_workgroup_id_z() { return bv::emu::workgroup_id(2); }
// The hsa_kernel_dispatch_packet_t of the launch (workgroup and grid sizes at their offsets).
inline const void* __builtin_amdgcn_dispatch_ptr() { return bv::emu::dispatch_packet(); }
inline int __builtin_amdgcn_ds_bpermute(int byte_addr, int value) {
  return bv::emu::bpermute(byte_addr, value);
}
inline bv::emu::f32x16 __builtin_amdgcn_mfma_f32_32x32x8f16(bv::emu::f16x4 a, bv::emu::f16x4 b,
                                                            bv::emu::f32x16 c, int cbsz, int abid,
                                                            int blgp) {
  bv::emu::f32x16 d;
  bv::emu::wave_mfma(bv::emu::mfma_op::f32_32x32x8f16, &a, &b, reinterpret_cast<const float*>(&c),
                     reinterpret_cast<float*>(&d), cbsz, abid, blgp);
  return d;
}
inline bv::emu::f32x16 __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bv::emu::i16x4 a, bv::emu::i16x4 b,
                                                                bv::emu::f32x16 c, int cbsz,
                                                                int abid, int blgp) {
  bv::emu::f32x16 d;
  bv::emu::wave_mfma(bv::emu::mfma_op::f32_32x32x8bf16_1k, &a, &b,
                     reinterpret_cast<const float*>(&c), reinterpret_cast<float*>(&d), cbsz, abid,
                     blgp);
  return d;
}
inline bv::emu::f32x16 __builtin_amdgcn_mfma_f32_32x32x2f32(float a, float b, bv::emu::f32x16 c,
                                                            int cbsz, int abid, int blgp) {
  bv::emu::f32x16 d;
  bv::emu::wave_mfma(bv::emu::mfma_op::f32_32x32x2f32, &a, &b, reinterpret_cast<const float*>(&c),
                     reinterpret_cast<float*>(&d), cbsz, abid, blgp);
  return d;
}

// ---- HIP's device API, as far as the lowering uses it. -----------------------------------------
inline void __syncthreads() { bv::emu::barrier(); }
// Lanes switch only at barriers and wave operations, and workgroups share memory with the host:
// a sequentially consistent fence is what the device's would order.
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// HIP's vector types used for wide loads and stores; may_alias because the lowering reads float
// and half arrays through them (as the GPU compiler allows).
struct __attribute__((may_alias, aligned(8))) uint2 {
  unsigned int x, y;
};
struct __attribute__((may_alias, aligned(16))) uint4 {
  unsigned int x, y, z, w;
};

// Atomics: real ones, so that workgroups run on several threads stay correct.
namespace bv::emu::detail {
template <class T>
T fetch_add(T* a, T v) {
  return std::atomic_ref<T>(*a).fetch_add(v);
}
template <class T, class F>
T rmw(T* a, F f) {
  std::atomic_ref<T> r(*a);
  T old = r.load();
  while (!r.compare_exchange_weak(old, f(old))) {
  }
  return old;
}
}  // namespace bv::emu::detail
inline int atomicAdd(int* a, int v) { return bv::emu::detail::fetch_add(a, v); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return bv::emu::detail::fetch_add(a, v);
}
inline float atomicAdd(float* a, float v) {
  return bv::emu::detail::rmw(a, [v](float o) { return o + v; });
}
inline int atomicMax(int* a, int v) {
  return bv::emu::detail::rmw(a, [v](int o) { return o > v ? o : v; });
}
inline int atomicMin(int* a, int v) {
  return bv::emu::detail::rmw(a, [v](int o) { return o < v ? o : v; });
}
inline int atomicExch(int* a, int v) { return std::atomic_ref<int>(*a).exchange(v); }
inline float atomicExch(float* a, float v) { return std::atomic_ref<float>(*a).exchange(v); }
inline unsigned int atomicCAS(unsigned int* a, unsigned int expected, unsigned int desired) {
  std::atomic_ref<unsigned int>(*a).compare_exchange_strong(expected, desired);
  return expected;
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long expected,
                                    unsigned long long desired) {
  std::atomic_ref<unsigned long long>(*a).compare_exchange_strong(expected, desired);
  return expected;
}

// Device math the lowering names that the host's libm lacks.
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
