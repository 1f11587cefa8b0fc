// Value-level checks (uninit, masked, nan): how a block value says where it came from.
//
// A kernel's values live in plain Eigen arrays, with no room for a shadow per element. Floats carry
// their origin in the NaN payload instead: never-written memory holds a quiet NaN tagged "uninit",
// and the masked-off lanes of a load without `other` get a NaN tagged "masked" (while the masked
// check is on). Arithmetic propagates NaN payloads (x86 and Eigen's packet math keep the first
// NaN operand), so a tagged lane stays tagged through the kernel's math and is recognised where
// the value is used: stored, reduced, or fed to a math function. The tags live in the top seven
// payload bits, which survive the round trip through f16 and bf16.
//
// Integer values cannot carry a tag through arithmetic: masked-off integer lanes hold a loud
// pattern that is recognised when it is stored unchanged, and integer reads of never-written
// memory are reported at the load (see docs/diagnostics.md for the exact rules).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "bv/cpu/runtime.hpp"
#include "bv/dtype.hpp"

namespace bv::detail {

inline constexpr uint32_t uninit_tag = 0x7FD50000u;  // quiet NaN, payload 1010101
inline constexpr uint32_t masked_tag = 0x7FEA0000u;  // quiet NaN, payload 1101010
inline constexpr uint32_t tag_bits = 0x7FFF0000u;

inline float tagged_nan(uint32_t tag) {
  float f;
  std::memcpy(&f, &tag, sizeof f);
  return f;
}

// The value never-written memory of type T holds (tensor::empty fills buffers with it).
template <class T>
T uninit_value() {
  if constexpr (is_float<T>)
    return static_cast<T>(tagged_nan(uninit_tag));
  else if constexpr (std::is_same_v<T, bool>)
    return true;
  else
    return static_cast<T>(-0x2a2a2a2a);
}

// The value masked-off lanes of a load without `other` hold while the masked check is on.
template <class T>
T masked_value() {
  if constexpr (is_float<T>)
    return static_cast<T>(tagged_nan(masked_tag));
  else if constexpr (std::is_same_v<T, bool>)
    return false;
  else
    return static_cast<T>(static_cast<int64_t>(0xCACACACACACACACAull));
}

inline uint8_t classify_float_bits(uint32_t bits) {
  if ((bits & 0x7F800000u) != 0x7F800000u) return vc_ok;
  if ((bits & 0x007FFFFFu) == 0) return vc_nonfinite;  // +-Inf
  const uint32_t t = bits & tag_bits;
  if (t == uninit_tag) return vc_uninit;
  if (t == masked_tag) return vc_masked;
  return vc_nonfinite;
}

// Whether a run of 32-bit (16-bit, with these exponent bits) floats holds NaN or Inf: vector
// loops in src/finite_scan.cpp, AVX2 where the machine has it.
bool any_nonfinite_32(const void* p, int n);
bool any_nonfinite_16(const void* p, int n, uint16_t exponent_bits);
// Tests: take the AVX2 loops (when the machine has them) or the baseline ones; returns whether
// the AVX2 ones were in use.
bool use_avx2_finite_scan(bool on);

// Whether every value is finite.
template <class T>
bool all_finite(const T* v, int n) {
  if constexpr (is_float<T>) {
    if constexpr (sizeof(T) == 8) {
      for (int i = 0; i < n; ++i)
        if (!std::isfinite(v[i])) return false;
      return true;
    } else if constexpr (sizeof(T) == 4)
      return !any_nonfinite_32(v, n);
    else
      return !any_nonfinite_16(v, n, std::is_same_v<T, bfloat16> ? 0x7F80 : 0x7C00);
  } else {
    (void)v, (void)n;
    return true;
  }
}

// Classifies n values into out[] (active lanes only; inactive ones get vc_ok) and returns a mask
// of the classes found (1 << class). The common case, all finite, costs one vectorised test.
template <class T>
uint32_t classify(const T* v, int n, const bool* active, uint8_t* out) {
  uint32_t found = 0;
  if constexpr (is_float<T>) {
    if (all_finite(v, n)) return 0;
    for (int i = 0; i < n; ++i) {
      out[i] = vc_ok;
      if (active && !active[i]) continue;
      const float f = static_cast<float>(v[i]);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      out[i] = classify_float_bits(bits);
      found |= 1u << out[i];
    }
  } else if constexpr (!std::is_same_v<T, bool>) {
    const T poison = masked_value<T>();
    for (int i = 0; i < n; ++i) {
      out[i] = (active && !active[i]) || v[i] != poison ? vc_ok : vc_masked;
      found |= 1u << out[i];
    }
  } else {
    (void)v, (void)n, (void)active, (void)out;
  }
  return found & ~1u;
}

// After a reduction or math function: tell the checks about tagged or non-finite results.
// `input` (n_in values) is looked at only when a result is not finite (the common case reads the
// results once, not the inputs too).
template <class T, class I>
void check_result(const T* v, int n, const I* input, int n_in, const char* op,
                  const std::source_location& loc) {
  if constexpr (is_float<T>) {
    thread_local std::vector<uint8_t> buf;
    buf.resize(static_cast<size_t>(n));
    if (!classify(v, n, nullptr, buf.data())) return;
    value_event e;
    e.op = op;
    e.value_class = buf.data();
    e.lanes = n;
    e.loc = &loc;
    e.inputs_finite = all_finite(input, n_in);
    on_value(e);
  } else {
    (void)v, (void)n, (void)input, (void)n_in, (void)op, (void)loc;
  }
}

// Whether the value checks that look at results are on (one relaxed load).
inline bool value_checks_on() {
  return (value_checks.load(std::memory_order_relaxed) &
          (checks::uninit | checks::masked | checks::nan)) != 0;
}

}  // namespace bv::detail
