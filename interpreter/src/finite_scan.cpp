// Whether a run of floats holds NaN or Inf: the test under every value check (nan, uninit and
// masked look at each loaded and stored block), so it runs on every block a checked kernel
// touches. A value is not finite when its exponent bits are all ones, that is when its bits
// without the sign, as a signed integer, exceed the largest finite one: a running maximum of
// those integers (AVX2: two instructions per 8 floats) or, on the x86-64 baseline (SSE2, which
// has no 32-bit maximum), a running OR of compares. The library is built for the baseline, so
// the AVX2 loop is chosen at run time on machines that have it.
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define BV_X86 1
#else
#define BV_X86 0
#endif

namespace bv::detail {
namespace {

// Scalar test of one value's bits: abs_bits > max_finite.
template <class U>
bool scalar_any(const U* p, int from, int n, U abs_mask, U max_finite) {
  for (int i = from; i < n; ++i)
    if (static_cast<U>(p[i] & abs_mask) > max_finite) return true;
  return false;
}

#if BV_X86
__attribute__((target("avx2"))) bool any32_avx2(const uint32_t* p, int n) {
  const __m256i abs = _mm256_set1_epi32(0x7FFFFFFF);
  __m256i m0 = _mm256_setzero_si256(), m1 = m0;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    m0 = _mm256_max_epi32(
        m0, _mm256_and_si256(abs, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i))));
    m1 = _mm256_max_epi32(
        m1, _mm256_and_si256(abs, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 8))));
  }
  const __m256i over = _mm256_cmpgt_epi32(_mm256_max_epi32(m0, m1), _mm256_set1_epi32(0x7F7FFFFF));
  if (_mm256_movemask_epi8(over)) return true;
  return scalar_any<uint32_t>(p, i, n, 0x7FFFFFFFu, 0x7F7FFFFFu);
}

__attribute__((target("avx2"))) bool any16_avx2(const uint16_t* p, int n, uint16_t max_finite) {
  const __m256i abs = _mm256_set1_epi16(0x7FFF);
  __m256i m0 = _mm256_setzero_si256(), m1 = m0;
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = _mm256_max_epi16(
        m0, _mm256_and_si256(abs, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i))));
    m1 = _mm256_max_epi16(
        m1,
        _mm256_and_si256(abs, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 16))));
  }
  const __m256i over = _mm256_cmpgt_epi16(_mm256_max_epi16(m0, m1),
                                          _mm256_set1_epi16(static_cast<short>(max_finite)));
  if (_mm256_movemask_epi8(over)) return true;
  return scalar_any<uint16_t>(p, i, n, 0x7FFF, max_finite);
}

bool any32_sse2(const uint32_t* p, int n) {
  const __m128i abs = _mm_set1_epi32(0x7FFFFFFF), lim = _mm_set1_epi32(0x7F7FFFFF);
  __m128i a0 = _mm_setzero_si128(), a1 = a0;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i v0 = _mm_and_si128(abs, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)));
    const __m128i v1 =
        _mm_and_si128(abs, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 4)));
    a0 = _mm_or_si128(a0, _mm_cmpgt_epi32(v0, lim));
    a1 = _mm_or_si128(a1, _mm_cmpgt_epi32(v1, lim));
  }
  if (_mm_movemask_epi8(_mm_or_si128(a0, a1))) return true;
  return scalar_any<uint32_t>(p, i, n, 0x7FFFFFFFu, 0x7F7FFFFFu);
}

bool any16_sse2(const uint16_t* p, int n, uint16_t max_finite) {
  const __m128i abs = _mm_set1_epi16(0x7FFF);
  __m128i m0 = _mm_setzero_si128(), m1 = m0;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    m0 = _mm_max_epi16(
        m0, _mm_and_si128(abs, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
    m1 = _mm_max_epi16(
        m1, _mm_and_si128(abs, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 8))));
  }
  const __m128i over =
      _mm_cmpgt_epi16(_mm_max_epi16(m0, m1), _mm_set1_epi16(static_cast<short>(max_finite)));
  if (_mm_movemask_epi8(over)) return true;
  return scalar_any<uint16_t>(p, i, n, 0x7FFF, max_finite);
}

// Safe to read before this initialiser has run (from another file's): false, the baseline loop.
const bool k_has_avx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();
bool k_avx2 = k_has_avx2;
#endif

}  // namespace

bool use_avx2_finite_scan(bool on) {
#if BV_X86
  const bool was = k_avx2;
  k_avx2 = on && k_has_avx2;
  return was;
#else
  (void)on;
  return false;
#endif
}

bool any_nonfinite_32(const void* p, int n) {
  const auto* u = static_cast<const uint32_t*>(p);
#if BV_X86
  return k_avx2 ? any32_avx2(u, n) : any32_sse2(u, n);
#else
  return scalar_any<uint32_t>(u, 0, n, 0x7FFFFFFFu, 0x7F7FFFFFu);
#endif
}

bool any_nonfinite_16(const void* p, int n, uint16_t exponent_bits) {
  const auto* u = static_cast<const uint16_t*>(p);
  const uint16_t max_finite = static_cast<uint16_t>(exponent_bits - 1);
#if BV_X86
  return k_avx2 ? any16_avx2(u, n, max_finite) : any16_sse2(u, n, max_finite);
#else
  return scalar_any<uint16_t>(u, 0, n, 0x7FFF, max_finite);
#endif
}

}  // namespace bv::detail
