// Direct conv2d (NCHW, stride, padding) against the double reference: ragged images and channel
// counts, 1x1/3x3/5x5 kernels, strides 1 and 2, paddings 0..2, every schedule, f32 and f16.
#include <bv/testing.hpp>

#include "bv/kernels/conv2d.hpp"
#include "bv/kernels/ref/conv2d.hpp"

using namespace bv;
using namespace bv::testing;

namespace {
template <class T>
void check_conv(int n, int c, int h, int w, int oc, int k, kernels::conv2d_params prm,
                uint64_t seed) {
  CAPTURE(n);
  CAPTURE(c);
  CAPTURE(h);
  CAPTURE(w);
  CAPTURE(oc);
  CAPTURE(k);
  CAPTURE(prm.stride_h);
  CAPTURE(prm.pad_h);
  CAPTURE(seed);
  auto x = tensor<T>::randn("x", {n, c, h, w}, seed);
  auto wt = tensor<T>::randn("w", {oc, c, k, k}, seed + 1, 0.3);
  auto bias = tensor<T>::randn("bias", {oc}, seed + 2);
  const int64_t oh = kernels::conv2d_out_size(h, k, prm.stride_h, prm.pad_h);
  const int64_t ow = kernels::conv2d_out_size(w, k, prm.stride_w, prm.pad_w);
  const auto ref =
      kernels::ref::conv2d(x, wt, bias, prm.stride_h, prm.stride_w, prm.pad_h, prm.pad_w);
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    auto out = poisoned<T>("out", {n, oc, oh, ow});
    CHECK(kernels::conv2d(x, wt, bias, out, prm).ok());
    BV_CHECK_CLOSE(out, ref, tolerance<T>());
  }
}
}  // namespace

TEST_CASE("conv2d f32: kernels, strides, paddings on ragged shapes") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_conv<float>(2, ragged(rng, 2, 7, 4), ragged(rng, 9, 20), ragged(rng, 9, 20),
                    ragged(rng, 5, 40), 3, {1, 1, 1, 1}, seed);
  check_conv<float>(1, ragged(rng, 2, 7, 4), ragged(rng, 9, 20), ragged(rng, 9, 20),
                    ragged(rng, 5, 40), 3, {2, 2, 0, 0}, seed + 1);
  check_conv<float>(2, 3, ragged(rng, 9, 20), ragged(rng, 9, 20), 17, 5, {2, 1, 2, 1}, seed + 2);
  check_conv<float>(1, 70, 7, 9, 33, 1, {1, 1, 0, 0}, seed + 3);
}

TEST_CASE("conv2d f16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_conv<half>(2, ragged(rng, 2, 9, 4), ragged(rng, 9, 20), ragged(rng, 9, 20),
                   ragged(rng, 5, 40), 3, {1, 1, 1, 1}, seed);
}
