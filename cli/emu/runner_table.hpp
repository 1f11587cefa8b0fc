// Emulated side of --backend amd-emu, shared by the runners (cli/emu/run_*.cpp): the runner
// table's row, the conversions between the command's arrays and emulated tensors, and the summing
// of the launches' counters. Include only from an emulated translation unit.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bv/bv.hpp"
#include "emu_runner.hpp"

namespace bv::cli::amd_emu {

// A kernel's runner: `inputs` arrays in, `params` integers, outputs appended to the result in the
// order the runner's comment gives.
struct runner {
  const char* name;
  size_t inputs;
  size_t params;
  void (*run)(run_result&, const std::vector<array>& in, const std::vector<int64_t>& params);
};

// Each family's runners (one translation unit each, so that they compile in parallel and a change
// to one family recompiles only it).
std::vector<runner> elementwise_runners();
std::vector<runner> row_runners();
std::vector<runner> norm_runners();
std::vector<runner> matmul_runners();
std::vector<runner> conv2d_runners();
std::vector<runner> attention_runners();
std::vector<runner> attention_bwd_runners();
std::vector<runner> block_runners();

inline int64_t elements(const array& a) {
  int64_t n = 1;
  for (int64_t d : a.shape) n *= d;
  return n;
}

// An emulated tensor of element type T holding a's values.
template <class T>
device_tensor<T> input(const array& a) {
  const int64_t n = elements(a);
  if constexpr (std::is_same_v<T, int32_t>) {
    if (n != static_cast<int64_t>(a.ints.size()))
      throw std::invalid_argument("amd-emu: an int32 input's values do not fill its shape");
    return device_tensor<int32_t>::from_host("in", a.shape, a.ints.data());
  } else {
    if (n != static_cast<int64_t>(a.values.size()))
      throw std::invalid_argument("amd-emu: an input's values do not fill its shape");
    auto t = device_tensor<T>::empty("in", a.shape);
    for (int64_t i = 0; i < n; ++i) t.data()[i] = static_cast<T>(a.values[static_cast<size_t>(i)]);
    return t;
  }
}

// An output of `shape`, 0xff bytes (NaN) until the kernel writes it.
template <class T>
device_tensor<T> output(std::vector<int64_t> shape) {
  return device_tensor<T>::empty("out", std::move(shape));
}

template <class T>
void put(run_result& r, const device_tensor<T>& t) {
  array a{t.shape(), std::vector<float>(static_cast<size_t>(t.numel())), {}};
  for (int64_t i = 0; i < t.numel(); ++i)
    a.values[static_cast<size_t>(i)] = static_cast<float>(t.data()[i]);
  r.outputs.push_back(std::move(a));
}

inline void collect(run_result& r, emu::result e) {
  r.totals.add(e.counts, e.memory_checked);
  r.launches.push_back(static_cast<launch_result&&>(e));
}
inline void collect(run_result& r, std::vector<emu::result> es) {
  for (auto& e : es) collect(r, std::move(e));
}

}  // namespace bv::cli::amd_emu
