// Every kernel of the library through the AMD lowering in the emulator, for gfx942 and gfx90a, in
// the launch configuration each kernel declares for the target (its launch_config table, picked
// by with_config as the GPU launchers in gpu_backend/bv/gpu/kernels_gpu_lib.hpp do), at small
// ragged sizes with poisoned outputs: against the double references and against the interpreter
// on the same inputs (library_cpu.cpp), with no diagnostic from the emulator's checks.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bv/bv.hpp"
#include "bv/emu/library.hpp"
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
#include "bv/kernels/rmsnorm.hpp"
#include "bv/kernels/rope.hpp"
#include "bv/kernels/softmax.hpp"
#include "library_cases.hpp"

namespace {
namespace k = bv::kernels;
using bv::grid;
using bv::launch_config;
using bv::tensor;
using bv::with_config;

// The launches of one case: every result must be clean; counters are summed.
struct runs {
  std::vector<bv::emu::result> all;
  double seconds = 0;
  void add(bv::emu::result r) { all.push_back(std::move(r)); }
};

template <class T>
tensor<T> input(const emu_lib::array& a) {
  auto t = tensor<T>::empty("in", a.shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<T>(a.f[i]);
  return t;
}
tensor<int32_t> input_i(const emu_lib::array& a) {
  auto t = tensor<int32_t>::empty("in", a.shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = a.i[i];
  return t;
}
template <class T>
tensor<T> output(std::vector<int64_t> shape) {
  return tensor<T>::empty("out", std::move(shape));  // 0xff bytes: NaN until written
}
template <class T>
std::vector<float> values(const tensor<T>& t) {
  std::vector<float> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<float>(t.data()[i]));
  return v;
}

// ---- Launchers: the GPU launchers' recipes (kernels_gpu_lib.hpp) on emulated tensors. ----------
template <class T>
bv::emu::result col_sum(const tensor<float>& partial, tensor<T>& out) {
  const int g = static_cast<int>(partial.size(0)), n = static_cast<int>(partial.size(1));
  return with_config<k::col_sum_configs>(n, "col_sum", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return bv::launch<k::col_sum_kernel<T, cf.bm, cf.bn, cf.waves>>(grid(bv::cdiv(n, cf.bn)),
                                                                    partial, out, g, n);
  });
}

template <class T>
void rmsnorm(runs& r, const tensor<T>& x, const tensor<T>& w, tensor<T>& y, tensor<float>& rstd) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  r.add(with_config<k::rmsnorm_configs>(n, "rmsnorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return bv::launch<k::rmsnorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, w, y, rstd, n, n, n,
                                                                    1e-6f);
  }));
}

template <class T>
void layernorm(runs& r, const tensor<T>& x, const tensor<T>& w, const tensor<T>& b, tensor<T>& y,
               tensor<float>& mean, tensor<float>& rstd) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  r.add(with_config<k::layernorm_configs>(n, "layernorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return bv::launch<k::layernorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, w, b, y, mean,
                                                                      rstd, n, n, n, 1e-5f);
  }));
}

template <class T, bool C>
void attention_fwd(runs& r, const tensor<T>& q, const tensor<T>& kk, const tensor<T>& v,
                   tensor<T>& o, tensor<float>& lse) {
  constexpr int D = 64;
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  r.add(bv::with_config_for<k::attention_fwd_configs, D>("attention_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return bv::launch<k::attention_fwd_kernel<T, D, cf.bm, cf.bn, C, cf.waves>>(
        grid(bv::cdiv(s, cf.bm), bh), q, kk, v, o, lse, s, scale);
  }));
}

template <class T, bool C>
void attention_bwd(runs& r, const tensor<T>& q, const tensor<T>& kk, const tensor<T>& v,
                   const tensor<T>& o, const tensor<float>& lse, const tensor<T>& dout,
                   tensor<T>& dq, tensor<T>& dk, tensor<T>& dv) {
  constexpr int D = 64;
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  auto delta = output<float>({bh, s});
  bv::with_config_for<k::attention_bwd_configs, D>("attention_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    r.add(bv::launch<k::attention_bwd_preprocess_kernel<T, D, cf.bm, cf.waves>>(
        grid(bv::cdiv(s, cf.bm), bh), o, dout, delta, s));
    r.add(bv::launch<k::attention_bwd_dkdv_kernel<T, D, cf.bm, cf.bn, C, cf.waves>>(
        grid(bv::cdiv(s, cf.bn), bh), q, kk, v, dout, lse, delta, dk, dv, s, scale));
    r.add(bv::launch<k::attention_bwd_dq_kernel<T, D, cf.bm, cf.bn, C, cf.waves>>(
        grid(bv::cdiv(s, cf.bm), bh), q, kk, v, dout, lse, delta, dq, s, scale));
    return 0;
  });
}

template <class T>
std::vector<std::vector<float>> attention(runs& r, const std::vector<emu_lib::array>& in,
                                          bool causal, bool bwd) {
  auto q = input<T>(in[0]), kk = input<T>(in[1]), v = input<T>(in[2]);
  auto o = output<T>(q.shape());
  auto lse = output<float>({q.size(0) * q.size(1), q.size(2)});
  if (causal)
    attention_fwd<T, true>(r, q, kk, v, o, lse);
  else
    attention_fwd<T, false>(r, q, kk, v, o, lse);
  if (!bwd) return {values(o), values(lse)};
  auto dout = input<T>(in[3]);
  auto dq = output<T>(q.shape()), dk = output<T>(q.shape()), dv = output<T>(q.shape());
  if (causal)
    attention_bwd<T, true>(r, q, kk, v, o, lse, dout, dq, dk, dv);
  else
    attention_bwd<T, false>(r, q, kk, v, o, lse, dout, dq, dk, dv);
  return {values(dq), values(dk), values(dv)};
}

template <class T>
std::vector<std::vector<float>> matmul(runs& r, const std::vector<emu_lib::array>& in, bool fused) {
  auto a = input<T>(in[0]), b = input<T>(in[1]);
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1)),
            N = static_cast<int>(b.size(1));
  if (fused) {
    auto bias = input<T>(in[2]);
    auto c = output<T>({M, N});
    r.add(with_config<k::matmul_bias_act_configs>(M, "matmul_bias_act", [&](auto cfg) {
      constexpr launch_config cf = decltype(cfg)::value;
      return bv::launch<k::matmul_bias_act_kernel<T, T, k::epilogue::gelu_tanh, cf.bm, cf.bn, cf.bk,
                                                  cf.group_m, cf.waves>>(
          grid(bv::cdiv(M, cf.bm) * bv::cdiv(N, cf.bn)), a, b, bias, c, M, N, K, K, 1, N, 1, N, 1);
    }));
    return {values(c)};
  }
  auto c = output<float>({M, N});
  r.add(bv::with_config_for<k::matmul_configs, sizeof(T)>("matmul", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    return bv::launch<k::matmul_kernel<T, float, cf.bm, cf.bn, cf.bk, cf.group_m, cf.waves>>(
        grid(bv::cdiv(M, cf.bm) * bv::cdiv(N, cf.bn)), a, b, c, M, N, K, K, 1, N, 1, N, 1);
  }));
  return {values(c)};
}

// Case `name` in the emulator on the CPU side's inputs; the outputs in the CPU side's order.
std::vector<std::vector<float>> run_emu(runs& r, const std::string& name,
                                        const std::vector<emu_lib::array>& in) {
  if (name == "add") {
    auto x = input<float>(in[0]), y = input<float>(in[1]);
    auto o = output<float>(x.shape());
    r.add(bv::emu::lib::add(x, y, o));
    return {values(o)};
  }
  if (name == "copy") {
    auto x = input<float>(in[0]);
    auto o = output<float>(x.shape());
    r.add(bv::emu::lib::copy(x, o));
    return {values(o)};
  }
  if (name == "softmax" || name == "softmax_looped") {
    auto x = input<float>(in[0]);
    auto o = output<float>(x.shape());
    const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
    r.add(with_config<k::softmax_configs>(cols, "softmax", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      if constexpr (cf.variant == 1)
        return bv::launch<k::softmax_looped_kernel<float, cf.block, cf.waves>>(grid(rows), x, o,
                                                                               cols, cols, cols);
      else
        return bv::launch<k::softmax_kernel<float, cf.block, cf.waves>>(grid(rows), x, o, cols,
                                                                        cols, cols);
    }));
    return {values(o)};
  }
  if (name == "rmsnorm_fwd") {
    auto x = input<float>(in[0]), w = input<float>(in[1]);
    auto y = output<float>(x.shape());
    auto rstd = output<float>({x.size(0)});
    rmsnorm(r, x, w, y, rstd);
    return {values(y), values(rstd)};
  }
  if (name == "rmsnorm_bwd") {
    auto x = input<float>(in[0]), w = input<float>(in[1]), dy = input<float>(in[2]);
    const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
    auto y = output<float>(x.shape());
    auto rstd = output<float>({m});
    rmsnorm(r, x, w, y, rstd);
    const int g = k::norm_bwd_programs(bv::gpu::device_target(), m, n);
    auto partial = output<float>({g, n});
    auto dx = output<float>(x.shape()), dw = output<float>({n});
    r.add(with_config<k::rmsnorm_configs>(n, "rmsnorm_bwd", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      return bv::launch<k::rmsnorm_bwd_kernel<float, cf.block, cf.waves>>(
          grid(g), dy, x, w, rstd, dx, partial, n, n, n, m, n);
    }));
    r.add(col_sum(partial, dw));
    return {values(dx), values(dw)};
  }
  if (name == "layernorm_fwd") {
    auto x = input<float>(in[0]), w = input<float>(in[1]), b = input<float>(in[2]);
    auto y = output<float>(x.shape());
    auto mean = output<float>({x.size(0)}), rstd = output<float>({x.size(0)});
    layernorm(r, x, w, b, y, mean, rstd);
    return {values(y), values(mean), values(rstd)};
  }
  if (name == "layernorm_bwd_lock" || name == "layernorm_bwd_twostage") {
    const bool lock = name == "layernorm_bwd_lock";
    auto x = input<float>(in[0]), w = input<float>(in[1]), b = input<float>(in[2]),
         dy = input<float>(in[3]);
    const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
    auto y = output<float>(x.shape());
    auto mean = output<float>({m}), rstd = output<float>({m});
    layernorm(r, x, w, b, y, mean, rstd);
    const int g = k::layernorm_bwd_partials(
        bv::gpu::device_target(), lock ? k::reduction::lock : k::reduction::two_stage, m, n);
    auto dwp = output<float>({g, n}), dbp = output<float>({g, n});
    auto locks = tensor<int32_t>::zeros("locks", {2 * g});
    auto dx = output<float>(x.shape()), dw = output<float>({n}), db = output<float>({n});
    r.add(with_config<k::layernorm_configs>(n, "layernorm_bwd", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      if (lock)
        return bv::launch<k::layernorm_bwd_lock_kernel<float, cf.block, cf.waves>>(
            grid(m), dy, x, w, mean, rstd, dx, dwp, dbp, locks, n, n, n, n, g);
      return bv::launch<k::layernorm_bwd_twostage_kernel<float, cf.block, cf.waves>>(
          grid(g), dy, x, w, mean, rstd, dx, dwp, dbp, n, n, n, m, n);
    }));
    r.add(col_sum(dwp, dw));
    r.add(col_sum(dbp, db));
    return {values(dx), values(dw), values(db)};
  }
  if (name == "silu_mul_fwd") {
    auto x = input<float>(in[0]);
    const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1)) / 2;
    auto y = output<float>({m, n});
    r.add(with_config<k::act_mul_configs>(n, "act_mul_fwd", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      return bv::launch<k::act_mul_fwd_kernel<float, k::gate_act::silu, cf.block, cf.waves>>(
          grid(m, bv::cdiv(n, cf.block)), x, y, 2 * n, n, n);
    }));
    return {values(y)};
  }
  if (name == "gelu_mul_bwd") {
    auto dy = input<float>(in[0]), x = input<float>(in[1]);
    const int m = static_cast<int>(dy.size(0)), n = static_cast<int>(dy.size(1));
    auto dx = output<float>(x.shape());
    r.add(with_config<k::act_mul_configs>(n, "act_mul_bwd", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      return bv::launch<k::act_mul_bwd_kernel<float, k::gate_act::gelu_tanh, cf.block, cf.waves>>(
          grid(m, bv::cdiv(n, cf.block)), dy, x, dx, n, 2 * n, 2 * n, n);
    }));
    return {values(dx)};
  }
  if (name == "dropout") {
    auto x = input<float>(in[0]);
    auto o = output<float>(x.shape());
    const int n = static_cast<int>(x.numel());
    r.add(with_config<k::dropout_configs>(n, "dropout", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      return bv::launch<k::dropout_kernel<float, cf.block, cf.waves>>(grid(bv::cdiv(n, cf.block)),
                                                                      x, o, n, 0.3f, 5);
    }));
    return {values(o)};
  }
  if (name == "cross_entropy_fwd" || name == "cross_entropy_bwd") {
    auto x = input<float>(in[0]);
    auto tg = input_i(in[1]);
    const int m = static_cast<int>(x.size(0)), v = static_cast<int>(x.size(1));
    auto loss = output<float>({m}), lse = output<float>({m});
    r.add(with_config<k::cross_entropy_configs>(v, "cross_entropy_fwd", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      return bv::launch<k::cross_entropy_fwd_kernel<float, cf.block, cf.waves>>(grid(m), x, tg,
                                                                                loss, lse, v, v);
    }));
    if (name == "cross_entropy_fwd") return {values(loss), values(lse)};
    auto dloss = input<float>(in[2]);
    auto dx = output<float>(x.shape());
    r.add(with_config<k::cross_entropy_configs>(v, "cross_entropy_bwd", [&](auto c) {
      constexpr launch_config cf = decltype(c)::value;
      return bv::launch<k::cross_entropy_bwd_kernel<float, cf.block, cf.waves>>(grid(m), x, tg, lse,
                                                                                dloss, dx, v, v, v);
    }));
    return {values(dx)};
  }
  if (name == "matmul_f16") return matmul<bv::half>(r, in, false);
  if (name == "matmul_bf16") return matmul<bv::bfloat16>(r, in, false);
  if (name == "matmul_bias_gelu_f16") return matmul<bv::half>(r, in, true);
  if (name == "attention_fwd_f16") return attention<bv::half>(r, in, false, false);
  if (name == "attention_fwd_causal_bf16") return attention<bv::bfloat16>(r, in, true, false);
  if (name == "attention_bwd_f16") return attention<bv::half>(r, in, true, true);
  if (name == "conv2d") {
    auto x = input<float>(in[0]), w = input<float>(in[1]), bias = input<float>(in[2]);
    const int n = static_cast<int>(x.size(0)), c = static_cast<int>(x.size(1)),
              h = static_cast<int>(x.size(2)), wd = static_cast<int>(x.size(3));
    const int oc = static_cast<int>(w.size(0)), kh = static_cast<int>(w.size(2)),
              kw = static_cast<int>(w.size(3));
    const int oh = h, ow = wd;  // stride 1, padding 1, 3x3
    auto o = output<float>({n, oc, oh, ow});
    r.add(with_config<k::conv2d_configs>(oh * ow, "conv2d", [&](auto cfg) {
      constexpr launch_config cf = decltype(cfg)::value;
      return bv::launch<k::conv2d_kernel<float, cf.bm, cf.bn, cf.bk, cf.waves>>(
          grid(bv::cdiv(oh * ow, cf.bn), bv::cdiv(oc, cf.bm), n), x, w, bias, o, c, h, wd, oc, kh,
          kw, oh, ow, 1, 1, 1, 1);
    }));
    return {values(o)};
  }
  if (name == "col_sum") {
    auto p = input<float>(in[0]);
    auto o = output<float>({p.size(1)});
    r.add(col_sum(p, o));
    return {values(o)};
  }
  if (name == "rope_split_f16") {
    constexpr int D = 64;
    const int S = 10, H = 2, col0 = D;
    auto src = input<bv::half>(in[0]);
    const int cols = static_cast<int>(src.size(1));
    auto dst = output<bv::half>({H, S, D});
    // The host tables of rope_tables, computed the same way.
    auto cs = tensor<float>::empty("cos", {S, D / 2}), sn = tensor<float>::empty("sin", {S, D / 2});
    for (int pos = 0; pos < S; ++pos)
      for (int i = 0; i < D / 2; ++i) {
        const double a = static_cast<double>(pos) * std::pow(10000.0, -2.0 * i / D);
        cs.data()[pos * D / 2 + i] = static_cast<float>(std::cos(a));
        sn.data()[pos * D / 2 + i] = static_cast<float>(std::sin(a));
      }
    r.add(with_config<k::rope_configs>(D, "rope_split", [&](auto c) {
      return bv::launch<k::rope_split_kernel<bv::half, D, decltype(c)::value.waves>>(
          grid(S, H), src, dst, cs, sn, S, cols, col0, 1.0f);
    }));
    return {values(dst)};
  }
  FAIL("no emulated case " << name);
  return {};
}

// Tolerances against the double reference and against the interpreter, by element type.
double tolerance(const std::string& name) {
  if (name.find("bf16") != std::string::npos) return 2e-2;
  if (name.find("f16") != std::string::npos) return 4e-3;
  return 2e-5;
}

}  // namespace

TEST_CASE(
    "emulator: every library kernel on gfx942 and gfx90a, against references and the "
    "interpreter") {
  const bool report = std::getenv("BV_EMU_TIMES") != nullptr;
  for (bv::target t : {bv::target::gfx942, bv::target::gfx90a}) {
    bv::emu::set_target(t);
    for (const auto& name : emu_lib::case_names()) {
      CAPTURE(bv::target_name(t));
      CAPTURE(name);
      const emu_lib::cpu_case cpu = emu_lib::run_cpu(name, t, 17);
      runs r;
      const auto t0 = std::chrono::steady_clock::now();
      const auto outs = run_emu(r, name, cpu.inputs);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      REQUIRE(outs.size() == cpu.outputs.size());
      bv::emu::counters sum;
      for (const auto& x : r.all) {
        for (const auto& d : x.diagnostics) CHECK_MESSAGE(false, d.text());
        CHECK(x.ok());
        sum.mfma += x.counts.mfma;
        sum.wave_instructions += x.counts.wave_instructions;
        sum.global_read_bytes += x.counts.global_read_bytes;
      }
      // The counters saw the launches: every kernel reads its inputs from global memory.
      CHECK(sum.global_read_bytes > 0);
      if (name.rfind("matmul", 0) == 0 || name.rfind("attention", 0) == 0) CHECK(sum.mfma > 0);
      const double tol = tolerance(name);
      for (size_t o = 0; o < outs.size(); ++o) {
        CAPTURE(cpu.outputs[o]);
        REQUIRE(outs[o].size() == cpu.ref[o].size());
        double worst_ref = 0, worst_interp = 0;
        for (size_t i = 0; i < outs[o].size(); ++i) {
          const double e = outs[o][i], rf = cpu.ref[o][i], it = cpu.interp[o][i];
          const double er = std::fabs(e - rf) / (1 + std::fabs(rf));
          const double ei = std::fabs(e - it) / (1 + std::fabs(it));
          worst_ref = std::isnan(er) ? INFINITY : std::fmax(worst_ref, er);
          worst_interp = std::isnan(ei) ? INFINITY : std::fmax(worst_interp, ei);
        }
        CHECK(worst_ref < tol);
        CHECK(worst_interp < tol);
      }
      if (report)
        std::printf("%-8s %-28s emulator %8.4f s  interpreter (checks off) %8.4f s  ratio %6.1f\n",
                    bv::target_name(t), name.c_str(), r.seconds, cpu.interp_seconds,
                    r.seconds / std::max(cpu.interp_seconds, 1e-9));
    }
  }
  bv::emu::set_target(bv::target::gfx942);
}
