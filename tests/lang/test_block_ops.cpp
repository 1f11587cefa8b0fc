// Block operations against plain scalar loops on random values (in double where it matters).
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "bv/bv.hpp"

namespace {

constexpr int R = 8, C = 16;
using F2 = bv::block<float, R, C>;
using Frow = bv::block<float, C>;
using Fcol = bv::block<float, R>;

struct rng_fixture {
  uint64_t seed = bv::testing::fresh_seed();
  std::mt19937_64 rng{seed};
  template <class B>
  B randn(double scale = 1.0) {
    std::normal_distribution<double> d(0.0, scale);
    B b;
    for (int i = 0; i < B::size; ++i) b.vals()[i] = static_cast<typename B::value_type>(d(rng));
    return b;
  }
  template <class B>
  B randint(int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    B b;
    for (int i = 0; i < B::size; ++i) b.vals()[i] = static_cast<typename B::value_type>(d(rng));
    return b;
  }
};

// |got - want| within rel * max(1, |want|).
bool near(double got, double want, double rel) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= rel * std::max(1.0, std::abs(want));
}

const float nan = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST_CASE_FIXTURE(rng_fixture, "arithmetic broadcasts rows, columns and scalars") {
  INFO("seed " << seed);
  const auto x = randn<F2>(), y = randn<F2>();
  const auto r = randn<Frow>();
  auto c = randn<Fcol>();
  for (int i = 0; i < R; ++i)
    c.vals()[i] += c.vals()[i] >= 0 ? 0.5f : -0.5f;  // keep divisors away from 0
  const auto sum = x + y;
  const auto plus_row = x + r.row();
  const auto minus_row1d = x - r;  // a 1-D block meets a 2-D one as a row
  const auto times_col = x * c.col();
  const auto div_col = x / c.col();
  const auto outer = c.col() * r.row();
  const auto left = 2.5f - x;
  const auto right = x * 3;
  const auto mixed = (x - 1.0) / 4.0f;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      const float xv = x.at(i, j), yv = y.at(i, j);
      CHECK(sum.at(i, j) == xv + yv);
      CHECK(plus_row.at(i, j) == xv + r[j]);
      CHECK(minus_row1d.at(i, j) == xv - r[j]);
      CHECK(times_col.at(i, j) == xv * c[i]);
      CHECK(div_col.at(i, j) == xv / c[i]);
      CHECK(outer.at(i, j) == c[i] * r[j]);
      CHECK(left.at(i, j) == 2.5f - xv);
      CHECK(right.at(i, j) == xv * 3.0f);
      CHECK(near(mixed.at(i, j), (xv - 1.0) / 4.0, 1e-6));
    }
  auto acc = x;
  acc += y;
  acc *= 2;
  acc -= r.row();
  for (int i = 0; i < F2::size; ++i) CHECK(acc[i] == (x[i] + y[i]) * 2 - r[i % C]);
  const auto neg = -x;
  for (int i = 0; i < F2::size; ++i) CHECK(neg[i] == -x[i]);
}

TEST_CASE_FIXTURE(rng_fixture, "integer arithmetic, offsets and bit operations") {
  INFO("seed " << seed);
  using I = bv::block<int32_t, 64>;
  const auto a = randint<I>(-1000, 1000), b = randint<I>(1, 50);
  const auto q = a / b, m = a % b, sh = b << 3, x = a ^ b;
  const auto s = a * int64_t{100000};
  const auto both = (a > 0) & (b < 25);
  const auto either = (a > 0) || (b < 25);
  for (int i = 0; i < 64; ++i) {
    CHECK(q[i] == a[i] / b[i]);
    CHECK(m[i] == a[i] % b[i]);
    CHECK(s[i] == int64_t{a[i]} * 100000);  // widened to i64: no overflow
    CHECK(sh[i] == b[i] * 8);
    CHECK(x[i] == (a[i] ^ b[i]));
    CHECK(both[i] == (a[i] > 0 && b[i] < 25));
    CHECK(either[i] == (a[i] > 0 || b[i] < 25));
  }
}

TEST_CASE_FIXTURE(rng_fixture, "comparisons and where") {
  INFO("seed " << seed);
  const auto x = randn<F2>(), y = randn<F2>();
  const auto r = randn<Frow>();
  const auto lt = x<y, le = x <= 0.25f, gt = x> r.row(), ge = 0.0f >= x, eq = x == x, ne = x != y;
  const auto w = bv::where(x > y, x, y);
  const auto ws = bv::where(x < 0, 0.0f, x);               // relu
  const auto wb = bv::where(r.row() > 0, x, r.row() * 2);  // broadcast mask and operand
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const float xv = x.at(i, j), yv = y.at(i, j);
      CHECK(lt.at(i, j) == (xv < yv));
      CHECK(le.at(i, j) == (xv <= 0.25f));
      CHECK(gt.at(i, j) == (xv > r[j]));
      CHECK(ge.at(i, j) == (0.0f >= xv));
      CHECK(eq.at(i, j));
      CHECK(ne.at(i, j) == (xv != yv));
      CHECK(w.at(i, j) == std::max(xv, yv));
      CHECK(ws.at(i, j) == (xv < 0 ? 0.0f : xv));
      CHECK(wb.at(i, j) == (r[j] > 0 ? xv : r[j] * 2));
    }
  const auto notlt = !lt;
  for (int i = 0; i < F2::size; ++i) CHECK(notlt[i] == !lt[i]);
}

TEST_CASE("casts round to nearest even in f16 and bf16") {
  using B = bv::block<float, 8>;
  B x;
  // 1 + half an f16 ulp is a tie and rounds to even (1); 1 + 1.5 ulp rounds up to 1 + 2 ulp.
  const float u16 = std::ldexp(1.0f, -10), u_bf = std::ldexp(1.0f, -7);
  x.vals() << 1 + u16 / 2, 1 + 1.5f * u16, 70000.0f, -1e-8f, 1 + u_bf / 2, 1 + 1.5f * u_bf, 3.0e38f,
      2.75f;
  const auto h = x.to(bv::f16);
  const auto b = x.to(bv::bf16);
  CHECK(static_cast<float>(h[0]) == 1.0f);
  CHECK(static_cast<float>(h[1]) == 1 + 2 * u16);
  CHECK(std::isinf(static_cast<float>(h[2])));  // above f16's 65504
  CHECK(static_cast<float>(h[3]) == 0.0f);      // below f16's smallest subnormal
  CHECK(static_cast<float>(h[7]) == 2.75f);
  CHECK(static_cast<float>(b[4]) == 1.0f);
  CHECK(static_cast<float>(b[5]) == 1 + 2 * u_bf);
  CHECK(std::isfinite(static_cast<float>(b[6])));  // bf16 keeps f32's range
  CHECK(near(static_cast<float>(b[6]), 3.0e38, 1e-2));
  // Float to int truncates toward zero; bool is "non-zero".
  B y;
  y.vals() << -2.7f, -0.5f, 0.0f, 0.5f, 2.7f, 1e6f, -3.0f, 7.99f;
  const auto i = y.to(bv::i32);
  const auto t = y.to(bv::i1);
  const int want[8] = {-2, 0, 0, 0, 2, 1000000, -3, 7};
  for (int k = 0; k < 8; ++k) {
    CHECK(i[k] == want[k]);
    CHECK(t[k] == (y[k] != 0.0f));
  }
  const auto back = i.to(bv::f32);
  for (int k = 0; k < 8; ++k) CHECK(back[k] == static_cast<float>(want[k]));
}

TEST_CASE_FIXTURE(rng_fixture, "16-bit arithmetic rounds each result") {
  INFO("seed " << seed);
  using H = bv::block<bv::half, 64>;
  const auto a = randn<H>(), b = randn<H>();
  const auto s = a + b, p = a * b;
  for (int i = 0; i < 64; ++i) {
    const float af = static_cast<float>(a[i]), bf = static_cast<float>(b[i]);
    // Computing in f32 and rounding once is exact for one f16 add or multiply.
    CHECK(static_cast<float>(s[i]) == static_cast<float>(static_cast<bv::half>(af + bf)));
    CHECK(static_cast<float>(p[i]) == static_cast<float>(static_cast<bv::half>(af * bf)));
  }
}

TEST_CASE_FIXTURE(rng_fixture, "math functions match libm") {
  INFO("seed " << seed);
  using B = bv::block<float, 256>;
  const auto x = randn<B>(3.0);
  auto pos = bv::abs(randn<B>(10.0)) + 1e-3f;
  const auto e = bv::exp(x), e2 = bv::exp2(x), l = bv::log(pos), sq = bv::sqrt(pos),
             rs = bv::rsqrt(pos), sg = bv::sigmoid(x), th = bv::tanh(x), ab = bv::abs(x);
  for (int i = 0; i < B::size; ++i) {
    CAPTURE(x[i]);
    const double xv = x[i], pv = pos[i];
    CHECK(near(e[i], std::exp(xv), 1e-6));
    CHECK(near(e2[i], std::exp2(xv), 1e-6));
    CHECK(near(l[i], std::log(pv), 1e-6));
    CHECK(near(sq[i], std::sqrt(pv), 1e-6));
    CHECK(near(rs[i], 1 / std::sqrt(pv), 1e-6));
    CHECK(near(sg[i], 1 / (1 + std::exp(-xv)), 1e-6));
    CHECK(near(th[i], std::tanh(xv), 1e-6));
    CHECK(ab[i] == std::abs(x[i]));
  }
  // Edges: exp overflows to inf, log(0) is -inf, log of a negative and sqrt of one are NaN.
  bv::block<float, 4> edge;
  edge.vals() << 100.0f, 0.0f, -1.0f, -200.0f;
  CHECK(std::isinf(bv::exp(edge)[0]));
  CHECK(bv::exp(edge)[3] >= 0.0f);
  CHECK(bv::exp(edge)[3] < 1e-37f);  // Eigen flushes to a denormal, not exactly 0
  CHECK(bv::log(edge)[1] == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(bv::log(edge)[2]));
  CHECK(std::isnan(bv::sqrt(edge)[2]));
  CHECK(bv::sigmoid(edge)[0] == 1.0f);
  CHECK(bv::sigmoid(edge)[3] == 0.0f);
  // 16-bit inputs compute in f32 and round once.
  using H = bv::block<bv::half, 64>;
  const auto h = randn<H>();
  const auto he = bv::exp(h), ht = bv::tanh(h);
  for (int i = 0; i < 64; ++i) {
    const double hv = static_cast<float>(h[i]);
    CHECK(near(static_cast<float>(he[i]), std::exp(hv), 1e-3));
    CHECK(near(static_cast<float>(ht[i]), std::tanh(hv), 1e-3));
  }
  // Scalars work too.
  CHECK(near(bv::exp(1.0f), std::exp(1.0), 1e-6));
  CHECK(near(bv::sqrt(2), std::sqrt(2.0), 1e-6));
}

TEST_CASE_FIXTURE(rng_fixture, "maximum and minimum, with NaN propagation") {
  INFO("seed " << seed);
  using B = bv::block<float, 64>;
  auto a = randn<B>(), b = randn<B>();
  a[3] = nan;
  b[5] = nan;
  a[7] = nan;
  b[7] = nan;
  const auto mx = bv::maximum(a, b), mn = bv::minimum(a, b);
  const auto ms = bv::maximum(a, 0.0f), ns = bv::minimum(1.0f, a);
  for (int i = 0; i < 64; ++i) {
    CAPTURE(i);
    if (i == 3 || i == 5 || i == 7) {
      CHECK(std::isnan(mx[i]));
      CHECK(std::isnan(mn[i]));
    } else {
      CHECK(mx[i] == std::max(a[i], b[i]));
      CHECK(mn[i] == std::min(a[i], b[i]));
    }
    if (i == 3 || i == 7) {
      CHECK(std::isnan(ms[i]));
      CHECK(std::isnan(ns[i]));
    } else {
      CHECK(ms[i] == std::max(a[i], 0.0f));
      CHECK(ns[i] == std::min(1.0f, a[i]));
    }
  }
  using I = bv::block<int32_t, 16>;
  const auto ia = randint<I>(-9, 9), ib = randint<I>(-9, 9);
  const auto im = bv::maximum(ia, ib);
  for (int i = 0; i < 16; ++i) CHECK(im[i] == std::max(ia[i], ib[i]));
}

TEST_CASE_FIXTURE(rng_fixture, "reductions along each axis and over the whole block") {
  INFO("seed " << seed);
  const auto x = randn<F2>();
  const auto s0 = bv::sum<0>(x), m0 = bv::max<0>(x), n0 = bv::min<0>(x);
  const auto s1 = bv::sum<1>(x), m1 = bv::max<1>(x), n1 = bv::min<1>(x);
  const auto a0 = bv::argmax<0>(x);
  const auto a1 = bv::argmax<1>(x);
  double total = 0, mx = -INFINITY, mn = INFINITY;
  for (int j = 0; j < C; ++j) {
    double s = 0, m = -INFINITY, n = INFINITY;
    int am = 0;
    for (int i = 0; i < R; ++i) {
      s += x.at(i, j);
      if (x.at(i, j) > m) m = x.at(i, j), am = i;
      n = std::min<double>(n, x.at(i, j));
    }
    CHECK(near(s0[j], s, 1e-5));
    CHECK(m0[j] == m);
    CHECK(n0[j] == n);
    CHECK(a0[j] == am);
  }
  for (int i = 0; i < R; ++i) {
    double s = 0, m = -INFINITY, n = INFINITY;
    int am = 0;
    for (int j = 0; j < C; ++j) {
      s += x.at(i, j);
      if (x.at(i, j) > m) m = x.at(i, j), am = j;
      n = std::min<double>(n, x.at(i, j));
      total += x.at(i, j);
      mx = std::max<double>(mx, x.at(i, j));
      mn = std::min<double>(mn, x.at(i, j));
    }
    CHECK(near(s1[i], s, 1e-5));
    CHECK(m1[i] == m);
    CHECK(n1[i] == n);
    CHECK(a1[i] == am);
  }
  CHECK(near(bv::sum(x), total, 1e-5));
  CHECK(bv::max(x) == mx);
  CHECK(bv::min(x) == mn);
  // 1-D: along axis 0 is the whole block; argmax picks the first of equal maxima.
  auto v = randn<Frow>();
  v[4] = 50;
  v[9] = 50;
  CHECK(bv::argmax(v) == 4);
  CHECK(bv::argmax<0>(v) == 4);
  CHECK(bv::max<0>(v) == 50);
  CHECK(near(bv::sum<0>(v), bv::sum(v), 1e-6));
  // A NaN makes max and min NaN, as on the GPU.
  v[2] = nan;
  CHECK(std::isnan(bv::max(v)));
  CHECK(std::isnan(bv::min(v)));
  // f16 sums accumulate in f32: 4096 ones is exact (f16 alone would stop at 2048).
  bv::block<bv::half, 4096> ones;
  ones.vals().setConstant(bv::half(1.0f));
  CHECK(bv::sum(ones) == 4096.0f);
  // Integer and bool sums stay exact; a bool sum counts.
  using I = bv::block<int32_t, 64>;
  const auto iv = randint<I>(-100, 100);
  int64_t is = 0;
  for (int i = 0; i < 64; ++i) is += iv[i];
  CHECK(bv::sum(iv) == is);
  CHECK(bv::sum(iv > 0) == (iv > 0).vals().count());
}

TEST_CASE_FIXTURE(rng_fixture, "dot with and without an accumulator") {
  INFO("seed " << seed);
  constexpr int M = 32, K = 16, N = 64;
  using A = bv::block<float, M, K>;
  using B = bv::block<float, K, N>;
  const auto a = randn<A>();
  const auto b = randn<B>();
  const auto acc = randn<bv::block<float, M, N>>();
  const auto d = bv::dot(a, b);
  const auto da = bv::dot(a, b, acc);
  const auto ha = a.to(bv::f16);
  const auto hb = b.to(bv::f16);
  const auto dh = bv::dot(ha, hb);
  static_assert(std::is_same_v<decltype(dh), const bv::block<float, M, N>>,
                "dot of f16 blocks accumulates and returns f32");
  const auto dha = bv::dot(ha, hb, acc);
  double num = 0, den = 0, numh = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0, sh = 0;
      for (int k = 0; k < K; ++k) {
        s += double(a.at(i, k)) * b.at(k, j);
        sh += double(static_cast<float>(ha.at(i, k))) * static_cast<float>(hb.at(k, j));
      }
      CHECK(near(d.at(i, j), s, 1e-5));
      CHECK(near(da.at(i, j), s + acc.at(i, j), 1e-5));
      // Products of f16 values are exact in f32: only the f32 accumulation rounds.
      CHECK(near(dh.at(i, j), sh, 1e-5));
      CHECK(near(dha.at(i, j), sh + acc.at(i, j), 1e-5));
      num += (d.at(i, j) - s) * (d.at(i, j) - s);
      numh += (dh.at(i, j) - s) * (dh.at(i, j) - s);
      den += s * s;
    }
  CHECK(std::sqrt(num / den) < 1e-6);
  // Rounding the inputs to f16 costs about 1e-3 relative, no more.
  CHECK(std::sqrt(numh / den) < 1e-2);
}

TEST_CASE_FIXTURE(rng_fixture, "trans, broadcast_to, arange, zeros, full") {
  INFO("seed " << seed);
  const auto x = randn<F2>();
  const auto t = bv::trans(x);
  static_assert(std::is_same_v<decltype(t), const bv::block<float, C, R>>);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) CHECK(t.at(j, i) == x.at(i, j));
  const auto r = randn<Frow>();
  const auto br = bv::broadcast_to<R, C>(r.row());
  for (int i = 0; i < F2::size; ++i) CHECK(br[i] == r[i % C]);

  // Block constructors only read the program's compile-time wave count.
  const bv::program<2> p{};
  const auto ar = bv::arange<128>(p);
  static_assert(std::is_same_v<decltype(ar), const bv::basic_block<int32_t, bv::shape<128>, 2>>);
  for (int i = 0; i < 128; ++i) CHECK(ar[i] == i);
  const auto ar5 = bv::arange<16>(p, 5);
  for (int i = 0; i < 16; ++i) CHECK(ar5[i] == 5 + i);
  const auto z = bv::zeros<float, 4, 32>(p);
  const auto f = bv::full<bv::half, 64>(p, 1.5);
  const auto fl = bv::full_like(z, 7);
  for (int i = 0; i < z.size; ++i) CHECK(z[i] == 0.0f);
  for (int i = 0; i < f.size; ++i) CHECK(static_cast<float>(f[i]) == 1.5f);
  for (int i = 0; i < fl.size; ++i) CHECK(fl[i] == 7.0f);
  // The 2-D index pattern of every tiled kernel.
  const auto idx = bv::arange<8>(p).col() * 16 + bv::arange<16>(p).row();
  for (int i = 0; i < 128; ++i) CHECK(idx[i] == i);
}
