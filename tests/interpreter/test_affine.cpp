// Affine index forms (interpreter/bv/cpu/affine.hpp): integer blocks remember value(r, c) =
// a0 + ar*r + ac*c, and pointer blocks built from them load and store without per-lane offsets.
// The form is a claim about the values; these tests check the claim against the values on random
// chains of index arithmetic, and the fast loads and stores against plain host indexing.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <limits>
#include <random>

#include "bv/bv.hpp"

namespace {

// Every element of b agrees with its form, when the form is known.
template <class B>
bool form_holds(const B& b) {
  if (!b.aff.known) return true;
  for (int r = 0; r < B::rows; ++r)
    for (int c = 0; c < B::cols; ++c)
      if (static_cast<int64_t>(b.vals()[r * B::cols + c]) != b.aff.at(r, c)) return false;
  return true;
}

bv::program<4> no_program() { return {}; }

}  // namespace

TEST_CASE("the common index expressions keep a form that matches their values") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-3000, 3000);
  const auto p = no_program();
  for (int trial = 0; trial < 200; ++trial) {
    const int pid = small(rng), stride = small(rng), k = small(rng);
    auto offs = pid * 128 + bv::arange<128>(p);
    CHECK(offs.aff.known);
    CHECK(form_holds(offs));
    auto rows = bv::arange<16>(p, k);
    auto cols = bv::arange<32>(p);
    auto tile = rows.col() * stride + cols.row();  // a row-major tile with a row stride
    CHECK(tile.aff.known);
    CHECK(form_holds(tile));
    auto tr = rows.col() + cols.row() * stride;  // a transposed tile: stride along columns
    CHECK(tr.aff.known);
    CHECK(form_holds(tr));
    CHECK(form_holds(bv::trans(tr)));
    CHECK(form_holds(bv::broadcast_to<16, 32>(cols.row() * k)));
    auto rev = (k - bv::arange<64>(p)).to(bv::i64);  // descending, widened
    CHECK(rev.aff.known);
    CHECK(form_holds(rev));
    CHECK(form_holds(-tile));
    auto shifted = tile;
    shifted += k;
    CHECK(shifted.aff.known);
    CHECK(form_holds(shifted));
    // Not affine: the form must be dropped, never guessed.
    auto sq = offs * offs;
    CHECK_FALSE(sq.aff.known);
    auto md = offs % 7;
    CHECK_FALSE(md.aff.known);
    auto wh = bv::where(offs < k, offs, 0);
    CHECK(form_holds(wh));
  }
}

TEST_CASE("random chains of integer ops never break the form's claim") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> op(0, 6), val(-50000, 50000);
  const auto p = no_program();
  for (int trial = 0; trial < 300; ++trial) {
    auto a = (bv::arange<8>(p).col() * val(rng) + bv::arange<16>(p).row()).to(bv::i64);
    auto b = bv::arange<8>(p).col() + bv::arange<16>(p).row() * val(rng);
    for (int step = 0; step < 12; ++step) {
      switch (op(rng)) {
        case 0:
          a = a + val(rng);
          break;
        case 1:
          a = a * (val(rng) % 4);
          break;  // bounded growth: no i64 overflow
        case 2:
          a = a - b;
          break;
        case 3:
          a = (a + b).to(bv::i64);
          break;
        case 4:
          b = b * (val(rng) % 8);
          break;
        case 5:
          b = (b - val(rng)) * 3;
          break;
        case 6:
          a = a * (b % 3);
          break;  // not affine: the form must go
      }
      REQUIRE(form_holds(a));
      REQUIRE(form_holds(b));
    }
  }
}

TEST_CASE("an i32 block whose affine values wrap around loses its form") {
  const auto p = no_program();
  auto big = bv::arange<64>(p) + (std::numeric_limits<int32_t>::max() - 10);
  CHECK_FALSE(big.aff.known);  // lanes 11.. wrapped to negative values
  CHECK(form_holds(big));
  auto scaled = bv::arange<64>(p) * (1 << 26);
  CHECK_FALSE(scaled.aff.known);
  auto fine = bv::arange<64>(p) + (std::numeric_limits<int32_t>::max() - 63);
  CHECK(fine.aff.known);
  CHECK(form_holds(fine));
}

TEST_CASE("writing an element directly ends the form") {
  const auto p = no_program();
  auto offs = bv::arange<32>(p);
  REQUIRE(offs.aff.known);
  offs[5] = 99;
  CHECK_FALSE(offs.aff.known);
  CHECK(form_holds(offs));
}

namespace {

// The lane-by-lane truth of a comparison, from the operands' written-out values.
template <class M, class X, class Y, class F>
bool mask_matches(const M& m, const X& x, const Y& y, F f) {
  const auto& mv = m.vals();
  for (int r = 0; r < M::rows; ++r)
    for (int c = 0; c < M::cols; ++c) {
      auto lane = [&](const auto& v) -> int64_t {
        using V = std::remove_cvref_t<decltype(v)>;
        if constexpr (std::is_arithmetic_v<V>)
          return v;
        else
          return v.at(V::rows == 1 ? 0 : r, V::cols == 1 ? 0 : c);
      };
      if (mv[r * M::cols + c] != f(lane(x), lane(y))) return false;
    }
  return true;
}

}  // namespace

TEST_CASE("lazy index blocks and masks agree with their lanes, uniform or not") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> val(-3000, 3000), pick(0, 5);
  const auto p = no_program();
  int uniform_seen = 0, mixed_seen = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int pid = val(rng), n = val(rng), stride = val(rng) % 50, m = val(rng) % 40;
    // A 1-D block of offsets, and a 2-D tile compared with broadcast bounds.
    auto offs = pid * 64 + bv::arange<64>(p);
    auto rows = bv::arange<8>(p, val(rng) % 16);
    auto cols = bv::arange<16>(p);
    auto tile = rows.col() * stride + cols.row();
    CHECK(offs.pending());  // nothing read them yet
    INFO("pid " << pid << " n " << n << " stride " << stride << " m " << m);
    auto check_all = [&](const auto& x, const auto& y) {
      bool ok = true;
      auto one = [&](const auto& mask, auto f) {
        ok &= mask_matches(mask, x, y, f);
        if (mask.known_uniform() >= 0)
          ++uniform_seen;
        else
          ++mixed_seen;
      };
      one(x < y, [](int64_t a, int64_t b) { return a < b; });
      one(x <= y, [](int64_t a, int64_t b) { return a <= b; });
      one(x > y, [](int64_t a, int64_t b) { return a > b; });
      one(x >= y, [](int64_t a, int64_t b) { return a >= b; });
      one(x == y, [](int64_t a, int64_t b) { return a == b; });
      one(x != y, [](int64_t a, int64_t b) { return a != b; });
      return ok;
    };
    CHECK(check_all(offs, n));
    CHECK(check_all(n, offs));
    CHECK(check_all(tile, m * stride));
    CHECK(check_all(rows.col(), cols.row() + m));  // two forms, broadcast
    CHECK(check_all(offs.to(bv::i64), static_cast<int64_t>(n)));
    // Masks combined: & and | with uniform and mixed sides, and !.
    const auto a = offs < n, b = offs >= n - pick(rng) * 40, c = bv::arange<64>(p) < 64;
    auto both = a & b, either = a | b, notc = !c, allc = a && c;
    const auto &av = a.vals(), &bv_ = b.vals();
    bool ok = true;
    for (int i = 0; i < 64; ++i) {
      ok &= both.vals()[i] == (av[i] && bv_[i]);
      ok &= either.vals()[i] == (av[i] || bv_[i]);
      ok &= !notc.vals()[i];
      ok &= allc.vals()[i] == av[i];
    }
    CHECK(ok);
    // A copy of a lazy block, and a lazy block written through: both keep the right lanes.
    auto copy = offs;
    CHECK(form_holds(copy));
    auto written = offs;
    written[3] = -1;
    CHECK(written.vals()[3] == -1);
    CHECK(written.vals()[4] == offs.vals()[4]);
    CHECK_FALSE(written.aff.known);
  }
  CHECK(uniform_seen > 0);  // the lazy path was taken...
  CHECK(mixed_seen > 0);    // ...and so was the lane-by-lane one
}

TEST_CASE("an interior program's index and mask blocks are never written out") {
  const auto p = no_program();
  auto offs = 3 * 1024 + bv::arange<1024>(p);
  auto mask = offs < 1000000;
  CHECK(offs.pending());
  CHECK(mask.known_uniform() == 1);
  auto edge = offs < 3500;  // the last program of a ragged grid: mixed
  CHECK(edge.known_uniform() == -1);
  CHECK(edge.vals()[427]);  // 3072 + 427 < 3500
  CHECK_FALSE(edge.vals()[428]);
}

namespace {

// out[r, c] = x[r0 + r*sr + c*sc] for a 16x32 tile at a random origin and strides (row-major,
// transposed, or reversed), through pointer blocks made from affine offsets; masked at the
// edges of an n-element buffer.
template <int W>
BV_KERNEL void tile_gather(bv::program<W> p, bv::ptr<const float> x, bv::ptr<float> out, int r0,
                           int sr, int sc, int n) {
  auto rows = bv::arange<16>(p);
  auto cols = bv::arange<32>(p);
  auto src = r0 + rows.col() * sr + cols.row() * sc;
  auto dst = rows.col() * 32 + cols.row() + p.id(0) * 512;
  auto ok = (src >= 0) && (src < n);
  bv::store(out + dst, bv::load(x + src, ok, -1.0f));
}

// The same tile stored back through the strided pointer block (a scatter with the form).
template <int W>
BV_KERNEL void tile_scatter(bv::program<W> p, bv::ptr<const float> in, bv::ptr<float> y, int r0,
                            int sr, int sc, int n) {
  auto rows = bv::arange<16>(p);
  auto cols = bv::arange<32>(p);
  auto dst = bv::ptr<float>(y) + r0 + (rows.col() * sr + cols.row() * sc);
  auto src = rows.col() * 32 + cols.row();
  auto lin = r0 + rows.col() * sr + cols.row() * sc;
  bv::store(dst, bv::load(in + src), (lin >= 0) && (lin < n));
}

}  // namespace

TEST_CASE("loads and stores through affine pointer blocks match host indexing") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (uint32_t checks : {bv::checks::none, bv::checks::all})
    for (auto sched : bv::testing::all_schedules()) {
      bv::testing::schedule_scope scope(sched, seed);
      bv::config().enabled = checks;
      for (int trial = 0; trial < 12; ++trial) {
        const int n = bv::testing::ragged(rng, 600, 5000);
        // Unit column stride (rows copied whole), a transposed tile, and a reversed one.
        const int shapes[3][2] = {{33, 1}, {1, 37}, {-1, -40}};
        const auto& sh = shapes[trial % 3];
        const int sr = sh[0], sc = sh[1];
        std::uniform_int_distribution<int> origin(-100, n + 100);
        const int r0 = origin(rng);
        INFO("n " << n << " r0 " << r0 << " strides " << sr << "," << sc << " checks " << checks);
        auto x = bv::tensor<float>::randn("x", {n}, seed + trial);
        auto out = bv::testing::poisoned<float>("out", {512});
        const auto r = bv::launch<tile_gather<4>>(bv::grid(1), x, out, r0, sr, sc, n);
        CHECK(r.ok());
        int bad = 0;
        for (int i = 0; i < 16; ++i)
          for (int j = 0; j < 32; ++j) {
            const int64_t s = int64_t(r0) + int64_t(i) * sr + int64_t(j) * sc;
            const float want = s >= 0 && s < n ? x.flat(s) : -1.0f;
            bad += !(out.flat(i * 32 + j) == want);
          }
        CHECK(bad == 0);

        auto y = bv::testing::poisoned<float>("y", {n});
        auto tile = bv::tensor<float>::randn("tile", {512}, seed + 100 + trial);
        const auto r2 = bv::launch<tile_scatter<4>>(bv::grid(1), tile, y, r0, sr, sc, n);
        CHECK(r2.ok());
        std::vector<float> want(static_cast<size_t>(n), std::numeric_limits<float>::quiet_NaN());
        for (int i = 0; i < 16; ++i)
          for (int j = 0; j < 32; ++j) {
            const int64_t s = int64_t(r0) + int64_t(i) * sr + int64_t(j) * sc;
            if (s >= 0 && s < n) want[static_cast<size_t>(s)] = tile.flat(i * 32 + j);
          }
        int bad2 = 0;
        for (int i = 0; i < n; ++i) {
          const float g = y.flat(i), w = want[static_cast<size_t>(i)];
          bad2 += !((std::isnan(g) && std::isnan(w)) || g == w);
        }
        CHECK(bad2 == 0);
      }
    }
}
