// The emulator's global byte counters are exact: a kernel that reads each input element once and
// writes each output element once counts exactly the inputs' and the output's bytes, on ragged
// sizes (masked tails read and write nothing), for 1-D blocks (whose row and column roles the
// device compiler drops when unused) and 2-D tiles, f32 and f16; and the library's matmul reads
// each element of its operands' tiles once.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>

#include "bv/bv.hpp"
#include "bv/emu/library.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/softmax.hpp"
#include "double_product.hpp"

namespace {
// A 2-D tile per program: BR rows of a rows x cols matrix, BC >= cols columns. The shapes used
// have no replicas (a tile smaller than its layout's is held, and loaded, by several lanes).
template <class T, int BR, int BC, int W>
BV_KERNEL void tile_copy_kernel(bv::program<W> p, bv::ptr<const T> x, bv::ptr<T> out, int rows,
                                int cols) {
  auto r = p.id(0) * BR + bv::arange<BR>(p);
  auto c = bv::arange<BC>(p);
  auto offs = r.col() * cols + c.row();
  auto m = (r.col() < rows) & (c.row() < cols);
  bv::store(out + offs, bv::load(x + offs, m), m);
}

constexpr int sizes[] = {1, 63, 64, 2047, 2048, 2049, 5000, 12345};

template <class T>
void check_copy_and_add() {
  std::mt19937 rng(11);
  for (int n : sizes) {
    CAPTURE(n);
    const auto bytes = static_cast<int64_t>(n) * static_cast<int64_t>(sizeof(T));
    auto x = bv::tensor<T>::randn("x", {n}, rng());
    auto y = bv::tensor<T>::randn("y", {n}, rng());
    auto out = bv::tensor<T>::empty("out", {n});
    const auto c =
        bv::launch<bv::kernels::copy_kernel<T, 2048, 4>>(bv::grid(bv::cdiv(n, 2048)), x, out, n);
    REQUIRE(c.ok());
    REQUIRE(c.memory_checked);
    CHECK(c.counts.global_read_bytes == bytes);
    CHECK(c.counts.global_write_bytes == bytes);
    const auto a =
        bv::launch<bv::kernels::add_kernel<T, 2048, 4>>(bv::grid(bv::cdiv(n, 2048)), x, y, out, n);
    REQUIRE(a.ok());
    CHECK(a.counts.global_read_bytes == 2 * bytes);
    CHECK(a.counts.global_write_bytes == bytes);
  }
}
}  // namespace

TEST_CASE("emulator counters: copy and add count their inputs' and output's bytes exactly") {
  check_copy_and_add<float>();
  check_copy_and_add<bv::half>();
}

TEST_CASE("emulator counters: 2-D tiles and softmax rows count their bytes exactly") {
  std::mt19937 rng(12);
  for (int rows : {1, 31, 70, 130}) {
    for (int cols : {1, 45, 128}) {
      CAPTURE(rows);
      CAPTURE(cols);
      const int64_t bytes = int64_t{rows} * cols * 4;
      auto x = bv::tensor<float>::randn("x", {rows, cols}, rng());
      auto out = bv::tensor<float>::empty("out", {rows, cols});
      const auto t = bv::launch<tile_copy_kernel<float, 64, 128, 4>>(bv::grid(bv::cdiv(rows, 64)),
                                                                     x, out, rows, cols);
      REQUIRE(t.ok());
      CHECK(t.counts.global_read_bytes == bytes);
      CHECK(t.counts.global_write_bytes == bytes);
      CHECK(out.values() == x.values());
      // Softmax, one row a program: its 1-D row loads count the row once.
      const auto s = bv::launch<bv::kernels::softmax_kernel<float, 256, 2>>(bv::grid(rows), x, out,
                                                                            cols, cols, cols);
      REQUIRE(s.ok());
      CHECK(s.counts.global_read_bytes == bytes);
      CHECK(s.counts.global_write_bytes == bytes);
    }
  }
}

namespace {
// The library's matmul in target t's declared configuration: each program reads its BM rows of a
// and its BN columns of b over all of K, each element once (a streamed tile held in a layout with
// copies, as the f32 matmul's 32 x 64 b tile was in the block layout of 4 waves, is loaded once
// by each copy's lanes), and c is right against a double product.
template <class T>
void check_matmul_reads(bv::target t, int M, int N, int K, uint64_t seed) {
  CAPTURE(bv::target_name(t));
  CAPTURE(sizeof(T));
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  bv::emu::set_target(t);
  const auto cfg = bv::config_for<bv::kernels::matmul_configs>(t, sizeof(T));
  auto a = bv::tensor<T>::randn("a", {M, K}, seed);
  auto b = bv::tensor<T>::randn("b", {K, N}, seed + 1);
  auto c = bv::tensor<float>::empty("c", {M, N});
  c.fill_bytes(0xff);
  const auto r = bv::emu::lib::matmul(a, b, c);
  REQUIRE(r.ok());
  REQUIRE(r.memory_checked);
  const int64_t tiles_m = bv::cdiv(M, cfg.bm), tiles_n = bv::cdiv(N, cfg.bn);
  CHECK(r.counts.global_read_bytes ==
        (tiles_n * M * K + tiles_m * K * N) * static_cast<int64_t>(sizeof(T)));
  CHECK(r.counts.global_write_bytes == int64_t{M} * N * 4);
  CHECK(emu_test::worst_against_double(a.values(), b.values(), c.values(), M, N, K) < 1e-4);
}

// The fused matmul (GELU-tanh(a @ b + bias)) in target t's declared configuration, at two depths
// K1 < K2 on fresh inputs: its global reads grow by exactly a's and b's added tiles, each element
// read once (whatever the bias costs, it does not grow with K), and c is right against a double
// reference.
template <class T>
int64_t bias_gelu_reads(int M, int N, int K, uint64_t seed) {
  CAPTURE(K);
  auto a = bv::tensor<T>::randn("a", {M, K}, seed);
  auto b = bv::tensor<T>::randn("b", {K, N}, seed + 1);
  auto bias = bv::tensor<T>::randn("bias", {N}, seed + 2);
  auto c = bv::tensor<T>::empty("c", {M, N});
  c.fill_bytes(0xff);
  const auto r = bv::emu::lib::matmul_bias_act<bv::kernels::epilogue::gelu_tanh>(a, b, bias, c);
  REQUIRE(r.ok());
  REQUIRE(r.memory_checked);
  CHECK(r.counts.global_write_bytes == int64_t{M} * N * static_cast<int64_t>(sizeof(T)));
  const auto biasv = bias.values();
  const auto gelu_of = [&](int j, double x) {
    x += static_cast<double>(static_cast<float>(biasv[size_t(j)]));
    return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  };
  const double worst =
      emu_test::worst_against_double(a.values(), b.values(), c.values(), M, N, K, 1, 1, gelu_of);
  CHECK(worst < (sizeof(T) == 2 ? 1e-2 : 1e-4));
  return r.counts.global_read_bytes;
}
template <class T>
void check_bias_gelu_reads(bv::target t, int M, int N, int K1, int K2, uint64_t seed) {
  CAPTURE(bv::target_name(t));
  CAPTURE(sizeof(T));
  CAPTURE(M);
  CAPTURE(N);
  bv::emu::set_target(t);
  const auto cfg = bv::config_for<bv::kernels::matmul_bias_act_configs>(t, M);
  const int64_t tiles_m = bv::cdiv(M, cfg.bm), tiles_n = bv::cdiv(N, cfg.bn);
  const int64_t grown = bias_gelu_reads<T>(M, N, K2, seed) - bias_gelu_reads<T>(M, N, K1, seed + 3);
  CHECK(grown == (tiles_n * M + tiles_m * N) * (K2 - K1) * static_cast<int64_t>(sizeof(T)));
}
}  // namespace

TEST_CASE("emulator counters: the library's matmuls read each element of their tiles once") {
  setenv("BV_EMU_QUIET", "1", 0);
  std::mt19937 rng(13);
  for (const bv::target t : {bv::target::gfx942, bv::target::gfx90a}) {
    check_matmul_reads<float>(t, 200, 136, 97, rng());
    check_matmul_reads<float>(t, 70, 61, 45, rng());
    check_matmul_reads<bv::half>(t, 300, 270, 100, rng());
    check_matmul_reads<bv::bfloat16>(t, 129, 257, 64, rng());
    check_bias_gelu_reads<float>(t, 200, 136, 33, 97, rng());
    check_bias_gelu_reads<bv::half>(t, 70, 61, 64, 96, rng());
  }
  bv::emu::set_target(bv::target::gfx942);
}
