// Host tensors: a named buffer with a shape and strides. Kernel arguments made from a tensor carry
// its allocation, so the interpreter can say which tensor an access missed and by how much.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bv/random.hpp"

#include "bv/cpu/ptr.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/cpu/values.hpp"
#include "bv/dtype.hpp"

#include <sys/mman.h>

#include <cstdlib>

namespace bv {
namespace detail {
// A tensor's elements, zeroed. Buffers of 2 MB or more sit on 2 MB boundaries and ask for
// transparent huge pages: a kernel that streams a 4 MB tensor otherwise walks the page tables
// for a thousand 4 KB pages, in the interpreter and in a native loop alike.
template <class T>
std::shared_ptr<T[]> alloc_elements(size_t n) {
  constexpr size_t huge = size_t(2) << 20;
  const size_t bytes = n * sizeof(T);
  if (bytes < huge) return std::shared_ptr<T[]>(new T[n]());
  const size_t rounded = (bytes + huge - 1) / huge * huge;
  void* raw = std::aligned_alloc(huge, rounded);
  if (!raw) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(raw, rounded, MADV_HUGEPAGE);  // advice only: without it the buffer still works
#endif
  T* p = static_cast<T*>(raw);
  std::uninitialized_value_construct_n(p, n);
  return std::shared_ptr<T[]>(p, [](T* q) { std::free(q); });
}
}  // namespace detail

namespace detail {
int64_t next_alloc_id();
std::shared_ptr<shadow_state> make_shadow(int64_t numel, bool initialised);
// A tensor's buffer is the emulated device's memory (ThreadSanitizer builds: see memory.cpp).
void note_device_buffer(const void* p, size_t bytes);
}  // namespace detail

template <class T>
class tensor {
 public:
  using value_type = T;

  tensor() = default;
  // A zero-filled tensor.
  tensor(std::string name, std::vector<int64_t> shape) {
    make(std::move(name), std::move(shape), true);
  }

  // Memory a kernel must write before it reads: the uninit check reports reads of it.
  static tensor empty(std::string name, std::vector<int64_t> shape) {
    tensor t;
    t.make(std::move(name), std::move(shape), false);
    return t;
  }
  static tensor zeros(std::string name, std::vector<int64_t> shape) {
    return tensor(std::move(name), std::move(shape));
  }
  static tensor full(std::string name, std::vector<int64_t> shape, T value) {
    tensor t(std::move(name), std::move(shape));
    t.fill(value);
    return t;
  }
  // A copy of `host`'s numel() values, row-major (the GPU tensor's maker of the same name).
  static tensor from_host(std::string name, std::vector<int64_t> shape, const T* host) {
    tensor t(std::move(name), std::move(shape));
    std::copy(host, host + t.info_->numel, t.data_.get());
    return t;
  }
  // Normal(0, 1) values (integers: uniform in [-100, 100)), reproducible from the seed.
  static tensor randn(std::string name, std::vector<int64_t> shape, uint64_t seed,
                      double scale = 1.0) {
    tensor t(std::move(name), std::move(shape));
    lang::fill_random(t.data_.get(), t.info_->numel, seed, scale);
    return t;
  }

  const std::string& name() const { return info_->name; }
  const std::vector<int64_t>& shape() const { return info_->shape; }
  const std::vector<int64_t>& strides() const { return info_->strides; }
  int64_t size(int d) const { return info_->shape.at(d); }
  int64_t stride(int d) const { return info_->strides.at(d); }
  int dim() const { return static_cast<int>(info_->shape.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (auto s : info_->shape) n *= s;
    return n;
  }
  bool is_contiguous() const { return info_->contiguous; }
  bool defined() const { return info_ != nullptr; }

  T* data() { return data_.get() + info_->view_offset; }
  const T* data() const { return data_.get() + info_->view_offset; }
  T& operator()(int64_t i) { return data()[i * stride(0)]; }
  T& operator()(int64_t i, int64_t j) { return data()[i * stride(0) + j * stride(1)]; }
  T& operator()(int64_t i, int64_t j, int64_t k) {
    return data()[i * stride(0) + j * stride(1) + k * stride(2)];
  }
  T& operator()(int64_t i, int64_t j, int64_t k, int64_t l) {
    return data()[i * stride(0) + j * stride(1) + k * stride(2) + l * stride(3)];
  }
  T operator()(int64_t i) const { return const_cast<tensor&>(*this)(i); }
  T operator()(int64_t i, int64_t j) const { return const_cast<tensor&>(*this)(i, j); }
  T operator()(int64_t i, int64_t j, int64_t k) const {
    return const_cast<tensor&>(*this)(i, j, k);
  }
  T operator()(int64_t i, int64_t j, int64_t k, int64_t l) const {
    return const_cast<tensor&>(*this)(i, j, k, l);
  }

  void fill(T value) {
    for (int64_t i = 0; i < info_->numel; ++i) data_[i] = value;
  }
  // The elements in row-major order of the view (a copy for non-contiguous views).
  std::vector<T> values() const {
    std::vector<T> out(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) out[i] = data()[flat_to_offset(i)];
    return out;
  }
  // Element i of the view in row-major order.
  T flat(int64_t i) const { return data()[flat_to_offset(i)]; }
  T& flat(int64_t i) { return data()[flat_to_offset(i)]; }

  // A view of the same buffer with the last two dimensions swapped: not contiguous.
  tensor transposed() const {
    tensor t = *this;
    t.info_ = std::make_shared<detail::alloc_info>(*info_);
    const int d = dim();
    std::swap(t.info_->shape[d - 2], t.info_->shape[d - 1]);
    std::swap(t.info_->strides[d - 2], t.info_->strides[d - 1]);
    t.info_->name = info_->name + ".T";
    t.info_->contiguous = t.compute_contiguous();
    return t;
  }
  // A contiguous copy (torch's .contiguous()).
  tensor contiguous(std::string name = {}) const {
    tensor t(name.empty() ? info_->name : std::move(name), shape());
    for (int64_t i = 0; i < numel(); ++i) t.flat(i) = flat(i);
    return t;
  }
  // Mark the whole buffer as written (for memory filled outside any kernel).
  void mark_initialised();

  operator ptr<T>() const { return {const_cast<T*>(data()), info_.get()}; }
  operator ptr<const T>() const { return {data(), info_.get()}; }
  const std::shared_ptr<detail::alloc_info>& info() const { return info_; }

 private:
  void make(std::string name, std::vector<int64_t> shape, bool initialised) {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    data_ = detail::alloc_elements<T>(static_cast<size_t>(n));
    info_ = std::make_shared<detail::alloc_info>();
    info_->numel = n;
    if (!initialised) poison();
    info_->name = std::move(name);
    info_->dtype = dtype_name<T>();
    info_->elem_bytes = sizeof(T);
    info_->shape = std::move(shape);
    info_->strides.assign(info_->shape.size(), 1);
    for (int d = static_cast<int>(info_->shape.size()) - 2; d >= 0; --d)
      info_->strides[d] = info_->strides[d + 1] * info_->shape[d + 1];
    info_->buffer = data_.get();
    info_->numel = n;
    info_->id = detail::next_alloc_id();
    info_->contiguous = true;
    info_->shadow = detail::make_shadow(n, initialised);
    detail::note_device_buffer(data_.get(), static_cast<size_t>(n) * sizeof(T));
  }
  void poison() {
    // Unwritten memory reads as a tagged NaN (floats) or a loud pattern (integers), never as
    // zero; the uninit check follows the tag to where the value is used (bv/cpu/values.hpp).
    const T poison = detail::uninit_value<T>();
    for (int64_t i = 0; i < info_->numel; ++i) data_[i] = poison;
  }
  int64_t flat_to_offset(int64_t i) const {
    int64_t off = 0;
    for (int d = dim() - 1; d >= 0; --d) {
      off += (i % info_->shape[d]) * info_->strides[d];
      i /= info_->shape[d];
    }
    return off;
  }
  bool compute_contiguous() const {
    int64_t expect = 1;
    for (int d = dim() - 1; d >= 0; --d) {
      if (info_->shape[d] != 1 && info_->strides[d] != expect) return false;
      expect *= info_->shape[d];
    }
    return true;
  }

  std::shared_ptr<T[]> data_;  // the whole buffer, shared by views
  std::shared_ptr<detail::alloc_info> info_;
};

namespace detail {
void mark_initialised(const alloc_info& a);
}
template <class T>
void tensor<T>::mark_initialised() {
  detail::mark_initialised(*info_);
}

template <class X>
inline constexpr bool is_tensor = false;
template <class T>
inline constexpr bool is_tensor<tensor<T>> = true;

}  // namespace bv
