// What every host-API translation unit (gpu_backend/src/host_api*.cu) needs around its launchers:
// the device check, the dtype dispatch, uploads of host buffers and timed launches.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bv/gpu/host_api.hpp"
#include "bv/bv.hpp"

namespace bv::gpu::host {

inline void require() {
  if (device_count() == 0) throw error("blockvec GPU: no GPU device found");
}

// f32, f16 or bf16, as the host API's dtype_id says.
template <class F>
decltype(auto) by_dtype(dtype_id t, F&& f) {
  switch (t) {
    case dtype_id::f16:
      return f(half{});
    case dtype_id::bf16:
      return f(bfloat16{});
    default:
      return f(float{});
  }
}
template <class F>
double any_float(dtype_id t, F&& f) {
  require();
  return by_dtype(t, std::forward<F>(f));
}

// Kernels instantiated for f32 and f16 only: bf16 is refused rather than silently converted.
template <class F>
double f32_f16(dtype_id t, const char* kernel, F&& f) {
  require();
  if (t == dtype_id::f32) return f(float{});
  if (t == dtype_id::f16) return f(half{});
  throw std::invalid_argument(std::string("blockvec GPU: ") + kernel +
                              ": bf16 is not instantiated in this build (f32, f16)");
}

template <class T>
device_tensor<T> up(const char* name, std::vector<int64_t> shape, const void* host) {
  return device_tensor<T>::from_host(name, std::move(shape), static_cast<const T*>(host));
}

// Every byte of t 0xff (NaN in each float dtype, -1 in integers): an output read back for a
// comparison, so that an element the kernel leaves unwritten comes back as that, not as whatever
// the buffer cache's last tensor of the size held (often the same kernel's right answer). The
// benchmarks' outputs, compared with nothing, stay as they come.
template <class T>
void poison(device_tensor<T>& t) {
  t.fill_bytes(0xff);
}
// A new output of an entry point whose results are compared, poisoned.
template <class T>
device_tensor<T> output(const char* name, std::vector<int64_t> shape) {
  auto t = device_tensor<T>::empty(name, std::move(shape));
  poison(t);
  return t;
}

// Device time of f's launches (events), then a full synchronisation so errors surface here.
template <class F>
double timed(F&& f) {
  const double ms = time_ms(f);
  synchronize();
  return ms;
}

}  // namespace bv::gpu::host
