// Corpus: reads of never-written memory, and use of masked-off lanes loaded without `other`.
#include "corpus.hpp"

using namespace bv;

namespace {

template <int B>
void copy_all(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs, mask), mask);  // @copy
}

// Writes only the first half of each block: the producer's bug.
// The stored value is arithmetic on the loaded one (a fused value, computed straight into memory
// under the sequential and parallel schedules): the tag still reaches the store's check.
template <int B>
void scaled_copy(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs, mask) * 2.0f + 1.0f, mask);  // @scaled
}

template <int B>
void write_half(program<4> p, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  store(out + offs, 1.0f, (offs < n) & (arange<B>(p) < B / 2));
}

template <int B>
void row_sum(program<4> p, ptr<const float> x, ptr<float> out) {
  auto v = load(x + p.id(0) * B + arange<B>(p));
  store(out + p.id(0), sum(v));  // @sum
}

// Gathers through an index tensor that was never written.
template <int B>
void gather(program<4> p, ptr<const int32_t> idx, ptr<const float> x, ptr<float> out) {
  auto offs = arange<B>(p);
  auto i = load(idx + offs);  // @idx
  store(out + offs, load(x + i, (i >= 0) & (i < B), 0.0f));
}

// Writes indices into the first half of each block only.
template <int B>
void write_idx_half(program<4> p, ptr<int32_t> idx) {
  auto offs = arange<B>(p);
  store(idx + offs, B - 1 - offs, offs < B / 2);
}

// Clean: reads only the half that was written.
template <int B>
void copy_first_half(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto mask = (offs < n) & (arange<B>(p) < B / 2);
  store(out + offs, load(x + offs, mask), mask);
}

// Masked-off lanes (no `other`) summed: the sum of the last block is garbage on a GPU.
template <int B>
void sum_no_other(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto v = load(x + offs, offs < n);
  store(out + p.id(0), sum(v));  // @msum
}

// Loads masked, stores everything: the masked-off lanes' garbage lands in memory.
template <int B>
void store_unmasked(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto v = load(x + offs, offs < n);
  store(out + offs, v * 2.0f);  // @mstore
}

// Clean: the same sum with other = 0, and a max with other = -inf.
template <int B>
void sum_max_with_other(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto v = load(x + offs, offs < n, 0.0f);
  auto w = load(x + offs, offs < n, -INFINITY);
  store(out + p.id(0), sum(v) + max(w));
}

// Clean: where() drops the masked-off lanes before the sum.
template <int B>
void sum_where(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto mask = offs < n;
  auto v = load(x + offs, mask);
  store(out + p.id(0), sum(where(mask, v, 0.0f)));
}

}  // namespace

BV_DIAG_CASE(uninit_copy_of_empty) {
  auto x = tensor<float>::empty("scratch", {512});
  auto out = tensor<float>::zeros("out", {512});
  launch<copy_all<256>>(grid(2), x, out, 512);
}

BV_DIAG_CASE(uninit_scaled_copy_of_empty) {
  auto x = tensor<float>::empty("scratch", {512});
  auto out = tensor<float>::zeros("out", {512});
  launch<scaled_copy<256>>(grid(2), x, out, 512);
}

BV_DIAG_CASE(uninit_producer_wrote_half) {
  auto tmp = tensor<float>::empty("tmp", {512});
  auto out = tensor<float>::zeros("out", {512});
  launch<write_half<256>>(grid(2), tmp, 512);
  launch<copy_all<256>>(grid(2), tmp, out, 512);
}

BV_DIAG_CASE(uninit_reduced) {
  auto x = tensor<float>::empty("acts", {2, 256});
  auto out = tensor<float>::zeros("sums", {2});
  launch<row_sum<256>>(grid(2), x, out);
}

BV_DIAG_CASE(uninit_int_index) {
  auto idx = tensor<int32_t>::empty("idx", {256});
  auto x = tensor<float>::randn("x", {256}, 3);
  auto out = tensor<float>::zeros("out", {256});
  launch<gather<256>>(grid(1), idx, x, out);
}

BV_DIAG_CASE(clean_uninit_reads_written_part) {
  auto tmp = tensor<float>::empty("tmp", {512});
  auto out = tensor<float>::zeros("out", {512});
  launch<write_half<256>>(grid(2), tmp, 512);
  launch<copy_first_half<256>>(grid(2), tmp, out, 512);
  REQUIRE(out(0) == 1.0f);
}

BV_DIAG_CASE(clean_host_filled_empty) {
  // Filled by the host without mark_initialised(): the values are real, nothing to report.
  auto x = tensor<float>::empty("x", {256});
  for (int i = 0; i < 256; ++i) x(i) = float(i);
  auto idx = tensor<int32_t>::empty("idx", {256});
  for (int i = 0; i < 256; ++i) idx(i) = 255 - i;
  auto out = tensor<float>::zeros("out", {256});
  launch<gather<256>>(grid(1), idx, x, out);
  REQUIRE(out(0) == 255.0f);
}

BV_DIAG_CASE(uninit_int_index_half_written) {
  auto idx = tensor<int32_t>::empty("idx", {256});
  auto x = tensor<float>::randn("x", {256}, 3);
  auto out = tensor<float>::zeros("out", {256});
  launch<write_idx_half<256>>(grid(1), idx);
  launch<gather<256>>(grid(1), idx, x, out);
}

BV_DIAG_CASE(clean_int_index_marked_after_kernel_wrote_half) {
  // The kernel wrote half, the host the rest and said so: every element is written.
  auto idx = tensor<int32_t>::empty("idx", {256});
  auto x = tensor<float>::randn("x", {256}, 3);
  auto out = tensor<float>::zeros("out", {256});
  launch<write_idx_half<256>>(grid(1), idx);
  for (int i = 128; i < 256; ++i)
    idx(i) = detail::uninit_value<int32_t>();  // the fill pattern itself
  idx.mark_initialised();
  launch<gather<256>>(grid(1), idx, x, out);
  REQUIRE(out(0) == x(255));
}

BV_DIAG_CASE(masked_sum_without_other) {
  auto x = tensor<float>::randn("x", {1000}, 4);
  auto out = tensor<float>::zeros("partial", {4});
  launch<sum_no_other<256>>(grid(4), x, out, 1000);
}

BV_DIAG_CASE(masked_lanes_stored) {
  auto x = tensor<float>::randn("x", {1000}, 4);
  auto out = tensor<float>::zeros("out", {1024});
  launch<store_unmasked<256>>(grid(4), x, out, 1000);
}

BV_DIAG_CASE(clean_masked_with_other) {
  auto x = tensor<float>::randn("x", {1000}, 4);
  auto out = tensor<float>::zeros("partial", {4});
  launch<sum_max_with_other<256>>(grid(4), x, out, 1000);
  launch<sum_where<256>>(grid(4), x, out, 1000);
}
