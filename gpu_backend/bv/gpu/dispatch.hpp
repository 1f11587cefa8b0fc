// Backend choice for CPU-compiled programs (the CLI, tests, samples): run a kernel from kernels/
// on host tensors, on the GPU when this program was built with one and a device is present, on
// the interpreter otherwise; BV_INTERPRET=1 forces the interpreter (bv::gpu::available() says
// false). backend::cpu and backend::gpu force one. The GPU path copies the tensors to the device
// and back; its launch_result carries the kernel's device time and "(gpu)" in its name.
#pragma once
#include <stdexcept>
#include <string>
#include <type_traits>

#include "bv/bv.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace bv::gpu {

enum class backend { automatic, cpu, gpu };

// "cpu", "gpu" or "auto"; false on anything else.
inline bool parse_backend(const std::string& s, backend& out) {
  if (s == "cpu")
    out = backend::cpu;
  else if (s == "gpu")
    out = backend::gpu;
  else if (s == "auto")
    out = backend::automatic;
  else
    return false;
  return true;
}

inline bool use_gpu(backend b) {
  if (b == backend::cpu) return false;
  if (b == backend::gpu) {
    if (!available()) throw std::runtime_error("blockvec: --backend gpu, but " + describe());
    return true;
  }
  return available();
}

template <class T>
constexpr dtype_id dtype_of() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                "The GPU host entry points take f32, f16 or bf16 tensors.");
  if constexpr (std::is_same_v<T, half>)
    return dtype_id::f16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return dtype_id::bf16;
  else
    return dtype_id::f32;
}

namespace detail {
template <class... T>
void require_contiguous(const char* kernel, const tensor<T>&... ts) {
  ((ts.is_contiguous()
        ? void()
        : throw std::runtime_error(std::string("blockvec GPU: ") + kernel + ": tensor '" +
                                   ts.name() + "' is not contiguous; pass .contiguous()")),
   ...);
}
inline launch_result gpu_result(const char* name, int64_t programs, double ms) {
  launch_result r;
  r.kernel = std::string(name) + " (gpu)";
  r.programs = programs;
  r.seconds = ms * 1e-3;
  return r;
}
}  // namespace detail

template <class T>
launch_result add(const tensor<T>& x, const tensor<T>& y, tensor<T>& out,
                  backend b = backend::automatic) {
  if (!use_gpu(b)) return bv::kernels::add(x, y, out);
  detail::require_contiguous("add", x, y, out);
  const double ms = gpu::add(dtype_of<T>(), x.data(), y.data(), out.data(), out.numel());
  out.mark_initialised();
  return detail::gpu_result("add_kernel", cdiv(out.numel(), int64_t(2048)), ms);
}

template <class T>
launch_result copy(const tensor<T>& x, tensor<T>& out, backend b = backend::automatic) {
  if (!use_gpu(b)) return bv::kernels::copy(x, out);
  detail::require_contiguous("copy", x, out);
  const double ms = gpu::copy(dtype_of<T>(), x.data(), out.data(), out.numel());
  out.mark_initialised();
  return detail::gpu_result("copy_kernel", cdiv(out.numel(), int64_t(2048)), ms);
}

template <class T>
launch_result softmax(const tensor<T>& x, tensor<T>& out, backend b = backend::automatic) {
  if (!use_gpu(b)) return bv::kernels::softmax(x, out);
  detail::require_contiguous("softmax", x, out);
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  const double ms = gpu::softmax(dtype_of<T>(), x.data(), out.data(), rows, cols);
  out.mark_initialised();
  return detail::gpu_result("softmax_kernel", rows, ms);
}

template <class T, class O>
launch_result matmul(const tensor<T>& a, const tensor<T>& b, tensor<O>& c,
                     backend be = backend::automatic) {
  if (!use_gpu(be)) return bv::kernels::matmul(a, b, c);
  static_assert(std::is_same_v<O, float> || std::is_same_v<O, T>,
                "The GPU matmul writes f32 or the inputs' dtype.");
  detail::require_contiguous("matmul", a, b, c);
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  const double ms =
      gpu::matmul(dtype_of<T>(), dtype_of<O>(), a.data(), b.data(), c.data(), M, N, K);
  c.mark_initialised();
  return detail::gpu_result("matmul_kernel", int64_t(cdiv(M, 128)) * cdiv(N, 128), ms);
}

}  // namespace bv::gpu
