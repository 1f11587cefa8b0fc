// i32 +, -, * on blocks (interpreter/bv/cpu/block.hpp): the lanes wrap around as on the GPU, and
// with the overflow check on, the number of lanes that wrapped and the first of them are
// reported. Every way the two operands can meet (whole blocks, a number, a row or a column
// broadcast), on values drawn around the edges of i32, against 64-bit references.
#include <doctest/doctest.h>

#include <algorithm>
#include <bv/testing.hpp>
#include <climits>
#include <random>
#include <string>
#include <vector>

#include "bv/bv.hpp"

namespace {

constexpr int R = 8, C = 16;

// How the operands meet: x op y where each is a whole [R, C] block (F), a [1, C] row (W), an
// [R, 1] column (L) or a number (N).
enum combo { FF, FN, NF, WL, LW, FW, LF, WN, NL, k_combos };
const char* const combo_name[k_combos] = {"block op block",  "block op number", "number op block",
                                          "row op column",   "column op row",   "block op row",
                                          "column op block", "row op number",   "number op column"};

template <int K, char Op>
BV_KERNEL void arith(bv::program<4> p, bv::ptr<const int32_t> full_a, bv::ptr<const int32_t> full_b,
                     bv::ptr<const int32_t> row_a, bv::ptr<const int32_t> col_b, int na, int nb,
                     bv::ptr<int32_t> out) {
  auto r = bv::arange<R>(p);
  auto c = bv::arange<C>(p);
  auto fa = bv::load(full_a + (r.col() * C + c.row()));
  auto fb = bv::load(full_b + (r.col() * C + c.row()));
  auto w = bv::load(row_a + c).row();
  auto l = bv::load(col_b + r).col();
  auto apply = [](const auto& x, const auto& y) {
    if constexpr (Op == '+')
      return x + y;
    else if constexpr (Op == '-')
      return x - y;
    else
      return x * y;
  };
  auto result = [&] {
    if constexpr (K == FF) return apply(fa, fb);
    if constexpr (K == FN) return apply(fa, nb);
    if constexpr (K == NF) return apply(na, fb);
    if constexpr (K == WL) return apply(w, l);
    if constexpr (K == LW) return apply(l, w);
    if constexpr (K == FW) return apply(fa, w);
    if constexpr (K == LF) return apply(l, fb);
    if constexpr (K == WN) return apply(w, nb);
    if constexpr (K == NL) return apply(na, l);
  }();
  bv::block<int32_t, R, C> whole = result + bv::zeros<int32_t, R, C>(p);
  bv::store(out + (r.col() * C + c.row()), whole);
}

// The lane (i, j)'s operands of combination k.
struct operands {
  std::vector<int32_t> fa, fb, w, l;
  int32_t na = 0, nb = 0;
  int64_t x(int k, int i, int j) const {
    switch (k) {
      case FF:
      case FN:
      case FW:
        return fa[size_t(i * C + j)];
      case NF:
      case NL:
        return na;
      case WL:
      case WN:
        return w[size_t(j)];
      default:
        return l[size_t(i)];  // LW, LF
    }
  }
  int64_t y(int k, int i, int j) const {
    switch (k) {
      case FF:
      case NF:
      case LF:
        return fb[size_t(i * C + j)];
      case FN:
      case WN:
        return nb;
      case WL:
      case NL:
        return l[size_t(i)];
      default:
        return w[size_t(j)];  // LW, FW
    }
  }
};

// Values that reach past i32 for op: large ones for + and -, and for * factors around
// sqrt(2^31) and the exact edges INT32_MAX / q, INT32_MIN / q of a number q, with small ones
// mixed in so that some rows do not wrap at all.
// e + d, kept in i32 (e is an edge such as INT32_MAX / 1).
int32_t around(int64_t e, int d) {
  return static_cast<int32_t>(std::clamp<int64_t>(e + d, INT32_MIN, INT32_MAX));
}

int32_t draw(std::mt19937_64& rng, char op, int32_t q) {
  std::uniform_int_distribution<int> pick(0, 5);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), small(-1000, 1000),
      near(-70000, 70000), jitter(-2, 2);
  switch (pick(rng)) {
    case 0:
    case 1:
      return small(rng);
    case 2:
      return op == '*' ? near(rng) : any(rng);
    case 3:
      if (op == '*' && q != 0) return around(INT32_MAX / q, jitter(rng));
      return any(rng);
    case 4:
      if (op == '*' && q != 0 && q != -1) return around(INT32_MIN / q, jitter(rng));
      return any(rng);
    default: {
      const int32_t edges[] = {0, 1, -1, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1};
      return edges[std::uniform_int_distribution<int>(0, 6)(rng)];
    }
  }
}

template <int K, char Op>
void check_one(std::mt19937_64& rng, uint32_t enabled) {
  const int32_t numbers[] = {0, 1, -1, 2, -2, 3, 46341, -46341, 65536, INT32_MAX, INT32_MIN};
  operands v;
  v.na = numbers[std::uniform_int_distribution<int>(0, 10)(rng)];
  v.nb = numbers[std::uniform_int_distribution<int>(0, 10)(rng)];
  const int32_t q = (K == FN || K == WN) ? v.nb : (K == NF || K == NL) ? v.na : 7;
  auto fa = bv::tensor<int32_t>::empty("fa", {R * C}),
       fb = bv::tensor<int32_t>::empty("fb", {R * C});
  auto w = bv::tensor<int32_t>::empty("w", {C}), l = bv::tensor<int32_t>::empty("l", {R});
  for (int i = 0; i < R * C; ++i) {
    v.fa.push_back(fa(i) = draw(rng, Op, q));
    v.fb.push_back(fb(i) = draw(rng, Op, q));
  }
  for (int i = 0; i < C; ++i) v.w.push_back(w(i) = draw(rng, Op, q));
  for (int i = 0; i < R; ++i) v.l.push_back(l(i) = draw(rng, Op, q));
  auto out = bv::testing::poisoned<int32_t>("out", {R * C});
  bv::config().enabled = enabled;
  const auto res = bv::launch<arith<K, Op>>(bv::grid(1), fa, fb, w, l, v.na, v.nb, out);
  // The op's own shape: a row op a number is one row, a number op a column one column; lanes
  // wrapped are counted there, before the broadcast into the stored block.
  const int rows = K == WN ? 1 : R, cols = K == NL ? 1 : C;
  int wrapped = 0, first = -1;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const int64_t x = v.x(K, i, j), y = v.y(K, i, j);
      const int64_t exact = Op == '+' ? x + y : Op == '-' ? x - y : x * y;
      const auto expect = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(exact)));
      INFO("lane (" << i << ", " << j << "): " << x << " " << Op << " " << y);
      REQUIRE(out(i * C + j) == expect);
      if (exact != expect && i < rows && j < cols) {
        if (first < 0) first = i * C + j;
        ++wrapped;
      }
    }
  std::vector<std::string> reports;
  for (const auto& d : res.diagnostics)
    if (d.kind == "int32-overflow") reports.push_back(d.headline);
  if (!(enabled & bv::checks::overflow) || wrapped == 0) {
    CHECK(reports.empty());
    return;
  }
  // The first report is the sum's or the op's: the sum with zeros cannot wrap.
  REQUIRE(reports.size() == 1);
  const int i = first / C, j = first % C;
  const int64_t x = v.x(K, i, j), y = v.y(K, i, j);
  const std::string want = std::to_string(x) + " " + Op + " " + std::to_string(y) + " = " +
                           std::to_string(Op == '+'   ? x + y
                                          : Op == '-' ? x - y
                                                      : x * y);
  CHECK(reports[0].find(want) != std::string::npos);
  const std::string count =
      "(" + std::to_string(wrapped) + (wrapped == 1 ? " lane wrapped)" : " lanes wrapped)");
  CHECK(reports[0].find(count) != std::string::npos);
}

template <int K>
void check_combo(std::mt19937_64& rng, uint32_t enabled) {
  CAPTURE(combo_name[K]);
  check_one<K, '+'>(rng, enabled);
  check_one<K, '-'>(rng, enabled);
  check_one<K, '*'>(rng, enabled);
}

template <int... K>
void check_all(std::mt19937_64& rng, uint32_t enabled, std::integer_sequence<int, K...>) {
  (check_combo<K>(rng, enabled), ...);
}

}  // namespace

TEST_CASE("i32 arithmetic wraps as on the GPU and counts the lanes that wrapped") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  bv::testing::schedule_scope scope(bv::schedule::sequential, seed);
  for (int trial = 0; trial < 12; ++trial)
    for (const uint32_t enabled : {0u, uint32_t(bv::checks::overflow)}) {
      CAPTURE(trial);
      CAPTURE(enabled);
      check_all(rng, enabled, std::make_integer_sequence<int, k_combos>{});
    }
}

TEST_CASE("a product with a number wraps exactly at INT32_MAX / q and INT32_MIN / q") {
  bv::testing::schedule_scope scope(bv::schedule::sequential);
  bv::config().enabled = bv::checks::overflow;
  for (const int32_t q : {2, 3, 7, 46341, INT32_MAX, -1, -2, -3, -7, INT32_MIN}) {
    CAPTURE(q);
    auto fa = bv::tensor<int32_t>::zeros("fa", {R * C}),
         fb = bv::tensor<int32_t>::zeros("fb", {R * C});
    auto w = bv::tensor<int32_t>::zeros("w", {C}), l = bv::tensor<int32_t>::zeros("l", {R});
    // Lane k of row 0: the k-th value around the two edges; the other rows 0.
    const int64_t hi = INT32_MAX / q, lo = q == -1 ? -int64_t(INT32_MAX) : INT32_MIN / q;
    int wrapped = 0;
    for (int k = 0; k < C; ++k) {
      const int64_t e = (k < C / 2 ? std::max(hi, lo) : std::min(hi, lo)) + (k % (C / 2)) - 3;
      const int64_t val = std::clamp<int64_t>(e, INT32_MIN, INT32_MAX);
      fa(k) = static_cast<int32_t>(val);
      const int64_t exact = val * q;
      wrapped += exact < INT32_MIN || exact > INT32_MAX;
    }
    auto out = bv::tensor<int32_t>::empty("out", {R * C});
    const auto res = bv::launch<arith<FN, '*'>>(bv::grid(1), fa, fb, w, l, 0, q, out);
    int reported = -1;
    for (const auto& d : res.diagnostics)
      if (d.kind == "int32-overflow") {
        const auto at = d.headline.find(" lane");
        const auto open = d.headline.rfind('(', at);
        reported = std::stoi(d.headline.substr(open + 1, at - open - 1));
      }
    CHECK(reported == (wrapped ? wrapped : -1));
  }
}
