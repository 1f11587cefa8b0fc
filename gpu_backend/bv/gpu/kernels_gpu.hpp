// GPU launchers for the kernels in kernels/ (GPU-compiled translation units only): the launch
// configurations the GPU backend uses, on device tensors. The host wrappers in kernels/ are the
// interpreter's; these are their GPU counterparts, used by host_api.cu, the GPU tests and bench.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace bv::gpu::kernels {

template <class T>
launch_result add(const device_tensor<T>& x, const device_tensor<T>& y, device_tensor<T>& out) {
  constexpr int B = 2048;
  const int n = static_cast<int>(out.numel());
  return launch<bv::kernels::add_kernel<T, B, 4>>(grid(cdiv(n, B)), x, y, out, n);
}

template <class T>
launch_result copy(const device_tensor<T>& x, device_tensor<T>& out) {
  constexpr int B = 2048;
  const int n = static_cast<int>(out.numel());
  return launch<bv::kernels::copy_kernel<T, B, 4>>(grid(cdiv(n, B)), x, out, n);
}

namespace detail {
template <class T, int B, int W>
launch_result softmax_fit(const device_tensor<T>& x, device_tensor<T>& out, int rows, int cols) {
  return launch<bv::kernels::softmax_kernel<T, B, W>>(grid(rows), x, out, cols, cols, cols);
}
}  // namespace detail

// softmax over rows of a contiguous rows x cols matrix.
template <class T>
launch_result softmax(const device_tensor<T>& x, device_tensor<T>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  if (cols <= 256) return detail::softmax_fit<T, 256, 2>(x, out, rows, cols);
  if (cols <= 1024) return detail::softmax_fit<T, 1024, 4>(x, out, rows, cols);
  if (cols <= 4096) return detail::softmax_fit<T, 4096, 8>(x, out, rows, cols);
  if (cols <= 8192) return detail::softmax_fit<T, 8192, 16>(x, out, rows, cols);
  return launch<bv::kernels::softmax_looped_kernel<T, 4096, 8>>(grid(rows), x, out, cols, cols,
                                                                cols);
}

// c = a @ b, contiguous row-major.
template <int BM, int BN, int BK, int W, class T, class O>
launch_result matmul_tiles(const device_tensor<T>& a, const device_tensor<T>& b,
                           device_tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  return launch<bv::kernels::matmul_kernel<T, O, BM, BN, BK, 8, W>>(
      grid(cdiv(M, BM) * cdiv(N, BN)), a, b, c, M, N, K, K, 1, N, 1, N, 1);
}
template <class T, class O>
launch_result matmul(const device_tensor<T>& a, const device_tensor<T>& b, device_tensor<O>& c) {
  // NVIDIA: 8 warps of 32 over 128x128 tiles. AMD: 4 waves of 64 over 64x64 tiles (128x128
  // spills on gfx940/gfx942 for now; see docs/isa_report.md).
  if constexpr (is_16bit_float<T> && gpu::prim::wave_size == 32)
    return matmul_tiles<128, 128, 32, 8>(a, b, c);
  else
    return matmul_tiles<64, 64, 32, 4>(a, b, c);
}

}  // namespace bv::gpu::kernels
