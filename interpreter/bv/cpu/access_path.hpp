// The fast path of loads and stores: most blocks of addresses are contiguous along their rows
// (offs = pid * BLOCK + arange, or a tile with unit stride), and most masks are all set. Finding
// that with one pass over the offsets lets a load be a copy of each row instead of a gather, and
// bounds be the range of the row starts.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>

namespace bv::detail {

struct span_info {
  bool row_contiguous = false;
  int64_t lo = 0, hi = 0;  // smallest and largest offset
};

// Whether every byte of a bool array is set (bools are stored as 0/1 bytes).
inline bool all_set(const bool* m, int n) {
  return std::memchr(m, 0, static_cast<size_t>(n)) == nullptr;
}
inline bool none_set(const bool* m, int n) {
  return std::memchr(m, 1, static_cast<size_t>(n)) == nullptr;
}

template <int R, int C>
span_info analyse(const int64_t* off) {
  uint64_t diff = 0;
  for (int r = 0; r < R; ++r) {
    const int64_t b = off[r * C];
    for (int c = 0; c < C; ++c) diff |= static_cast<uint64_t>(off[r * C + c] - (b + c));
  }
  span_info s;
  s.row_contiguous = diff == 0;
  if (s.row_contiguous) {
    s.lo = s.hi = off[0];
    for (int r = 1; r < R; ++r) {
      s.lo = off[r * C] < s.lo ? off[r * C] : s.lo;
      s.hi = off[r * C] > s.hi ? off[r * C] : s.hi;
    }
    s.hi += C - 1;
  } else {
    s.lo = std::numeric_limits<int64_t>::max();
    s.hi = std::numeric_limits<int64_t>::min();
    for (int i = 0; i < R * C; ++i) {
      s.lo = off[i] < s.lo ? off[i] : s.lo;
      s.hi = off[i] > s.hi ? off[i] : s.hi;
    }
  }
  return s;
}

// The analysis of the last block of offsets that this thread checked, so the copy that follows
// the bounds test need not look at the offsets again.
struct last_span {
  const int64_t* off = nullptr;
  bool row_contiguous = false;
};
inline thread_local last_span t_last_span;

template <int R, int C>
bool rows_contiguous(const int64_t* off) {
  if (t_last_span.off == off) {
    t_last_span.off = nullptr;  // one use: the next block may live at the same address
    return t_last_span.row_contiguous;
  }
  return analyse<R, C>(off).row_contiguous;
}

// out[i] = base[off[i]] for every lane; rows copied whole when contiguous.
template <int R, int C, class U, class T>
void gather_all(U* out, const T* base, const int64_t* off) {
  if (rows_contiguous<R, C>(off)) {
    for (int r = 0; r < R; ++r) {
      const T* src = base + off[r * C];
      for (int c = 0; c < C; ++c) out[r * C + c] = src[c];
    }
  } else {
    for (int i = 0; i < R * C; ++i) out[i] = base[off[i]];
  }
}

template <int R, int C, class T, class U>
void scatter_all(T* base, const int64_t* off, const U* vals) {
  if (rows_contiguous<R, C>(off)) {
    for (int r = 0; r < R; ++r) {
      T* dst = base + off[r * C];
      for (int c = 0; c < C; ++c) dst[c] = vals[r * C + c];
    }
  } else {
    for (int i = 0; i < R * C; ++i) base[off[i]] = vals[i];
  }
}

}  // namespace bv::detail
