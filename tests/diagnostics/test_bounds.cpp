// Corpus: out-of-bounds and misaligned accesses, and the clean edges next to them.
#include <cstring>

#include "corpus.hpp"

using namespace bv;

namespace {

// The classic off-by-one: `<=` lets lane n through in the last program.
template <int B>
void copy_off_by_one(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto mask = offs <= n;
  auto v = load(x + offs, mask);  // @load
  store(out + offs, v, mask);     // @store
}

// No mask at all: the last program runs past the end.
template <int B>
void copy_unmasked(program<4> p, ptr<const float> x, ptr<float> out, int) {
  auto offs = p.id(0) * B + arange<B>(p);
  store(out + offs, load(x + offs));  // @both
}

// A shifted read: x[i - 1] for every i, including i = 0.
template <int B>
void shift_left(program<1> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs - 1, mask), mask);  // @shift
}

// Clean: masks that stop exactly at the last element, with a ragged and an exact last block.
template <int B>
void copy_masked(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs, mask), mask);
}

template <int B>
void read_misaligned(program<1> p, ptr<const float> x, ptr<float> out) {
  auto offs = arange<B>(p);
  store(out + offs, load(x + offs));  // @misaligned
}

}  // namespace

BV_DIAG_CASE(oob_mask_off_by_one) {
  auto x = tensor<float>::randn("x", {1000}, 1);
  auto out = tensor<float>::zeros("out", {1000});
  launch<copy_off_by_one<256>>(grid(4), x, out, 1000);
}

BV_DIAG_CASE(oob_unmasked_last_block) {
  auto x = tensor<float>::randn("x", {1000}, 1);
  auto out = tensor<float>::zeros("out", {1000});
  launch<copy_unmasked<256>>(grid(4), x, out, 1000);
}

BV_DIAG_CASE(oob_negative_offset) {
  auto x = tensor<float>::randn("x", {512}, 1);
  auto out = tensor<float>::zeros("out", {512});
  launch<shift_left<128>>(grid(4), x, out, 512);
}

BV_DIAG_CASE(clean_mask_at_edge) {
  auto x = tensor<float>::randn("x", {1000}, 1);
  auto out = tensor<float>::zeros("out", {1000});
  launch<copy_masked<256>>(grid(4), x, out, 1000);  // ragged: 1000 = 3 * 256 + 232
  auto y = tensor<float>::randn("y", {1024}, 2);
  auto out2 = tensor<float>::zeros("out2", {1024});
  launch<copy_masked<256>>(grid(4), y, out2, 1024);  // exact: the mask is all true
  for (int i = 0; i < 1000; ++i) REQUIRE(out(i) == x(i));
}

BV_DIAG_CASE(misaligned_view) {
  // A float view of a byte buffer at an odd offset, as a reinterpret_cast of packed data makes.
  alignas(16) static unsigned char raw[4 * 64 + 16];
  std::memset(raw, 0, sizeof raw);
  detail::alloc_info info;
  info.name = "packed";
  info.dtype = "f32";
  info.elem_bytes = 4;
  info.shape = {64};
  info.strides = {1};
  info.buffer = raw + 2;
  info.numel = 64;
  info.id = 999999;
  ptr<const float> x{reinterpret_cast<const float*>(raw + 2), &info};
  auto out = tensor<float>::zeros("out", {64});
  launch<read_misaligned<64>>(grid(1), x, out);
}
