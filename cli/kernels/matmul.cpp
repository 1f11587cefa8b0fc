// matmul and matmul_f16: the kernel (bv/kernels/matmul.hpp), its reference
// (bv/kernels/ref/matmul.hpp) and one registration each, made by one function of the dtype; Eigen
// times bench's native column.
#include "bv/kernels/matmul.hpp"

#include <cmath>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/matmul.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

template <class T>
struct io {
  tensor<T> a, b, c;
  int m() const { return static_cast<int>(a.size(0)); }
  int n() const { return static_cast<int>(b.size(1)); }
  int k() const { return static_cast<int>(a.size(1)); }
};

// What differs between the two entries.
template <class T>
struct variant {
  const char* name;
  const char* description;
  sizes default_size;
  double tol;       // against the reference
  double emu_diff;  // emulator against the interpreter, times sqrt(K)
  std::string note = {};
};

template <class T>
kernel<io<T>, doubles> entry(const variant<T>& v) {
  return {
      .name = v.name,
      .description = v.description,
      .size_help = "M,N,K",
      .default_size = v.default_size,
      .bench_size = {256, 256, 256},
      .make =
          [](const sizes& s, uint64_t seed) {
            return io<T>{tensor<T>::randn("a", {s[0], s[2]}, seed),
                         tensor<T>::randn("b", {s[2], s[1]}, seed + 1),
                         output<T>("c", {s[0], s[1]})};
          },
      .launch = [](io<T>& x) { return kernels::matmul(x.a, x.b, x.c); },
      .reference = [](const io<T>& x) { return kernels::ref::matmul(x.a, x.b); },
      .compare = [tol = v.tol](checker& c, const io<T>& x,
                               const doubles& r) { c.expect(x.c, r, tol); },
      .note = v.note,
      .native = [](io<T>& x) -> std::function<void()> {
        if constexpr (std::is_same_v<T, float>) {
          return [&x] {
            fmap(x.c.data(), x.m(), x.n()).noalias() =
                fmap(x.a.data(), x.m(), x.k()) * fmap(x.b.data(), x.k(), x.n());
          };
        } else {
          // f16 storage, fp32 products, as the kernel accumulates.
          using H = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
          return [&x] {
            const fmat fa = H(x.a.data(), x.m(), x.k()).template cast<float>();
            const fmat fb = H(x.b.data(), x.k(), x.n()).template cast<float>();
            H(x.c.data(), x.m(), x.n()) = (fa * fb).template cast<T>();
          };
        }
      },
  };
}

template <class T>
backends<io<T>, doubles> parts(const variant<T>& v) {
  constexpr auto dt = std::is_same_v<T, float> ? gpu::dtype_id::f32 : gpu::dtype_id::f16;
  return {
      .gpu =
          [](io<T>& x, bool cpu) {
            const double ms =
                gpu::matmul(dt, dt, x.a.data(), x.b.data(), x.c.data(), x.m(), x.n(), x.k());
            // f32 inputs go through the tensor cores as tf32 (as Triton does), f16 results may
            // differ from the interpreter's by an f16 ulp: both compared loosely.
            return finish_gpu(x.c, ms, kernels::ref::matmul(x.a, x.b), 1e-2, cpu,
                              1e-2 * std::sqrt(static_cast<double>(x.k())),
                              [&](tensor<T>& o) { return kernels::matmul(x.a, x.b, o); });
          },
      .amd_emu =
          [v](io<T>& x, const doubles& ref, target t) {
            return emu_compare(v.name, t)
                .in(x.a)
                .in(x.b)
                .cpu([&] { return kernels::matmul(x.a, x.b, x.c); })
                .out(0, x.c, ref, v.tol, v.emu_diff * std::sqrt(static_cast<double>(x.k())))
                .done(v.note);
          },
  };
}

// MFMA's fp32 sums differ from the interpreter's, in another order, by a few ulps of |c|; f16
// outputs of the two fp32 sums may round to neighbouring halves.
const variant<float> f32{
    .name = "matmul",
    .description = "tiled matmul C = A @ B, f32, the target's tiles, grouped ordering",
    .default_size = {200, 136, 97},
    .tol = 1e-5,
    .emu_diff = 1e-5};
const variant<half> f16{
    .name = "matmul_f16",
    .description = "tiled matmul C = A @ B, f16 inputs and output, fp32 accumulation",
    .default_size = {130, 200, 77},
    .tol = 1e-2,
    .emu_diff = 1e-2,
    .note = "f16 inputs and output, fp32 accumulation"};

registrar reg_f32{entry(f32), parts(f32)};
registrar reg_f16{entry(f16), parts(f16)};

}  // namespace
}  // namespace bv::cli
