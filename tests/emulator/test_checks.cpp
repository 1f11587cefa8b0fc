// The emulator's counters on kernels whose counts are known: LDS bank conflicts, LDS and global
// bytes, active lanes. (Its checks, a failing and a clean kernel each, are the corpus:
// test_corpus.cpp and cases/.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "bv/bv.hpp"
#include "bv/emu/lib/matmul.hpp"
#include "double_product.hpp"

namespace prim = bv::gpu::prim;

namespace {
// Lane l reads word l * STRIDE (4 bytes) of LDS: stride 32 puts each phase's 32 lanes on one bank.
template <int STRIDE>
BV_KERNEL void bank_kernel(bv::program<1>, bv::ptr<float> out) {
  float* s = prim::lds<float, 64 * 32 + 4, 210>();
  for (int i = prim::lane_id(); i < 64 * 32 + 4; i += 64) s[i] = static_cast<float>(i);
  prim::barrier();
  out.p[prim::lane_id()] = s[prim::lane_id() * STRIDE];
}
// 16-byte reads: lane l reads words 4l .. 4l + 3 (phases of 8 lanes cover 32 words: no
// conflict), or with a 128-byte stride, words 32l ..: the 8 lanes of a phase all hit banks 0-3.
template <int STRIDE_WORDS>
BV_KERNEL void bank128_kernel(bv::program<1>, bv::ptr<float> out) {
  float* s = prim::lds<float, 64 * 32 + 4, 211>();
  for (int i = prim::lane_id(); i < 64 * 32 + 4; i += 64) s[i] = static_cast<float>(i);
  prim::barrier();
  uint4 v;
  __builtin_memcpy(&v, s + prim::lane_id() * STRIDE_WORDS, 16);
  float f;
  __builtin_memcpy(&f, &v.y, 4);
  out.p[prim::lane_id()] = f;
}
// Only lanes 0-15 store.
BV_KERNEL void quarter_kernel(bv::program<1>, bv::ptr<float> out) {
  if (prim::lane_id() < 16) out.p[prim::lane_id()] = 1.0f;
}
}  // namespace

TEST_CASE("emulator counters: LDS bank conflicts in 128-byte phases") {
  auto out = bv::tensor<float>::empty("out", {64});
  auto conflicts_of = [](const bv::emu::result& r) {
    CHECK(r.ok());
    return r.counts.lds_bank_conflicts;
  };
  // The fill loop (stride 1 across lanes, 33 instructions, 4 words past 32 * 64 in the last) has
  // no conflict; the read has: stride 1 none, stride 2 one extra word per bank in each of the two
  // phases, stride 32 all 32 lanes of a phase on bank 0: 31 extra cycles per phase.
  CHECK(conflicts_of(bv::launch<bank_kernel<1>>(bv::grid(1), out)) == 0);
  CHECK(conflicts_of(bv::launch<bank_kernel<2>>(bv::grid(1), out)) == 2);
  CHECK(conflicts_of(bv::launch<bank_kernel<32>>(bv::grid(1), out)) == 62);
  CHECK(conflicts_of(bv::launch<bank128_kernel<4>>(bv::grid(1), out)) == 0);
  // 8 phases of 8 lanes; each lane's 4 words on banks 0-3: 8 distinct words per bank.
  CHECK(conflicts_of(bv::launch<bank128_kernel<32>>(bv::grid(1), out)) == 8 * 7);
  const auto r = bv::launch<bank_kernel<1>>(bv::grid(1), out);
  CHECK(r.counts.lds_read_bytes == 64 * 4);
  CHECK(r.counts.lds_write_bytes == (64 * 32 + 4) * 4);
  CHECK(r.counts.global_write_bytes == 64 * 4);
  CHECK(r.counts.global_read_bytes == 0);
}

TEST_CASE("emulator counters: active lanes of memory instructions") {
  auto out = bv::tensor<float>::empty("out", {64});
  const auto r = bv::launch<quarter_kernel>(bv::grid(3), out);
  CHECK(r.counts.wave_instructions == 3);
  CHECK(r.counts.active_lanes == 3 * 16);
  CHECK(r.counts.active_lane_fraction() == doctest::Approx(0.25));
  CHECK(r.counts.global_write_bytes == 3 * 16 * 4);
}

// The 16-bit matmul in the row each AMD target declares (256x256x32 on 8 waves): every program
// reads each element of its a and b tiles once from global memory (the 16-byte streamed tiles
// hold no copies), stages each once into LDS, and its MFMA reads of b's image are free of bank
// conflicts (dot.hpp's b_swizzle, at 64-byte rows as at 128-byte ones). Values against a double
// product, the output poisoned first.
TEST_CASE(
    "emulator counters: the declared 16-bit matmul reads and stages each element once, "
    "with no bank conflicts") {
  const int M = 512, N = 512, K = 96;
  for (bv::target t : {bv::target::gfx942, bv::target::gfx90a}) {
    CAPTURE(bv::target_name(t));
    bv::emu::set_target(t);
    const bv::launch_config c = bv::config_for<bv::kernels::matmul_configs>(t, 2, "matmul");
    auto a = bv::tensor<bv::half>::randn("a", {M, K}, 31);
    auto b = bv::tensor<bv::half>::randn("b", {K, N}, 32);
    auto out = bv::tensor<float>::empty("c", {M, N});
    out.fill_bytes(0xff);
    const auto r = bv::emu::lib::matmul(a, b, out);
    REQUIRE(r.ok());
    if (!r.memory_checked) continue;  // sanitizer builds: no counters
    const int64_t tiles_m = M / c.bm, tiles_n = N / c.bn;
    const int64_t elems = tiles_n * int64_t{M} * K + tiles_m * int64_t{K} * N;
    CHECK(r.counts.global_read_bytes == 2 * elems);
    CHECK(r.counts.lds_write_bytes == 2 * elems);
    CHECK(r.counts.lds_bank_conflicts == 0);
    // Its K loop (for_range<stages>): two LDS images in turn take one barrier a step, and one
    // before the first; one image takes two a step.
    const int64_t steps = K / c.bk;
    CHECK(c.stages >= 2);
    CHECK(r.counts.barriers == tiles_m * tiles_n * (steps + 1));
    CHECK(emu_test::worst_against_double(a.values(), b.values(), out.values(), M, N, K, 7, 5) <
          1e-4);
  }
  bv::emu::set_target(bv::target::gfx942);
}

namespace {
template <int BM, int BN, int BK, int W, int Stages, class O>
bv::emu::result matmul_images(const bv::tensor<bv::half>& a, const bv::tensor<bv::half>& b,
                              bv::tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1)),
            N = static_cast<int>(b.size(1));
  return bv::launch<bv::kernels::matmul_kernel<bv::half, O, BM, BN, BK, 8, W, Stages>>(
      bv::grid(bv::cdiv(M, BM) * bv::cdiv(N, BN)), a, b, c, M, N, K, K, 1, N, 1, N, 1);
}
struct dims {
  int m, n, k;
};
// One image (for_range<0>) against two (for_range<2>) on a BM x BN x BK tile of W waves.
template <int BM, int BN, int BK, int W>
void one_against_two_images(dims d) {
  CAPTURE(BM);
  CAPTURE(BN);
  CAPTURE(BK);
  CAPTURE(W);
  CAPTURE(d.m);
  CAPTURE(d.n);
  CAPTURE(d.k);
  auto a = bv::tensor<bv::half>::randn("a", {d.m, d.k}, 41 + d.m + BK);
  auto b = bv::tensor<bv::half>::randn("b", {d.k, d.n}, 42 + d.n + W);
  auto one = bv::tensor<float>::empty("one", {d.m, d.n});
  auto two = bv::tensor<float>::empty("two", {d.m, d.n});
  one.fill_bytes(0xff);
  two.fill_bytes(0xff);
  const auto r1 = matmul_images<BM, BN, BK, W, 0>(a, b, one);
  const auto r2 = matmul_images<BM, BN, BK, W, 2>(a, b, two);
  REQUIRE(r1.ok());
  REQUIRE(r2.ok());
  CHECK(r2.errors == 0);
  CHECK(r2.warnings == 0);
  const int64_t tiles = bv::cdiv(d.m, BM) * bv::cdiv(d.n, BN), steps = bv::cdiv(d.k, BK);
  CHECK(r1.counts.barriers == tiles * 2 * steps);
  CHECK(r2.counts.barriers == tiles * (steps + 1));
  if (r2.memory_checked) CHECK(r2.counts.lds_bank_conflicts == 0);
  const auto v1 = one.values(), v2 = two.values();
  int differ = 0;
  for (size_t i = 0; i < v1.size(); ++i) differ += std::memcmp(&v1[i], &v2[i], sizeof(float)) != 0;
  CHECK(differ == 0);
  CHECK(emu_test::worst_against_double(a.values(), b.values(), v2, d.m, d.n, d.k) < 1e-4);
}
}  // namespace

TEST_CASE(
    "emulator: the 16-bit matmul through two LDS images in turn equals one image, ragged sizes") {
  // for_range<2> stages each step's tiles into the other image, unpadded and XOR-permuted, with
  // one barrier a step: the same products in the same order as one padded image with two, so the
  // outputs must agree bit for bit (and with a double product), with no conflict and no race.
  // Rows of 32 and 64 k's (xor_image's two keys), on the AMD layout's 4- and 8-wave grids.
  for (bv::target t : {bv::target::gfx942, bv::target::gfx90a}) {
    CAPTURE(bv::target_name(t));
    bv::emu::set_target(t);
    for (dims d : {dims{300, 270, 100}, dims{256, 256, 32}, dims{17, 520, 161}, dims{513, 40, 64}})
      one_against_two_images<256, 256, 32, 8>(d);
    one_against_two_images<128, 128, 64, 8>({200, 130, 150});
    one_against_two_images<128, 128, 64, 4>({130, 200, 64});
  }
  bv::emu::set_target(bv::target::gfx942);
}
