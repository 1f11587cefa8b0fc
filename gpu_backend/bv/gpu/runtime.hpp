// The GPU runtime, host side: status checks with clear errors, device tensors, and
// bv::launch<kernel>(grid, args...) through a `template <auto K> __global__` trampoline that
// starts W * wave_size threads per program. Only GPU-compiled translation units see this header.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "bv/gpu/hip_compat.hpp"
#include "bv/gpu/memory.hpp"
#include "bv/gpu/program.hpp"
#include "bv/grid.hpp"
#include "bv/kernel_name.hpp"
#include "bv/launch_result.hpp"
#include "bv/launch_tuning.hpp"
#include "bv/random.hpp"

namespace bv {
namespace gpu {

// Thrown when a HIP/CUDA call fails: names the call, the error and where it was made.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check(hipError_t e, const char* what,
                  std::source_location loc = std::source_location::current()) {
  if (e == hipSuccess) return;
  // Without a GPU each call fails with its own code (HIP's hipMalloc: hipErrorInvalidDevice), so
  // the cause is named first.
  int n = 0;
  const bool none = hipGetDeviceCount(&n) != hipSuccess || n == 0;
  if (none) (void)hipGetLastError();
  throw error(std::string("blockvec GPU: ") + (none ? "no GPU device found: " : "") + what +
              " failed: " + hipGetErrorName(e) + " (" + hipGetErrorString(e) + ") at " +
              loc.file_name() + ":" + std::to_string(loc.line()));
}

// Number of GPUs the runtime sees (0 when none, or no driver).
inline int device_count() {
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess) {
    (void)hipGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

// The target of the device this process runs on: sm_90 in an NVIDIA build; in an AMD build the
// device's architecture (gfx90a, or gfx942 for the MI300 family), read once.
inline target device_target() {
#if BV_NVIDIA
  return target::sm_90;
#else
  static const target t = [] {
    hipDeviceProp_t prop{};
    int dev = 0;
    target found = default_target;
    if (hipGetDevice(&dev) == hipSuccess && hipGetDeviceProperties(&prop, dev) == hipSuccess) {
      const std::string arch = prop.gcnArchName;
      if (arch.rfind("gfx90a", 0) == 0) found = target::gfx90a;
    } else {
      (void)hipGetLastError();
    }
    return found;
  }();
  return t;
#endif
}

// Device buffers are cached by size, as PyTorch's allocator does: a host composition of many
// kernels (a decoder block's forward and backward) makes and drops temporaries between launches,
// and hipFree waits for the whole device. Every launch and copy here is on the default stream, so
// a buffer handed out again is only touched by work queued after the work that used it. The lock
// is a spin flag: <mutex> brings <chrono>, in whose presence nvcc reports a malformed print_if
// condition once, as a constant-expression failure, instead of at each use.
class buffer_cache {
 public:
  static buffer_cache& get() {
    static buffer_cache* c = new buffer_cache;  // never destroyed: the runtime may be gone at exit
    return *c;
  }
  void* acquire(size_t bytes, const std::string& what) {
    {
      const lock lk(busy_);
      auto it = free_.find(bytes);
      if (it != free_.end()) {
        void* p = it->second;
        free_.erase(it);
        return p;
      }
    }
    void* p = nullptr;
    if (hipMalloc(&p, bytes) != hipSuccess) {
      (void)hipGetLastError();
      trim();  // the device may be full of cached buffers: give them back and try once more
      check(hipMalloc(&p, bytes), what.c_str());
    }
    return p;
  }
  void release(void* p, size_t bytes) {
    const lock lk(busy_);
    free_.emplace(bytes, p);
  }
  // Frees every cached buffer (after the device has finished with them).
  void trim() {
    const lock lk(busy_);
    if (free_.empty()) return;
    (void)hipDeviceSynchronize();
    for (auto& [bytes, p] : free_) (void)hipFree(p);
    free_.clear();
  }

 private:
  struct lock {
    std::atomic_flag& f;
    explicit lock(std::atomic_flag& flag) : f(flag) {
      while (f.test_and_set(std::memory_order_acquire)) {
      }
    }
    ~lock() { f.clear(std::memory_order_release); }
  };
  std::atomic_flag busy_;
  std::multimap<size_t, void*> free_;
};

inline void synchronize() { check(hipDeviceSynchronize(), "hipDeviceSynchronize"); }

// Milliseconds between two events around fn(), after a synchronize.
template <class F>
double time_ms(F&& fn) {
  hipEvent_t a, b;
  check(hipEventCreate(&a), "hipEventCreate");
  check(hipEventCreate(&b), "hipEventCreate");
  check(hipEventRecord(a, 0), "hipEventRecord");
  fn();
  check(hipEventRecord(b, 0), "hipEventRecord");
  check(hipEventSynchronize(b), "hipEventSynchronize");
  float ms = 0;
  check(hipEventElapsedTime(&ms, a, b), "hipEventElapsedTime");
  check(hipEventDestroy(a), "hipEventDestroy");
  check(hipEventDestroy(b), "hipEventDestroy");
  return ms;
}
}  // namespace gpu

inline namespace gpu_lang {

// A tensor in device memory: a shared buffer, a shape and row-major strides.
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
    const size_t bytes = std::max<size_t>(static_cast<size_t>(t.numel()) * sizeof(T), 1);
    auto& cache = gpu::buffer_cache::get();
    T* p = static_cast<T*>(cache.acquire(
        bytes, "hipMalloc of " + std::to_string(bytes) + " bytes for tensor '" + t.name_ + "'"));
    t.data_ = std::shared_ptr<T>(p, [bytes](T* q) { gpu::buffer_cache::get().release(q, bytes); });
    return t;
  }
  static device_tensor from_host(std::string name, std::vector<int64_t> shape, const T* host) {
    device_tensor t = empty(std::move(name), std::move(shape));
    t.copy_from_host(host);
    return t;
  }
  // The interpreter's tensor makers, with the same values for the same seed (bv/random.hpp).
  static device_tensor zeros(std::string name, std::vector<int64_t> shape) {
    device_tensor t = empty(std::move(name), std::move(shape));
    t.fill_bytes(0);
    return t;
  }
  static device_tensor full(std::string name, std::vector<int64_t> shape, T value) {
    device_tensor t = empty(std::move(name), std::move(shape));
    t.copy_from_host(std::vector<T>(static_cast<size_t>(t.numel()), value).data());
    return t;
  }
  static device_tensor randn(std::string name, std::vector<int64_t> shape, uint64_t seed,
                             double scale = 1.0) {
    device_tensor t = empty(std::move(name), std::move(shape));
    std::vector<T> v(static_cast<size_t>(t.numel()));
    lang::fill_random(v.data(), t.numel(), seed, scale);
    t.copy_from_host(v.data());
    return t;
  }
  // Whole-buffer copies: a view (transposed()) has its storage's bytes in storage order.
  void copy_from_host(const T* host) {
    gpu::check(hipMemcpy(data_.get(), host, bytes(), hipMemcpyHostToDevice),
               ("hipMemcpy to tensor '" + name_ + "'").c_str());
  }
  void copy_to_host(T* host) const {
    gpu::check(hipMemcpy(host, data_.get(), bytes(), hipMemcpyDeviceToHost),
               ("hipMemcpy from tensor '" + name_ + "'").c_str());
  }
  std::vector<T> to_host() const {
    std::vector<T> v(static_cast<size_t>(numel()));
    copy_to_host(v.data());
    return v;
  }
  // The elements in row-major order of the shape (the interpreter's tensor::values()), views
  // included.
  std::vector<T> values() const {
    std::vector<T> raw = to_host();
    if (is_contiguous()) return raw;
    std::vector<T> v(raw.size());
    for (int64_t i = 0; i < numel(); ++i) {
      int64_t off = 0, rest = i;
      for (int d = dim() - 1; d >= 0; --d) {
        off += (rest % shape_[d]) * strides_[d];
        rest /= shape_[d];
      }
      v[static_cast<size_t>(i)] = raw[static_cast<size_t>(off)];
    }
    return v;
  }
  // Fill every byte with b (0xff makes floats NaN: the poison tests use).
  void fill_bytes(int b) {
    gpu::check(hipMemset(data_.get(), b, bytes()), ("hipMemset of tensor '" + name_ + "'").c_str());
  }

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
  // kernels that take strides (matmul) read it in place.
  device_tensor transposed() const {
    if (dim() != 2)
      throw std::invalid_argument("tensor '" + name_ + "': transposed() needs a 2-D tensor");
    device_tensor t = *this;
    std::swap(t.shape_[0], t.shape_[1]);
    std::swap(t.strides_[0], t.strides_[1]);
    return t;
  }
  T* data() const { return data_.get(); }
  operator ptr<T>() const { return {data_.get()}; }
  operator ptr<const T>() const { return {data_.get()}; }

 private:
  std::shared_ptr<T> data_;
  std::string name_;
  std::vector<int64_t> shape_, strides_;
};
// Host code written against bv::tensor reads the same in a GPU translation unit.
template <class T>
using tensor = device_tensor<T>;

template <class X>
inline constexpr bool is_device_tensor = false;
template <class T>
inline constexpr bool is_device_tensor<device_tensor<T>> = true;

// exit_status(): what a program returns so that CI sees a failure, as on the interpreter: 1 when
// the device reported an error (a failed device_assert traps the kernel; a failed launch has
// already thrown), 0 otherwise. Waits for the device.
inline int exit_status() {
  const hipError_t e = hipDeviceSynchronize();
  if (e == hipSuccess) return 0;
  fprintf(stderr, "blockvec GPU: %s (%s)\n", hipGetErrorName(e), hipGetErrorString(e));
  return 1;
}

// check_tensors_ready(a, b, ...): every tensor allocated and contiguous (device tensors always
// live on the device). Prints what is wrong and returns false.
template <class... T>
bool check_tensors_ready(const device_tensor<T>&... ts) {
  bool ok = true;
  auto one = [&](const auto& t) {
    if (!t.data()) {
      fprintf(stderr, "blockvec GPU: tensor '%s' has no device memory\n", t.name().c_str());
      ok = false;
    } else if (!t.is_contiguous()) {
      fprintf(stderr, "blockvec GPU: tensor '%s' is not contiguous\n", t.name().c_str());
      ok = false;
    }
  };
  (one(ts), ...);
  return ok;
}

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

// Programs per multiprocessor the compiler must leave registers for. On NVIDIA programs of 512
// threads or more ask for two, so that a program's barriers overlap with another's memory traffic
// (softmax over 8192 columns: 1.5x); smaller programs take what they need. On AMD every program
// asks for one: a CU of 64 KiB of LDS and 512 registers a lane holds fewer programs, and an 8-wave
// program already asks for 2 waves a SIMD. BV_GPU_MIN_PROGRAMS_PER_SM overrides it for every
// kernel.
#ifdef BV_GPU_MIN_PROGRAMS_PER_SM
template <int Threads>
inline constexpr int min_programs_per_sm = BV_GPU_MIN_PROGRAMS_PER_SM;
#else
template <int Threads>
inline constexpr int min_programs_per_sm = BV_NVIDIA&& Threads >= 512 ? 2 : 1;
#endif
// The second __launch_bounds__ argument for `programs` programs of `waves` waves a
// multiprocessor. CUDA's counts programs an SM; HIP's is waves a SIMD (amdgpu_waves_per_eu), and a
// CU's 4 SIMDs share each program's waves: 2 programs of 4 waves are 2 waves a SIMD, as is 1
// program of 8.
constexpr int launch_bound_of(int programs, int waves) {
  return BV_NVIDIA ? programs : (programs * waves + 3) / 4;
}
static_assert(BV_NVIDIA || (launch_bound_of(2, 4) == 2 && launch_bound_of(1, 8) == 2 &&
                            launch_bound_of(1, 16) == 4 && launch_bound_of(1, 2) == 1),
              "launch_bound_of: waves a SIMD on AMD, a CU's 4 SIMDs sharing a program's waves");
static_assert(!BV_NVIDIA || launch_bound_of(3, 4) == 3,
              "launch_bound_of: programs an SM on NVIDIA, as given");
// Programs an SM or CU the registers must allow: MinPrograms, or the backend's default when 0.
template <auto K, int MinPrograms>
inline constexpr int min_programs =
    MinPrograms > 0 ? MinPrograms : min_programs_per_sm<kernel_traits<K>::threads>;
// The second __launch_bounds__ argument of K's entries, for MinPrograms as a launch gives it.
template <auto K, int MinPrograms>
inline constexpr int launch_bound = launch_bound_of(min_programs<K, MinPrograms>,
                                                    kernel_traits<K>::waves);
template <auto K, class... P>
__global__ void __launch_bounds__(kernel_traits<K>::threads, (launch_bound<K, 0>))
    trampoline(P... args) {
  K(program<kernel_traits<K>::waves>{}, args...);
}

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

// What a launch of K over g reports before it runs (its time is the caller's to add).
template <auto K>
launch_result result_of(grid g) {
  launch_result r;
  r.kernel = std::string(kernel_name_of<K>());
  r.programs = g.count();
  r.waves = kernel_traits<K>::waves;
  r.threads_per_program = kernel_traits<K>::threads;
  r.tgt = gpu::device_target();
  return r;
}

template <auto K, class... P, class... A>
launch_result launch_impl(std::tuple<P...>*, grid g, A&&... args) {
  static_assert(rules::launch_arity<sizeof...(P), sizeof...(A)>());
  launch_result r = result_of<K>(g);
  if (g.count() == 0) return r;
  trampoline<K, P...>
      <<<dim3(g.x, g.y, g.z), dim3(kernel_traits<K>::threads), 0, 0>>>(to_param<P>(args)...);
  gpu::check(hipGetLastError(), ("launch of " + r.kernel).c_str());
  return r;
}

// Launches with a gpu_tuning (bv/launch_tuning.hpp). The parameters at the unit_args positions
// are compiled as the constant 1, so a launcher that passes unit strides gets kernels whose
// addresses fold to a row base plus immediates: no per-element offsets in registers, no run-time
// contiguity checks.
template <class U, int J>
struct is_unit;
template <int... I, int J>
struct is_unit<unit_args<I...>, J> : std::bool_constant<((I == J) || ...)> {};
template <bool Unit, class X>
BV_DI X unit_or(X x) {
  if constexpr (Unit)
    return X(1);
  else
    return x;
}
// Global memory a launch gives its programs' tensor maps (program::tmaps).
struct tmap_space {
  unsigned char* p = nullptr;
  int programs = 0;
};
// The formats a kernel's rings' first tiles were copied again in (program::fmt_hints): 0 none,
// else the tile's shape and the format (block_ptr.hpp's fmt_hint); kept across launches (a hint,
// checked by every dot).
template <auto K>
__device__ int ring_fmt_hints[tmap_rings];
template <auto K, class U, int Stages, class... P, size_t... J>
BV_DI void call_with_units(std::index_sequence<J...>, tmap_space tm, tma_ring_list* tl, P... args) {
  program<kernel_traits<K>::waves> p{Stages};
  p.tmaps = tm.p;
  p.tmap_programs = tm.programs;
  p.tma_list = tl;
  p.fmt_hints = ring_fmt_hints<K>;
  K(p, unit_or<is_unit<U, static_cast<int>(J)>::value>(args)...);
}
template <auto K, class U, int MinPrograms, int Stages, class... P>
__global__ void __launch_bounds__(kernel_traits<K>::threads, (launch_bound<K, MinPrograms>))
    unit_trampoline(tmap_space tm, P... args) {
  tma_ring_list tl;
  call_with_units<K, U, Stages>(std::index_sequence_for<P...>{}, tm, &tl, args...);
#if BV_NVIDIA
  if constexpr (Stages > 0 && gpu::prim::has_cp_async) gpu::prim::cp_async_drain();
  if constexpr (Stages > 0 && gpu::prim::has_tma) tma_drain(tl);
#endif
}
// The __global__ entry (its device code instantiated) that a launch of K takes with registers left
// for MinPrograms programs and no rings or unit arguments: a plain launch's at 0. For compile-only
// builds, which must compile what a launch runs.
template <auto K, int MinPrograms, class... P>
constexpr auto entry_of(std::tuple<P...>*) {
  if constexpr (MinPrograms > 0)
    return &unit_trampoline<K, unit_args<>, MinPrograms, 0, P...>;
  else
    return &trampoline<K, P...>;
}
template <auto K, int MinPrograms = 0>
constexpr auto kernel_entry() {
  return entry_of<K, MinPrograms>(static_cast<typename kernel_traits<K>::params*>(nullptr));
}
// Room for the tensor maps of block-pointer rings (block_ptr.hpp) of at most this many programs
// of a launch; programs past it copy their tiles without the TMA.
inline constexpr int tmap_programs_max = 16384;
template <auto K, class U, int MinPrograms, int Stages, class... P, class... A>
launch_result launch_tuned_impl(std::tuple<P...>*, grid g, int lds_bytes, A&&... args) {
  static_assert(rules::launch_arity<sizeof...(P), sizeof...(A)>());
  launch_result r = result_of<K>(g);
  lang::check_unit_args(U{}, r.kernel, args...);
  if (g.count() == 0) return r;
  auto* entry = &unit_trampoline<K, U, MinPrograms, Stages, P...>;
  // Above 48 KiB of static and dynamic LDS together a kernel must opt in to its dynamic size.
  static const int static_lds = [&] {
    hipFuncAttributes a{};
    gpu::check(hipFuncGetAttributes(&a, reinterpret_cast<const void*>(entry)),
               ("attributes of " + r.kernel).c_str());
    return static_cast<int>(a.sharedSizeBytes);
  }();
  if (lds_bytes > 0 && lds_bytes + static_lds > 48 * 1024) {
    static int allowed = 0;  // the largest dynamic LDS this entry was allowed so far
    if (lds_bytes > allowed) {
      gpu::check(
          hipFuncSetAttribute(reinterpret_cast<const void*>(entry),
                              hipFuncAttributeMaxDynamicSharedMemorySize, lds_bytes),
          ("dynamic LDS of " + std::to_string(lds_bytes) + " bytes for " + r.kernel).c_str());
      allowed = lds_bytes;
    }
  }
  // Tensor maps: only NVIDIA's rings take them, and only the sm_90a code uses them. The buffer
  // goes back to the cache at once: work queued later on the default stream reuses it.
  tmap_space tm;
  size_t tm_bytes = 0;
  if (BV_NVIDIA && Stages > 0) {
    tm.programs = static_cast<int>(std::min<long long>(g.count(), tmap_programs_max));
    tm_bytes = static_cast<size_t>(tm.programs) * program<>::tmap_rings * 128;  // one a ring
    tm.p = static_cast<unsigned char*>(gpu::buffer_cache::get().acquire(
        tm_bytes, "hipMalloc of " + std::to_string(tm_bytes) + " bytes of tensor maps"));
  }
  entry<<<dim3(g.x, g.y, g.z), dim3(r.threads_per_program), lds_bytes, 0>>>(tm,
                                                                            to_param<P>(args)...);
  if (tm.p) gpu::buffer_cache::get().release(tm.p, tm_bytes);
  gpu::check(hipGetLastError(), ("launch of " + r.kernel).c_str());
  return r;
}
}  // namespace detail

// launch<kernel>(grid, args...): the interpreter's spelling; asynchronous on the GPU (use
// bv::gpu::synchronize() or copy results back). Device tensors become pointers.
template <auto K, class... A>
launch_result launch(grid g, A&&... args) {
  using params = typename detail::kernel_traits<K>::params;
  return detail::launch_impl<K>(static_cast<params*>(nullptr), g, std::forward<A>(args)...);
}
// launch<kernel>(gpu_tuning<Stages, MinPrograms, unit_args<...>>{lds_bytes}, grid, args...)
// (bv/launch_tuning.hpp): the same with block-pointer rings of Stages slots in lds_bytes of
// dynamic LDS (block_ptr.hpp, sized with block_ptr_lds_bytes: a program whose rings need more
// traps), registers left for MinPrograms programs per SM, and the unit_args compiled in as 1.
template <auto K, int Stages, int MinPrograms, class Units, class... A>
launch_result launch(gpu_tuning<Stages, MinPrograms, Units> t, grid g, A&&... args) {
  using params = typename detail::kernel_traits<K>::params;
  return detail::launch_tuned_impl<K, Units, MinPrograms, Stages>(
      static_cast<params*>(nullptr), g, t.lds_bytes, std::forward<A>(args)...);
}

}  // namespace gpu_lang
}  // namespace bv
