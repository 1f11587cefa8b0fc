// Every kernel of the library through the AMD lowering in the emulator, for gfx942 and gfx90a, in
// the launch configuration each kernel declares for the target (the launch recipes of
// bv/emu/library.hpp, shared with blockvec run --backend amd-emu), at small
// ragged sizes with poisoned outputs: against the double references and against the interpreter
// on the same inputs (library_cpu.cpp), with no diagnostic from the emulator's checks, and
// launching the kernels, in the configurations, that the interpreter's launchers launched.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "bv/bv.hpp"
#include "bv/emu/library.hpp"
#include "library_cases.hpp"

namespace {
namespace k = bv::kernels;
namespace lib = bv::emu::lib;
using bv::tensor;

// The launches of one case: every result must be clean; counters are summed.
struct runs {
  std::vector<bv::emu::result> all;
  double seconds = 0;
  void add(bv::emu::result r) { all.push_back(std::move(r)); }
  void add(std::vector<bv::emu::result> rs) {
    for (auto& x : rs) all.push_back(std::move(x));
  }
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

// Case `name` in the emulator on the CPU side's inputs, through the shared launch recipes
// (bv/emu/library.hpp); the outputs in the CPU side's order.
template <class T>
std::vector<std::vector<float>> attention(runs& r, const std::vector<emu_lib::array>& in,
                                          bool causal, bool bwd) {
  auto q = input<T>(in[0]), kk = input<T>(in[1]), v = input<T>(in[2]);
  auto o = output<T>(q.shape());
  auto lse = output<float>({q.size(0) * q.size(1), q.size(2)});
  r.add(causal ? lib::attention_fwd<64, true>(q, kk, v, o, lse)
               : lib::attention_fwd<64, false>(q, kk, v, o, lse));
  if (!bwd) return {values(o), values(lse)};
  auto dout = input<T>(in[3]);
  auto dq = output<T>(q.shape()), dk = output<T>(q.shape()), dv = output<T>(q.shape());
  r.add(causal ? lib::attention_bwd<64, true>(q, kk, v, o, lse, dout, dq, dk, dv)
               : lib::attention_bwd<64, false>(q, kk, v, o, lse, dout, dq, dk, dv));
  return {values(dq), values(dk), values(dv)};
}

template <class T>
std::vector<std::vector<float>> matmul(runs& r, const std::vector<emu_lib::array>& in, bool fused) {
  auto a = input<T>(in[0]), b = input<T>(in[1]);
  if (fused) {
    auto bias = input<T>(in[2]);
    auto c = output<T>({a.size(0), b.size(1)});
    r.add(lib::matmul_bias_act<k::epilogue::gelu_tanh>(a, b, bias, c));
    return {values(c)};
  }
  auto c = output<float>({a.size(0), b.size(1)});
  r.add(lib::matmul(a, b, c));
  return {values(c)};
}

std::vector<std::vector<float>> run_emu(runs& r, const std::string& name,
                                        const std::vector<emu_lib::array>& in) {
  if (name == "add") {
    auto x = input<float>(in[0]), y = input<float>(in[1]);
    auto o = output<float>(x.shape());
    r.add(lib::add(x, y, o));
    return {values(o)};
  }
  if (name == "copy") {
    auto x = input<float>(in[0]);
    auto o = output<float>(x.shape());
    r.add(lib::copy(x, o));
    return {values(o)};
  }
  if (name == "softmax" || name == "softmax_looped") {
    auto x = input<float>(in[0]);
    auto o = output<float>(x.shape());
    r.add(lib::softmax(x, o));
    return {values(o)};
  }
  if (name == "rmsnorm_fwd") {
    auto x = input<float>(in[0]), w = input<float>(in[1]);
    auto y = output<float>(x.shape());
    auto rstd = output<float>({x.size(0)});
    r.add(lib::rmsnorm_fwd(x, w, y, rstd));
    return {values(y), values(rstd)};
  }
  if (name.rfind("rmsnorm_bwd", 0) == 0) {
    auto x = input<float>(in[0]), w = input<float>(in[1]), dy = input<float>(in[2]);
    auto y = output<float>(x.shape());
    auto rstd = output<float>({x.size(0)});
    r.add(lib::rmsnorm_fwd(x, w, y, rstd));
    auto dx = output<float>(x.shape()), dw = output<float>({x.size(1)});
    r.add(lib::rmsnorm_bwd(dy, x, w, rstd, dx, dw));
    return {values(dx), values(dw)};
  }
  if (name == "layernorm_fwd") {
    auto x = input<float>(in[0]), w = input<float>(in[1]), b = input<float>(in[2]);
    auto y = output<float>(x.shape());
    auto mean = output<float>({x.size(0)}), rstd = output<float>({x.size(0)});
    r.add(lib::layernorm_fwd(x, w, b, y, mean, rstd));
    return {values(y), values(mean), values(rstd)};
  }
  if (name.rfind("layernorm_bwd", 0) == 0) {
    auto x = input<float>(in[0]), w = input<float>(in[1]), b = input<float>(in[2]),
         dy = input<float>(in[3]);
    auto y = output<float>(x.shape());
    auto mean = output<float>({x.size(0)}), rstd = output<float>({x.size(0)});
    r.add(lib::layernorm_fwd(x, w, b, y, mean, rstd));
    auto dx = output<float>(x.shape()), dw = output<float>({x.size(1)}),
         db = output<float>({x.size(1)});
    r.add(lib::layernorm_bwd(
        dy, x, w, mean, rstd, dx, dw, db,
        name.rfind("layernorm_bwd_lock", 0) == 0 ? k::reduction::lock : k::reduction::two_stage));
    return {values(dx), values(dw), values(db)};
  }
  if (name == "silu_mul_fwd") {
    auto x = input<float>(in[0]);
    auto y = output<float>({x.size(0), x.size(1) / 2});
    r.add(lib::act_mul_fwd<k::gate_act::silu>(x, y));
    return {values(y)};
  }
  if (name == "gelu_mul_bwd") {
    auto dy = input<float>(in[0]), x = input<float>(in[1]);
    auto dx = output<float>(x.shape());
    r.add(lib::act_mul_bwd<k::gate_act::gelu_tanh>(dy, x, dx));
    return {values(dx)};
  }
  if (name == "dropout") {
    auto x = input<float>(in[0]);
    auto o = output<float>(x.shape());
    r.add(lib::dropout(x, o, 0.3f, 5));
    return {values(o)};
  }
  if (name == "cross_entropy_fwd" || name == "cross_entropy_bwd") {
    auto x = input<float>(in[0]);
    auto tg = input_i(in[1]);
    auto loss = output<float>({x.size(0)}), lse = output<float>({x.size(0)});
    r.add(lib::cross_entropy_fwd(x, tg, loss, lse));
    if (name == "cross_entropy_fwd") return {values(loss), values(lse)};
    auto dloss = input<float>(in[2]);
    auto dx = output<float>(x.shape());
    r.add(lib::cross_entropy_bwd(x, tg, lse, dloss, dx));
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
    // stride 1, padding 1, 3x3: the output is as large as the input
    auto o = output<float>({x.size(0), w.size(0), x.size(2), x.size(3)});
    r.add(lib::conv2d(x, w, bias, o, 1, 1, 1, 1));
    return {values(o)};
  }
  if (name == "col_sum") {
    auto p = input<float>(in[0]);
    auto o = output<float>({p.size(1)});
    r.add(lib::col_sum(p, o));
    return {values(o)};
  }
  if (name == "rope_split_f16") {
    constexpr int D = 64;
    const int S = 10, H = 2, col0 = D;
    auto src = input<bv::half>(in[0]);
    auto dst = output<bv::half>({H, S, D});
    // The host tables of rope_tables, computed the same way.
    auto cs = tensor<float>::empty("cos", {S, D / 2}), sn = tensor<float>::empty("sin", {S, D / 2});
    for (int pos = 0; pos < S; ++pos)
      for (int i = 0; i < D / 2; ++i) {
        const double a = static_cast<double>(pos) * std::pow(10000.0, -2.0 * i / D);
        cs.data()[pos * D / 2 + i] = static_cast<float>(std::cos(a));
        sn.data()[pos * D / 2 + i] = static_cast<float>(std::sin(a));
      }
    r.add(lib::rope_split<D>(src, col0, dst, cs, sn, 1.0f));
    return {values(dst)};
  }
  FAIL("no emulated case " << name);
  return {};
}

// Kernel names with the 16-bit element types spelled one way: the interpreter's are Eigen's,
// the emulated lowering's _Float16 and bv::bfloat16.
std::string same_types(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"Eigen::bfloat16", "bf16"},
                                 {"bv::bfloat16", "bf16"},
                                 {"Eigen::half", "f16"},
                                 {"_Float16", "f16"}})
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  return s;
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
      // The recipes launch what kernels/' launchers launch for this target: the same kernels in
      // the same configurations, in the same order.
      std::string launched, want;
      for (const auto& x : r.all) launched += emu_lib::launch_line(x.kernel, x.programs) + "\n";
      for (const auto& x : cpu.kernels) {
        CHECK(x.find("_kernel<") != std::string::npos);  // a kernel's name, with its arguments
        want += x + "\n";
      }
      CHECK(!cpu.kernels.empty());
      CHECK(same_types(launched) == same_types(want));
      bv::emu::counters sum;
      for (const auto& x : r.all) {
        for (const auto& d : x.diagnostics) CHECK_MESSAGE(false, d.text());
        CHECK(x.ok());
        sum += x.counts;
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
