// Which backend this translation unit compiles a kernel for, and the qualifiers that follow.
#pragma once

#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
#define BV_DEVICE_PASS 1
#else
#define BV_DEVICE_PASS 0
#endif

// BV_GPU: this translation unit is compiled by a GPU compiler (hipcc, clang -x hip, nvcc), so
// kernels are device functions. Without it, kernels are plain C++ run by the interpreter.
// BV_AMD_EMU=1: the host compiler builds the GPU backend's AMD lowering for the emulator
// (emulator/), which runs it lane by lane; the GPU language then lives in its own inline
// namespace, so that a program may link emulated and GPU-compiled translation units.
// BV_TENSORS: the inline namespace for host code whose types hold this backend's tensors
// (`inline namespace BV_TENSORS { struct weights { bv::tensor<float> w; }; }`). bv::tensor is
// another type on each backend, and a program linking several backends' translation units (the
// blockvec command) must not merge such types' inline members, whose names would be the same.
#if defined(BV_AMD_EMU) && BV_AMD_EMU
#define BV_GPU 1
#define BV_HD
#define BV_KERNEL inline
#define BV_INLINE inline
#define BV_INLINE_LAMBDA
#define BV_TENSORS amd_emu_tensors
#define gpu_lang gpu_lang_emu
#include "bv/emu/device.hpp"
#elif defined(__HIPCC__) || defined(__CUDACC__)
#define BV_GPU 1
#define BV_TENSORS gpu_tensors
#define BV_HD __host__ __device__
// Always inlined into the launch trampoline (a kernel launched with several configurations,
// e.g. pipeline depths, would otherwise become one outlined function with its arguments and
// constants passed at run time).
#define BV_KERNEL __device__ __forceinline__
// A kernel's helper function (attention's softmax step), inlined into the kernel: a call left in
// the device code would end any tensor-core work left in flight across it (ptxas then serialises
// every wgmma of the kernel: C7510).
#define BV_INLINE __host__ __device__ __forceinline__
// The same for a lambda, written after its parameters (a for_range body: `[&](int k, const auto&
// tile, carried c) BV_INLINE_LAMBDA { ... }`). The GPU's loop calls its body in two places (its
// TMA pipeline and its loads through the rings), and nvcc may leave a large body a call in both,
// serialising every wgmma (C7510: the attention backward's dQ step took 1.3 ms more on an H100),
// even where each place calls an instantiation of its own.
#define BV_INLINE_LAMBDA __attribute__((always_inline))
#else
#define BV_GPU 0
#define BV_TENSORS cpu_tensors
#define BV_HD
#define BV_KERNEL inline
#define BV_INLINE inline
#define BV_INLINE_LAMBDA
#endif

namespace bv {
// Lanes per wavefront: 64 on AMD CDNA (gfx90a, gfx942), 32 on NVIDIA.
inline constexpr int default_wave_size = 64;
// Waves per program when a kernel does not say (Triton's num_warps=4).
inline constexpr int default_waves = 4;
}  // namespace bv
