// GPU tests: every kernel in kernels/ that the GPU backend launches, run on the GPU and on the
// interpreter with the same random, ragged inputs; the GPU result must match the double-precision
// reference (kernels/bv/kernels/ref) and the interpreter's, element by element. A CPU-compiled
// program: it reaches the GPU through bv/gpu/host_api.hpp. With no GPU (or BV_INTERPRET=1) it
// prints why and exits with 77, which ctest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "bv/gpu/dispatch.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/ref/add.hpp"
#include "bv/kernels/ref/copy.hpp"
#include "bv/kernels/ref/matmul.hpp"
#include "bv/kernels/ref/softmax.hpp"
#include "bv/kernels/softmax.hpp"
#include "bv/testing.hpp"

namespace {
using bv::tensor;
using bv::gpu::dtype_id;

template <class T>
dtype_id id_of() {
  if constexpr (std::is_same_v<T, bv::half>)
    return dtype_id::f16;
  else if constexpr (std::is_same_v<T, bv::bfloat16>)
    return dtype_id::bf16;
  else
    return dtype_id::f32;
}

// The interpreter's and the GPU's results element by element: the largest difference relative
// to the largest reference magnitude must stay under `tol`.
template <class T>
void check_same(const tensor<T>& gpu, const tensor<T>& cpu, const std::vector<double>& ref,
                double tol) {
  double worst = 0, scale = 0;
  int64_t at = -1;
  for (int64_t i = 0; i < gpu.numel(); ++i) {
    const double g = static_cast<float>(gpu.flat(i)), c = static_cast<float>(cpu.flat(i));
    scale = std::max(scale, std::abs(ref[i]));
    const double d =
        std::isnan(g) != std::isnan(c) ? INFINITY : (std::isnan(g) ? 0 : std::abs(g - c));
    if (d > worst || at < 0) worst = d, at = i;
  }
  INFO("GPU vs interpreter: max |gpu - cpu| = "
       << worst << " at flat index " << at << " (gpu " << static_cast<float>(gpu.flat(at))
       << ", cpu " << static_cast<float>(cpu.flat(at)) << "), reference scale " << scale);
  CHECK(worst <= tol * (scale > 0 ? scale : 1));
}

uint64_t seed_for(const char* name) {
  const uint64_t s = bv::testing::fresh_seed();
  MESSAGE(std::string(name) << ": seed " << s << " (BV_TEST_SEED pins it)");
  return s;
}

template <class T>
void add_case(int64_t n, uint64_t seed) {
  CAPTURE(n);
  auto x = tensor<T>::randn("x", {n}, seed), y = tensor<T>::randn("y", {n}, seed + 1);
  tensor<T> out_gpu("out_gpu", {n}), out_cpu("out_cpu", {n});
  bv::testing::poison(out_gpu);
  bv::gpu::add(id_of<T>(), x.data(), y.data(), out_gpu.data(), n);
  REQUIRE(bv::kernels::add(x, y, out_cpu).ok());
  const auto ref = bv::kernels::ref::add(x, y);
  BV_CHECK_CLOSE(out_gpu, ref, bv::testing::tolerance<T>());
  check_same(out_gpu, out_cpu, ref, 0.0);  // one rounding of the same sum: identical
}

template <class T>
void copy_case(int64_t n, uint64_t seed) {
  CAPTURE(n);
  auto x = tensor<T>::randn("x", {n}, seed);
  tensor<T> out_gpu("out_gpu", {n}), out_cpu("out_cpu", {n});
  bv::testing::poison(out_gpu);
  bv::gpu::copy(id_of<T>(), x.data(), out_gpu.data(), n);
  REQUIRE(bv::kernels::copy(x, out_cpu).ok());
  const auto ref = bv::kernels::ref::copy(x);
  BV_CHECK_CLOSE(out_gpu, ref, 0.0);
  check_same(out_gpu, out_cpu, ref, 0.0);
}

template <class T>
void softmax_case(int rows, int cols, uint64_t seed) {
  CAPTURE(rows);
  CAPTURE(cols);
  auto x = tensor<T>::randn("x", {rows, cols}, seed, 3.0);
  tensor<T> out_gpu("out_gpu", {rows, cols}), out_cpu("out_cpu", {rows, cols});
  bv::testing::poison(out_gpu);
  bv::gpu::softmax(id_of<T>(), x.data(), out_gpu.data(), rows, cols);
  REQUIRE(bv::kernels::softmax(x, out_cpu).ok());
  const auto ref = bv::kernels::ref::softmax(x);
  BV_CHECK_CLOSE(out_gpu, ref, bv::testing::tolerance<T>() * 10);
  check_same(out_gpu, out_cpu, ref, bv::is_16bit_float<T> ? 1e-2 : 1e-5);
}

template <class T, class O>
void matmul_case(int M, int N, int K, uint64_t seed) {
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  auto a = tensor<T>::randn("a", {M, K}, seed), b = tensor<T>::randn("b", {K, N}, seed + 1);
  tensor<O> c_gpu("c_gpu", {M, N}), c_cpu("c_cpu", {M, N});
  bv::testing::poison(c_gpu);
  bv::gpu::matmul(id_of<T>(), id_of<O>(), a.data(), b.data(), c_gpu.data(), M, N, K);
  REQUIRE(bv::kernels::matmul(a, b, c_cpu).ok());
  const auto ref = bv::kernels::ref::matmul(a, b);
  BV_CHECK_CLOSE(c_gpu, ref, std::max(bv::testing::tolerance<O>(), 1e-5));
  check_same(c_gpu, c_cpu, ref, bv::is_16bit_float<O> ? 1e-2 : 1e-5);
}
}  // namespace

TEST_CASE("gpu add: f32 and f16, ragged sizes") {
  const uint64_t s = seed_for("add");
  std::mt19937_64 rng(s);
  for (int64_t n : {int64_t(1), int64_t(1000), int64_t(bv::testing::ragged(rng, 2049, 70000)),
                    int64_t(1 << 20) + 3}) {
    add_case<float>(n, s + n);
    add_case<bv::half>(n, s + n + 7);
  }
}

TEST_CASE("gpu copy: f32, f16, bf16, ragged sizes") {
  const uint64_t s = seed_for("copy");
  std::mt19937_64 rng(s);
  for (int64_t n :
       {int64_t(3), int64_t(bv::testing::ragged(rng, 2049, 70000)), int64_t(1 << 20) + 1}) {
    copy_case<float>(n, s + n);
    copy_case<bv::half>(n, s + n + 1);
    copy_case<bv::bfloat16>(n, s + n + 2);
  }
}

TEST_CASE("gpu softmax: every row-length class, ragged") {
  const uint64_t s = seed_for("softmax");
  std::mt19937_64 rng(s);
  const int shapes[][2] = {{3, 100},
                           {37, bv::testing::ragged(rng, 257, 1000)},
                           {19, bv::testing::ragged(rng, 1025, 4000)},
                           {9, bv::testing::ragged(rng, 4097, 8192)},
                           {5, bv::testing::ragged(rng, 8193, 20000)}};
  for (auto& sh : shapes) {
    softmax_case<float>(sh[0], sh[1], s + sh[1]);
    softmax_case<bv::half>(sh[0], sh[1], s + sh[1] + 1);
  }
}

TEST_CASE("gpu matmul: f32, f16 and bf16 with f32 output, ragged") {
  const uint64_t s = seed_for("matmul");
  std::mt19937_64 rng(s);
  matmul_case<float, float>(64, 64, 32, s);
  matmul_case<float, float>(bv::testing::ragged(rng, 65, 200), bv::testing::ragged(rng, 65, 200),
                            bv::testing::ragged(rng, 33, 150), s + 1);
  matmul_case<bv::half, float>(128, 128, 32, s + 2);
  matmul_case<bv::half, float>(bv::testing::ragged(rng, 129, 300),
                               bv::testing::ragged(rng, 129, 300),
                               bv::testing::ragged(rng, 33, 300), s + 3);
  matmul_case<bv::bfloat16, float>(bv::testing::ragged(rng, 129, 300),
                                   bv::testing::ragged(rng, 129, 300),
                                   bv::testing::ragged(rng, 33, 300), s + 4);
  matmul_case<bv::half, bv::half>(256, 256, 256, s + 5);
}

TEST_CASE("backend choice: automatic picks the GPU, BV_INTERPRET=1 forces the interpreter") {
  auto x = tensor<float>::randn("x", {5000}, 3), y = tensor<float>::randn("y", {5000}, 4);
  tensor<float> a("a", {5000}), b("b", {5000});
  const auto ra = bv::gpu::add(x, y, a);  // automatic
  CHECK(ra.kernel.find("(gpu)") != std::string::npos);
  setenv("BV_INTERPRET", "1", 1);
  const auto rb = bv::gpu::add(x, y, b);
  unsetenv("BV_INTERPRET");
  CHECK(rb.kernel.find("(gpu)") == std::string::npos);
  CHECK(rb.ok());
  for (int64_t i = 0; i < 5000; ++i) REQUIRE(a(i) == b(i));
  auto m = tensor<float>::randn("m", {50, 100}, 5);
  tensor<float> mo("mo", {100, 50});
  CHECK_THROWS_AS(bv::gpu::copy(m.transposed(), mo, bv::gpu::backend::gpu), std::runtime_error);
}

int main(int argc, char** argv) {
  if (!bv::gpu::available()) {
    std::printf("SKIPPED: GPU tests need a GPU: %s%s\n", bv::gpu::describe().c_str(),
                bv::gpu::built() && std::getenv("BV_INTERPRET") ? " (BV_INTERPRET is set)" : "");
    return 77;
  }
  std::printf("GPU: %s\n", bv::gpu::describe().c_str());
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
