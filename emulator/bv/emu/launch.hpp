// The host side of an emulated translation unit (BV_AMD_EMU=1), in place of the HIP runtime of
// bv/gpu/runtime.hpp: device tensors in host memory and bv::launch<kernel>(grid, args...) running
// the kernel lane by lane in the emulator (bv/emu/runtime.hpp). The spelling is the GPU
// backend's, so host code written for a GPU translation unit compiles here too.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "bv/emu/runtime.hpp"
#include "bv/gpu/memory.hpp"
#include "bv/gpu/program.hpp"
#include "bv/grid.hpp"
#include "bv/kernel_name.hpp"
#include "bv/launch_result.hpp"
#include "bv/launch_tuning.hpp"
#include "bv/random.hpp"

namespace bv {
namespace emu {
// An emulated launch's result: the backends' launch_result (diagnostics, errors, deadlocked)
// with the launch's counters.
struct result : launch_result {
  counters counts;
  bool memory_checked = false;  // the memory checks and counters ran (launch_report)
};
// Whether launches print their diagnostics to stderr (not when BV_EMU_QUIET=1).
inline bool print_diagnostics() {
  const char* q = std::getenv("BV_EMU_QUIET");
  return !(q && q[0] == '1');
}
}  // namespace emu
namespace gpu {
// Its own inline namespace: a program may link emulated and GPU-compiled translation units.
inline namespace emu_host {
using error = emu::error;
// The target launches emulate (bv::emu::set_target).
inline target device_target() { return emu::current_target(); }
// Launches complete before they return.
inline void synchronize() {}
}  // namespace emu_host
}  // namespace gpu

inline namespace gpu_lang {

// A tensor of the emulated device: host memory, a shape and row-major strides.
template <class T>
class device_tensor {
 public:
  using value_type = T;
  device_tensor() = default;
  static device_tensor empty(std::string name, std::vector<int64_t> shape) {
    device_tensor t;
    t.name_ = std::move(name);
    t.shape_ = std::move(shape);
    t.strides_.assign(t.shape_.size(), 1);
    for (int d = static_cast<int>(t.shape_.size()) - 2; d >= 0; --d)
      t.strides_[d] = t.strides_[d + 1] * t.shape_[d + 1];
    const size_t n = static_cast<size_t>(t.numel());
    // Uninitialised, as device memory is: NaN bytes, so a read before a write shows.
    t.data_ = std::shared_ptr<T[]>(new T[n > 0 ? n : 1]);
    t.fill_bytes(0xff);
    return t;
  }
  static device_tensor from_host(std::string name, std::vector<int64_t> shape, const T* host) {
    device_tensor t = empty(std::move(name), std::move(shape));
    t.copy_from_host(host);
    return t;
  }
  static device_tensor zeros(std::string name, std::vector<int64_t> shape) {
    device_tensor t = empty(std::move(name), std::move(shape));
    t.fill_bytes(0);
    return t;
  }
  static device_tensor full(std::string name, std::vector<int64_t> shape, T value) {
    device_tensor t = empty(std::move(name), std::move(shape));
    for (int64_t i = 0; i < t.numel(); ++i) t.data_[i] = value;
    return t;
  }
  // The interpreter's values for a seed (bv/random.hpp).
  static device_tensor randn(std::string name, std::vector<int64_t> shape, uint64_t seed,
                             double scale = 1.0) {
    device_tensor t = empty(std::move(name), std::move(shape));
    lang::fill_random(t.data(), t.numel(), seed, scale);
    return t;
  }
  // Whole-buffer copies: a view (transposed()) has its storage's bytes in storage order, as on
  // the GPU backend.
  void copy_from_host(const T* host) { std::memcpy(data(), host, bytes()); }
  void copy_to_host(T* host) const { std::memcpy(host, data(), bytes()); }
  std::vector<T> to_host() const { return std::vector<T>(data(), data() + numel()); }
  // The elements in row-major order of the shape (the interpreter's tensor::values()), views
  // included.
  std::vector<T> values() const {
    if (is_contiguous()) return to_host();
    std::vector<T> v(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) v[static_cast<size_t>(i)] = data_[offset_of(i)];
    return v;
  }
  void fill_bytes(int b) { std::memset(static_cast<void*>(data()), b, bytes()); }

  const std::string& name() const { return name_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t size(int d) const { return shape_.at(d); }
  int64_t stride(int d) const { return strides_.at(d); }
  int dim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (auto s : shape_) n *= s;
    return n;
  }
  size_t bytes() const { return static_cast<size_t>(numel()) * sizeof(T); }
  bool is_contiguous() const {
    int64_t want = 1;
    for (int d = dim() - 1; d >= 0; --d) {
      if (shape_[d] != 1 && strides_[d] != want) return false;
      want *= shape_[d];
    }
    return true;
  }
  // The 2-D transpose as a view of the same memory (the interpreter's tensor::transposed()):
  // kernels that take strides (matmul) read it in place, so host code that passes transposed
  // weights (a backward's weight gradients) runs here unchanged.
  device_tensor transposed() const {
    if (dim() != 2)
      throw std::invalid_argument("tensor '" + name_ + "': transposed() needs a 2-D tensor");
    device_tensor t = *this;
    std::swap(t.shape_[0], t.shape_[1]);
    std::swap(t.strides_[0], t.strides_[1]);
    return t;
  }
  T* data() const { return data_.get(); }
  // Host access, as the interpreter's tensor has it, so that references and kernel-library
  // entries written against bv::tensor read and fill an emulated one unchanged.
  T& operator()(int64_t i) const { return data_[i * strides_.at(0)]; }
  T& operator()(int64_t i, int64_t j) const {
    return data_[i * strides_.at(0) + j * strides_.at(1)];
  }
  T& operator()(int64_t i, int64_t j, int64_t k) const {
    return data_[i * strides_.at(0) + j * strides_.at(1) + k * strides_.at(2)];
  }
  T& operator()(int64_t i, int64_t j, int64_t k, int64_t l) const {
    return data_[i * strides_.at(0) + j * strides_.at(1) + k * strides_.at(2) + l * strides_.at(3)];
  }
  // The i-th element in row-major order of the shape (a view's too, as the interpreter's).
  T& flat(int64_t i) const { return data_[is_contiguous() ? i : offset_of(i)]; }
  void fill(T value) {
    for (int64_t i = 0; i < numel(); ++i) data_[i] = value;
  }
  operator ptr<T>() const { return {data_.get()}; }
  operator ptr<const T>() const { return {data_.get()}; }

 private:
  // Where the i-th element in row-major order of the shape lies in storage.
  int64_t offset_of(int64_t i) const {
    int64_t off = 0;
    for (int d = dim() - 1; d >= 0; --d) {
      off += (i % shape_[d]) * strides_[d];
      i /= shape_[d];
    }
    return off;
  }
  std::shared_ptr<T[]> data_;
  std::string name_;
  std::vector<int64_t> shape_, strides_;
};
template <class T>
using tensor = device_tensor<T>;

template <class X>
inline constexpr bool is_device_tensor = false;
template <class T>
inline constexpr bool is_device_tensor<device_tensor<T>> = true;
// The interpreter's name for the trait (bv::library::compare_with takes either).
template <class X>
inline constexpr bool is_tensor = is_device_tensor<X>;

// A failed launch has thrown already; nothing stays pending.
inline int exit_status() { return 0; }

namespace detail {
using bv::lang::kernel_name_of;

template <auto K>
struct kernel_traits;
template <int W, class... P, void (*K)(program<W>, P...)>
struct kernel_traits<K> {
  static constexpr int waves = W;
  static constexpr int threads = W * gpu::prim::wave_size;
  using params = std::tuple<P...>;
};

template <class P, class A>
P to_param(const A& a) {
  using D = std::remove_cvref_t<A>;
  if constexpr (is_device_tensor<D>) {
    using V = typename D::value_type;
    static_assert(rules::launch_tensor_param<(std::is_same_v<P, ptr<V>> ||
                                              std::is_same_v<P, ptr<const V>>)>());
    return static_cast<P>(a);
  } else if constexpr (std::is_arithmetic_v<P> && std::is_arithmetic_v<D>) {
    return static_cast<P>(a);
  } else {
    static_assert(rules::launch_param<(std::is_convertible_v<const A&, P>)>());
    return P(a);
  }
}

// What each lane runs: the kernel on its own copy of the arguments (they become its registers,
// as kernel arguments do on the device).
template <auto K, class... P>
struct emu_call {
  std::tuple<P...> args;
  static void run(void* self) {
    const auto& args = static_cast<emu_call*>(self)->args;
    std::apply([](P... a) { K(program<kernel_traits<K>::waves>{}, a...); }, args);
  }
};

template <class A>
void add_global(emu::launch_desc& d, const A& a) {
  if constexpr (is_device_tensor<std::remove_cvref_t<A>>)
    if (a.numel() > 0) d.globals.push_back({a.data(), a.bytes()});
}

template <auto K, class... P, class... A>
emu::result launch_impl(std::tuple<P...>*, grid g, A&&... args) {
  static_assert(rules::launch_arity<sizeof...(P), sizeof...(A)>());
  static constexpr auto name = kernel_name_of<K>();
  static const std::string name_str(name);
  emu::result r;
  r.kernel = name_str;
  r.programs = g.count();
  r.waves = kernel_traits<K>::waves;
  r.threads_per_program = kernel_traits<K>::threads;
  r.tgt = gpu::device_target();
  if (g.count() == 0) return r;
  emu_call<K, P...> call{std::tuple<P...>(to_param<P>(args)...)};
  emu::launch_desc d;
  d.kernel = name_str.c_str();
  d.grid[0] = g.x, d.grid[1] = g.y, d.grid[2] = g.z;
  d.waves = kernel_traits<K>::waves;
  d.tgt = r.tgt;
  (add_global(d, args), ...);
#if BV_EMU_INSTRUMENTED
  d.instrumented = true;
#endif
  const auto t0 = std::chrono::steady_clock::now();
  emu::launch_report rep = emu::run(d, &emu_call<K, P...>::run, &call);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.counts = rep.counts;
  r.memory_checked = rep.memory_checked;
  r.errors = rep.errors;
  r.warnings = rep.warnings;
  r.deadlocked = rep.deadlocked;
  r.diagnostics = std::move(rep.diagnostics);
  if (emu::print_diagnostics())
    for (const auto& dg : r.diagnostics) std::fprintf(stderr, "%s", dg.text().c_str());
  return r;
}
}  // namespace detail

// launch<kernel>(grid, args...): runs the kernel in the emulator and returns when it is done,
// with what its checks found (diagnostics, also printed to stderr unless BV_EMU_QUIET=1) and its
// counters. Device tensors become pointers to their host memory; accesses inside them count as
// global memory traffic.
template <auto K, class... A>
emu::result launch(grid g, A&&... args) {
  using params = typename detail::kernel_traits<K>::params;
  return detail::launch_impl<K>(static_cast<params*>(nullptr), g, std::forward<A>(args)...);
}
// launch<kernel>(gpu_tuning<...>{lds_bytes}, grid, args...) (bv/launch_tuning.hpp): a plain
// launch here, once the arguments it fixes at 1 are checked. Its stages and LDS are for NVIDIA's
// block-pointer rings (the AMD lowering has none), its register budget for the device compiler.
template <auto K, int Stages, int MinPrograms, class Units, class... A>
emu::result launch(gpu_tuning<Stages, MinPrograms, Units>, grid g, A&&... args) {
  lang::check_unit_args(Units{}, lang::kernel_name_of<K>(), args...);
  return launch<K>(g, std::forward<A>(args)...);
}

}  // namespace gpu_lang
}  // namespace bv
