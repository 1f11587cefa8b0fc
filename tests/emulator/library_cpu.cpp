// The CPU side of the emulator's library tests (library_cases.hpp): each case's inputs, drawn in
// the kernel's element type, its outputs from the interpreter's launchers (the configuration each
// kernel declares for the target) and its double references from kernels/bv/kernels/ref/. An
// interpreter translation unit: kept apart from the emulated one, whose language differs.
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "bv/bv.hpp"
#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/conv2d.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/dropout.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/matmul_fused.hpp"
#include "bv/kernels/ref/act_mul.hpp"
#include "bv/kernels/ref/add.hpp"
#include "bv/kernels/ref/attention.hpp"
#include "bv/kernels/ref/conv2d.hpp"
#include "bv/kernels/ref/copy.hpp"
#include "bv/kernels/ref/cross_entropy.hpp"
#include "bv/kernels/ref/dropout.hpp"
#include "bv/kernels/ref/layernorm.hpp"
#include "bv/kernels/ref/matmul.hpp"
#include "bv/kernels/ref/matmul_fused.hpp"
#include "bv/kernels/ref/rmsnorm.hpp"
#include "bv/kernels/ref/softmax.hpp"
#include "bv/kernels/rmsnorm.hpp"
#include "bv/kernels/rope.hpp"
#include "bv/kernels/softmax.hpp"
#include "library_cases.hpp"

namespace emu_lib {
namespace {
namespace k = bv::kernels;
namespace ref = bv::kernels::ref;
using bv::tensor;

struct builder {
  cpu_case c;
  uint64_t seed;
  template <class T>
  tensor<T> in(std::vector<int64_t> shape, double scale = 1.0) {
    auto t = tensor<T>::randn("in" + std::to_string(c.inputs.size()), shape, seed++, scale);
    array a;
    a.shape = shape;
    for (int64_t i = 0; i < t.numel(); ++i) a.f.push_back(static_cast<float>(t.flat(i)));
    c.inputs.push_back(std::move(a));
    return t;
  }
  tensor<int32_t> targets(int64_t m, int v) {
    auto t = tensor<int32_t>::empty("target", {m});
    array a;
    a.shape = {m};
    for (int64_t i = 0; i < m; ++i) {
      t.flat(i) = static_cast<int32_t>((seed * 7919 + static_cast<uint64_t>(i) * 104729) % v);
      a.i.push_back(t.flat(i));
    }
    c.inputs.push_back(std::move(a));
    return t;
  }
  template <class T>
  void out(const std::string& name, const tensor<T>& t, std::vector<double> r) {
    std::vector<float> v;
    for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<float>(t.flat(i)));
    c.outputs.push_back(name);
    c.interp.push_back(std::move(v));
    c.ref.push_back(std::move(r));
  }
  // Records what a launcher launched.
  void launched(const bv::launch_result& r) {
    c.kernels.push_back(launch_line(r.kernel, r.programs));
  }
  void launched(const std::vector<bv::launch_result>& rs) {
    for (const auto& r : rs) launched(r);
  }
  // Times the interpreter's launches (checks off).
  void run(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    c.interp_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

template <class T>
cpu_case attention(builder& b, bool causal, bool bwd) {
  const int64_t B = 1, H = 2, S = 40, D = 64;
  auto q = b.in<T>({B, H, S, D}), kk = b.in<T>({B, H, S, D}), v = b.in<T>({B, H, S, D});
  auto o = tensor<T>::empty("o", {B, H, S, D});
  auto lse = tensor<float>::empty("lse", {B * H, S});
  if (!bwd) {
    b.run([&] { b.launched(k::attention_fwd(q, kk, v, o, lse, causal)); });
    const auto r = ref::attention_fwd(q, kk, v, causal);
    b.out("o", o, r.o);
    b.out("lse", lse, r.lse);
    return b.c;
  }
  auto dout = b.in<T>({B, H, S, D});
  auto dq = tensor<T>::empty("dq", {B, H, S, D}), dk = tensor<T>::empty("dk", {B, H, S, D}),
       dv = tensor<T>::empty("dv", {B, H, S, D});
  b.run([&] {
    b.launched(k::attention_fwd(q, kk, v, o, lse, causal));
    b.launched(k::attention_bwd(q, kk, v, o, lse, dout, dq, dk, dv, causal));
  });
  const auto r = ref::attention_bwd(q, kk, v, dout, causal);
  b.out("dq", dq, r.dq);
  b.out("dk", dk, r.dk);
  b.out("dv", dv, r.dv);
  return b.c;
}

template <class T>
cpu_case matmul(builder& b, bool fused) {
  // K past two of the 16-bit row's 64-deep steps, the last ragged: the loop's loads of the next
  // step run (tile_loop.hpp).
  const int M = 70, K = 141, N = 77;
  auto a = b.in<T>({M, K}), w = b.in<T>({K, N});
  if (fused) {
    auto bias = b.in<T>({N});
    auto c = tensor<T>::empty("c", {M, N});
    b.run([&] { b.launched(k::matmul_bias_act<k::epilogue::gelu_tanh>(a, w, bias, c)); });
    b.out("c", c, ref::matmul_bias_act(a, w, bias, static_cast<int>(k::epilogue::gelu_tanh)));
  } else {
    auto c = tensor<float>::empty("c", {M, N});
    b.run([&] { b.launched(k::matmul(a, w, c)); });
    b.out("c", c, ref::matmul(a, w));
  }
  return b.c;
}

// Columns of a norm backward case (library_cases.hpp): ragged, just short of the block.
int64_t norm_bwd_cols(const std::string& name) {
  const auto ends = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends("_wide") ? 8000 : (ends("_4k") ? 4000 : 300);
}

}  // namespace

cpu_case run_cpu(const std::string& name, bv::target t, uint64_t seed) {
  bv::set_target(t);
  bv::config().enabled = 0;
  bv::config().quiet = true;
  builder b{{}, seed};
  if (name == "add") {
    auto x = b.in<float>({3001}), y = b.in<float>({3001});
    auto o = tensor<float>::empty("o", {3001});
    b.run([&] { b.launched(k::add(x, y, o)); });
    b.out("out", o, ref::add(x, y));
  } else if (name == "copy") {
    auto x = b.in<float>({2500});
    auto o = tensor<float>::empty("o", {2500});
    b.run([&] { b.launched(k::copy(x, o)); });
    b.out("out", o, ref::copy(x));
  } else if (name == "softmax" || name == "softmax_looped") {
    const int64_t rows = name == "softmax" ? 3 : 2, cols = name == "softmax" ? 300 : 9000;
    auto x = b.in<float>({rows, cols}, 3.0);
    auto o = tensor<float>::empty("o", {rows, cols});
    b.run([&] { b.launched(k::softmax(x, o)); });
    b.out("out", o, ref::softmax(x));
  } else if (name == "rmsnorm_fwd") {
    auto x = b.in<float>({5, 300}), w = b.in<float>({300});
    auto y = tensor<float>::empty("y", {5, 300});
    auto rstd = tensor<float>::empty("rstd", {5});
    b.run([&] { b.launched(k::rmsnorm_fwd(x, w, y, rstd)); });
    const auto r = ref::rmsnorm_fwd(x, w);
    b.out("y", y, r.y);
    b.out("rstd", rstd, r.rstd);
  } else if (name.rfind("rmsnorm_bwd", 0) == 0) {
    const int64_t m = name == "rmsnorm_bwd" ? 7 : 3, n = norm_bwd_cols(name);
    auto x = b.in<float>({m, n}), w = b.in<float>({n}), dy = b.in<float>({m, n});
    auto y = tensor<float>::empty("y", {m, n});
    auto rstd = tensor<float>::empty("rstd", {m});
    auto dx = tensor<float>::empty("dx", {m, n}), dw = tensor<float>::empty("dw", {n});
    b.run([&] {
      b.launched(k::rmsnorm_fwd(x, w, y, rstd));
      b.launched(k::rmsnorm_bwd(dy, x, w, rstd, dx, dw));
    });
    const auto r = ref::rmsnorm_bwd(dy, x, w);
    b.out("dx", dx, r.dx);
    b.out("dw", dw, r.dw);
  } else if (name == "layernorm_fwd") {
    auto x = b.in<float>({5, 300}), w = b.in<float>({300}), bb = b.in<float>({300});
    auto y = tensor<float>::empty("y", {5, 300});
    auto mean = tensor<float>::empty("mean", {5}), rstd = tensor<float>::empty("rstd", {5});
    b.run([&] { b.launched(k::layernorm_fwd(x, w, bb, y, mean, rstd)); });
    const auto r = ref::layernorm_fwd(x, w, bb);
    b.out("y", y, r.y);
    b.out("mean", mean, r.mean);
    b.out("rstd", rstd, r.rstd);
  } else if (name.rfind("layernorm_bwd", 0) == 0) {
    const bool lock = name.rfind("layernorm_bwd_lock", 0) == 0;
    const int64_t m = name == "layernorm_bwd_lock" || name == "layernorm_bwd_twostage" ? 7 : 3,
                  n = norm_bwd_cols(name);
    auto x = b.in<float>({m, n}), w = b.in<float>({n}), bb = b.in<float>({n}),
         dy = b.in<float>({m, n});
    auto y = tensor<float>::empty("y", {m, n});
    auto mean = tensor<float>::empty("mean", {m}), rstd = tensor<float>::empty("rstd", {m});
    auto dx = tensor<float>::empty("dx", {m, n}), dw = tensor<float>::empty("dw", {n}),
         db = tensor<float>::empty("db", {n});
    b.run([&] {
      b.launched(k::layernorm_fwd(x, w, bb, y, mean, rstd));
      b.launched(k::layernorm_bwd(dy, x, w, mean, rstd, dx, dw, db,
                                  lock ? k::reduction::lock : k::reduction::two_stage));
    });
    const auto r = ref::layernorm_bwd(dy, x, w);
    b.out("dx", dx, r.dx);
    b.out("dw", dw, r.dw);
    b.out("db", db, r.db);
  } else if (name == "silu_mul_fwd") {
    auto x = b.in<float>({3, 600});
    auto y = tensor<float>::empty("y", {3, 300});
    b.run([&] { b.launched(k::silu_mul_fwd(x, y)); });
    b.out("y", y, ref::act_mul_fwd(x, false));
  } else if (name == "gelu_mul_bwd") {
    auto dy = b.in<float>({3, 300}), x = b.in<float>({3, 600});
    auto dx = tensor<float>::empty("dx", {3, 600});
    b.run([&] { b.launched(k::gelu_mul_bwd(dy, x, dx)); });
    b.out("dx", dx, ref::act_mul_bwd(dy, x, true));
  } else if (name == "dropout") {
    auto x = b.in<float>({3001});
    auto o = tensor<float>::empty("o", {3001});
    b.run([&] { b.launched(k::dropout(x, o, 0.3f, 5)); });
    b.out("out", o, ref::dropout(x, 0.3f, 5));
  } else if (name == "cross_entropy_fwd" || name == "cross_entropy_bwd") {
    auto x = b.in<float>({3, 700}, 2.0);
    auto tg = b.targets(3, 700);
    auto loss = tensor<float>::empty("loss", {3}), lse = tensor<float>::empty("lse", {3});
    if (name == "cross_entropy_fwd") {
      b.run([&] { b.launched(k::cross_entropy_fwd(x, tg, loss, lse)); });
      const auto r = ref::cross_entropy_fwd(x, tg);
      b.out("loss", loss, r.loss);
      b.out("lse", lse, r.lse);
    } else {
      auto dloss = b.in<float>({3});
      auto dx = tensor<float>::empty("dx", {3, 700});
      b.run([&] {
        b.launched(k::cross_entropy_fwd(x, tg, loss, lse));
        b.launched(k::cross_entropy_bwd(x, tg, lse, dloss, dx));
      });
      b.out("dx", dx, ref::cross_entropy_bwd(x, tg, dloss));
    }
  } else if (name == "matmul_f16") {
    return matmul<bv::half>(b, false);
  } else if (name == "matmul_bf16") {
    return matmul<bv::bfloat16>(b, false);
  } else if (name == "matmul_bias_gelu_f16") {
    return matmul<bv::half>(b, true);
  } else if (name == "attention_fwd_f16") {
    return attention<bv::half>(b, false, false);
  } else if (name == "attention_fwd_causal_bf16") {
    return attention<bv::bfloat16>(b, true, false);
  } else if (name == "attention_bwd_f16") {
    return attention<bv::half>(b, true, true);
  } else if (name == "conv2d") {
    auto x = b.in<float>({2, 3, 9, 10}), w = b.in<float>({4, 3, 3, 3}), bias = b.in<float>({4});
    auto o = tensor<float>::empty("o", {2, 4, 9, 10});
    b.run([&] { b.launched(k::conv2d(x, w, bias, o, k::conv2d_params{1, 1, 1, 1})); });
    b.out("out", o, ref::conv2d(x, w, bias, 1, 1, 1, 1));
  } else if (name == "col_sum") {
    auto p = b.in<float>({5, 300});
    auto o = tensor<float>::empty("o", {300});
    b.run([&] { b.launched(k::col_sum(p, o)); });
    std::vector<double> r(300, 0.0);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 300; ++j) r[j] += static_cast<double>(p.flat(i * 300 + j));
    b.out("out", o, r);
  } else if (name == "rope_split_f16") {
    const int S = 10, H = 2, D = 64, cols = 5 * D + 3, col0 = D;
    auto src = b.in<bv::half>({S, cols});
    auto dst = tensor<bv::half>::empty("dst", {H, S, D});
    const k::rope_tables tab(S, D);
    b.run([&] { b.launched(k::rope_split<D>(src, col0, dst, tab, 1.0f)); });
    std::vector<double> r(static_cast<size_t>(H * S * D));
    for (int h = 0; h < H; ++h)
      for (int s = 0; s < S; ++s)
        for (int i = 0; i < D / 2; ++i) {
          const double a = s * std::pow(10000.0, -2.0 * i / D);
          const double x1 = static_cast<float>(src.flat(s * cols + col0 + h * D + i));
          const double x2 = static_cast<float>(src.flat(s * cols + col0 + h * D + i + D / 2));
          r[(h * S + s) * D + i] = x1 * std::cos(a) - x2 * std::sin(a);
          r[(h * S + s) * D + i + D / 2] = x2 * std::cos(a) + x1 * std::sin(a);
        }
    b.out("dst", dst, r);
  } else {
    throw std::invalid_argument("library_cpu: no case " + name);
  }
  return b.c;
}

}  // namespace emu_lib
