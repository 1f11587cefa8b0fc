// bv::half and bv::bfloat16 as the GPU compiler's 16-bit float types. nvcc: CUDA's __half and
// __nv_bfloat16 (what mma.sync takes). clang HIP (hipcc, clang -x hip): _Float16, and a 16-bit
// bfloat16 of our own (round-to-nearest-even from float), since HIP 5.2 has no device bf16 type
// that clang-19 and clang-15 both accept.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) && !defined(__HIP__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
namespace bv {
using half = __half;
using bfloat16 = __nv_bfloat16;
}  // namespace bv
#else
namespace bv {
using half = _Float16;
// The conversions are forced inline: left to the inliner, a kernel grown large enough (gfx942's
// 128x256 bf16 matmul) called bfloat16(float) for every element its epilogue stored, a call and
// an LDS round trip each.
struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  __host__ __device__ __attribute__((always_inline)) explicit bfloat16(float f) {
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);
      bits = static_cast<uint16_t>(u >> 16);
    }
  }
  __host__ __device__ __attribute__((always_inline)) explicit bfloat16(double d)
      : bfloat16(static_cast<float>(d)) {}
  __host__ __device__ __attribute__((always_inline)) explicit bfloat16(int i)
      : bfloat16(static_cast<float>(i)) {}
  __host__ __device__ __attribute__((always_inline)) explicit operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
  }
};
}  // namespace bv
#endif
