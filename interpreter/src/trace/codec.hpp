// The compact encodings of a trace's per-op blobs (docs/trace-format.md, "Blobs"). The viewer has
// its own decoder (ui/trace/codec.hpp): the format document, not this header, is the contract, and
// tests/ui round-trips one through the other.
#pragma once
#include <cstdint>
#include <string>

namespace bv::detail::trace {

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// Addresses of lanes 1..n-1 as runs of equal deltas from the previous lane: (zigzag(delta),
// repeats - 1) pairs of varints. A contiguous block of any size is two bytes; a 2-D tile costs
// about four bytes per row. Lane 0's address is stored in the op row (`first`).
inline void encode_addresses(std::string& out, const int64_t* off, int n) {
  int i = 1;
  while (i < n) {
    const int64_t d = off[i] - off[i - 1];
    int j = i + 1;
    while (j < n && off[j] - off[j - 1] == d) ++j;
    put_varint(out, zigzag(d));
    put_varint(out, static_cast<uint64_t>(j - i - 1));
    i = j;
  }
}

// Lane i active <=> bit (i % 8) of byte i / 8. Returns false (and writes nothing) when every lane
// is active: the op row then stores NULL.
inline bool encode_mask(std::string& out, const bool* mask, int n, int& active) {
  active = n;
  if (!mask) return false;
  int on = 0;
  for (int i = 0; i < n; ++i) on += mask[i];
  active = on;
  if (on == n) return false;
  const size_t start = out.size();
  out.resize(start + static_cast<size_t>((n + 7) / 8), '\0');
  for (int i = 0; i < n; ++i)
    if (mask[i]) out[start + static_cast<size_t>(i / 8)] |= static_cast<char>(1u << (i % 8));
  return true;
}

}  // namespace bv::detail::trace
