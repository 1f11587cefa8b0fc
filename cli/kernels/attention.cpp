// attention, attention_causal, attention_f16, attention_bwd and attention_bwd_f16: the kernels
// (bv/kernels/attention.hpp), their references (bv/kernels/ref/attention.hpp) and one registration
// each; Eigen's unfused computation times bench's native column.
#include "bv/kernels/attention.hpp"

#include <cmath>

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/attention.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

sizes shape4(const sizes& s) { return {s[0], s[1], s[2], s[3]}; }
template <class T>
int dim(const tensor<T>& t, int d) {
  return static_cast<int>(t.size(d));
}

// The GPU build instantiates attention for f16 at head dims 64 and 128: the GPU run takes the
// entry's inputs as f16 (the values an f16 draw from the same seed gives), and the interpreter
// (--backend both) runs the f16 kernel on the same ones.
tensor<half> as_f16(const tensor<float>& t) {
  auto h = tensor<half>::zeros(t.name(), t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) h.data()[i] = static_cast<half>(t.data()[i]);
  return h;
}

// q, k, v [B, H, S, D] and what the forward writes.
struct fwd_io {
  tensor<float> q, k, v, o, lse;
};

fwd_io make_fwd(const sizes& s, uint64_t seed) {
  return {tensor<float>::randn("q", shape4(s), seed),
          tensor<float>::randn("k", shape4(s), seed + 1),
          tensor<float>::randn("v", shape4(s), seed + 2), output<float>("o", shape4(s)),
          output<float>("lse", {s[0] * s[1], s[2]})};
}

// Each row of the scores p (n x n) to its softmax in place; causal: row i over keys 0..i, the rest
// zero. The natives' one softmax.
void softmax_rows(fmat& p, bool causal) {
  const int64_t n = p.rows();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = causal ? i + 1 : n;
    auto row = p.row(i).head(len).array();
    row = (row - row.maxCoeff()).exp();
    row /= row.sum();
    if (len < n) p.row(i).tail(n - len).setZero();
  }
}

// Native: per head, S = Q K^T * scale as one GEMM, row softmax, O = P V: the unfused computation
// at its best on one core.
std::function<void()> native_fwd(fwd_io& a, bool causal) {
  const int64_t heads = a.q.size(0) * a.q.size(1), n = a.q.size(2), d = a.q.size(3);
  return [&a, causal, heads, n, d, sc = fmat(n, n)]() mutable {
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    for (int64_t h = 0; h < heads; ++h) {
      fmap Q(a.q.data() + h * n * d, n, d), K(a.k.data() + h * n * d, n, d),
          V(a.v.data() + h * n * d, n, d), O(a.o.data() + h * n * d, n, d);
      sc.noalias() = (Q * K.transpose()) * scale;
      softmax_rows(sc, causal);
      O.noalias() = sc * V;
    }
  };
}

registrar reg_fwd(bool causal, const char* name, const char* description, sizes default_size,
                  sizes bench_size) {
  return registrar{
      kernel<fwd_io, kernels::ref::attention_result>{
          .name = name,
          .description = description,
          .size_help = "B,H,S,D (D = 64 or 128)",
          .default_size = std::move(default_size),
          .bench_size = std::move(bench_size),
          .make = make_fwd,
          .launch =
              [causal](fwd_io& a) {
                return kernels::attention_fwd(a.q, a.k, a.v, a.o, a.lse, causal);
              },
          .reference =
              [causal](const fwd_io& a) {
                return kernels::ref::attention_fwd(a.q, a.k, a.v, causal);
              },
          .compare =
              [](checker& c, const fwd_io& a, const kernels::ref::attention_result& r) {
                c.expect(a.o, r.o, 1e-5);
                c.expect(a.lse, r.lse, 1e-5);
              },
          .native = [causal](fwd_io& a) { return native_fwd(a, causal); },
      },
      {
          .gpu =
              [causal](fwd_io& a, bool cpu) {
                auto q = as_f16(a.q), k = as_f16(a.k), v = as_f16(a.v);
                auto o = output<half>("o", a.o.shape());
                std::vector<float> lse(static_cast<size_t>(a.lse.numel()));
                const double ms = gpu::attention_fwd(gpu::dtype_id::f16, q.data(), k.data(),
                                                     v.data(), o.data(), lse.data(), dim(a.q, 0),
                                                     dim(a.q, 1), dim(a.q, 2), dim(a.q, 3), causal);
                return finish_gpu(o, ms, kernels::ref::attention_fwd(q, k, v, causal).o, 1e-2, cpu,
                                  2e-2, [&](tensor<half>& out) {
                                    auto l = tensor<float>::empty("lse", a.lse.shape());
                                    return kernels::attention_fwd(q, k, v, out, l, causal);
                                  });
              },
          .amd_emu =
              [name, causal](fwd_io& a, const kernels::ref::attention_result& ref, target t) {
                return emu_compare(name, t)
                    .in(a.q)
                    .in(a.k)
                    .in(a.v)
                    .cpu([&] { return kernels::attention_fwd(a.q, a.k, a.v, a.o, a.lse, causal); })
                    .out(0, a.o, ref.o, 1e-5, 1e-4)
                    .out(1, a.lse, ref.lse, 1e-5, 1e-4)
                    .done();
              },
      }};
}

registrar r_fwd =
    reg_fwd(false, "attention", "flash attention forward, online softmax, f32, non-causal",
            {1, 2, 200, 64}, {1, 2, 256, 64});
registrar r_causal =
    reg_fwd(true, "attention_causal", "flash attention forward, causal, f32, head dim 128",
            {1, 2, 150, 128}, {1, 2, 256, 128});

// attention_f16: the causal forward in 16-bit, as the GPUs run it (f16 q, k, v and o; scores,
// softmax, lse and accumulation in fp32), on every backend from the same f16 inputs: on AMD its
// tiles are the 16-bit rows of attention_fwd_configs, not the f32 entries' ones.
struct fwd16_io {
  tensor<half> q, k, v, o;
  tensor<float> lse;
};

fmat to_fmat(const tensor<half>& t, int64_t h, int64_t n, int64_t d) {
  fmat m(n, d);
  for (int64_t i = 0; i < n * d; ++i) m(i / d, i % d) = static_cast<float>(t.data()[h * n * d + i]);
  return m;
}

registrar r_f16{
    kernel<fwd16_io, kernels::ref::attention_result>{
        .name = "attention_f16",
        .description = "flash attention forward, causal, f16 inputs and output, fp32 softmax and "
                       "accumulation",
        .size_help = "B,H,S,D (D = 64 or 128)",
        .default_size = {1, 2, 150, 128},
        .bench_size = {1, 2, 256, 128},
        .make =
            [](const sizes& s, uint64_t seed) {
              return fwd16_io{tensor<half>::randn("q", shape4(s), seed),
                              tensor<half>::randn("k", shape4(s), seed + 1),
                              tensor<half>::randn("v", shape4(s), seed + 2),
                              output<half>("o", shape4(s)),
                              output<float>("lse", {s[0] * s[1], s[2]})};
            },
        .launch =
            [](fwd16_io& a) { return kernels::attention_fwd(a.q, a.k, a.v, a.o, a.lse, true); },
        .reference =
            [](const fwd16_io& a) { return kernels::ref::attention_fwd(a.q, a.k, a.v, true); },
        .compare =
            [](checker& c, const fwd16_io& a, const kernels::ref::attention_result& r) {
              c.expect(a.o, r.o, 3e-3);
              c.expect(a.lse, r.lse, 1e-5);
            },
        .note = "f16 inputs and output, fp32 softmax and accumulation",
        // Native: attention_causal's unfused computation in f32 on the f16 values, o rounded to
        // f16.
        .native = [](fwd16_io& a) -> std::function<void()> {
          const int64_t heads = a.q.size(0) * a.q.size(1), n = a.q.size(2), d = a.q.size(3);
          std::vector<fmat> q, k, v;
          for (int64_t h = 0; h < heads; ++h) {
            q.push_back(to_fmat(a.q, h, n, d));
            k.push_back(to_fmat(a.k, h, n, d));
            v.push_back(to_fmat(a.v, h, n, d));
          }
          return [&a, heads, n, d, q, k, v, sc = fmat(n, n), o = fmat(n, d)]() mutable {
            const float scale = 1.0f / std::sqrt(static_cast<float>(d));
            for (int64_t h = 0; h < heads; ++h) {
              sc.noalias() = (q[h] * k[h].transpose()) * scale;
              softmax_rows(sc, true);
              o.noalias() = sc * v[h];
              for (int64_t i = 0; i < n * d; ++i)
                a.o.data()[h * n * d + i] = static_cast<half>(o(i / d, i % d));
            }
          };
        },
    },
    {
        .gpu =
            [](fwd16_io& a, bool cpu) {
              std::vector<float> lse(static_cast<size_t>(a.lse.numel()));
              const double ms = gpu::attention_fwd(gpu::dtype_id::f16, a.q.data(), a.k.data(),
                                                   a.v.data(), a.o.data(), lse.data(), dim(a.q, 0),
                                                   dim(a.q, 1), dim(a.q, 2), dim(a.q, 3), true);
              return finish_gpu(a.o, ms, kernels::ref::attention_fwd(a.q, a.k, a.v, true).o, 1e-2,
                                cpu, 2e-2, [&](tensor<half>& out) {
                                  auto l = tensor<float>::empty("lse", a.lse.shape());
                                  return kernels::attention_fwd(a.q, a.k, a.v, out, l, true);
                                });
            },
        .amd_emu =
            [](fwd16_io& a, const kernels::ref::attention_result& ref, target t) {
              return emu_compare("attention_f16", t)
                  .in(a.q)
                  .in(a.k)
                  .in(a.v)
                  .cpu([&] { return kernels::attention_fwd(a.q, a.k, a.v, a.o, a.lse, true); })
                  .out(0, a.o, ref.o, 3e-3, 8e-3)
                  .out(1, a.lse, ref.lse, 1e-5, 1e-3)
                  .done("f16 inputs and output, fp32 softmax and accumulation");
            },
    }};

// The backward's inputs in T: q, k, v, dout, and o and lse as the forward (on the interpreter)
// left them; its outputs dq, dk, dv. The f32 and the 16-bit entries share what follows.
template <class T>
struct bwd_io_of {
  tensor<T> q, k, v, dout, o;
  tensor<float> lse;
  tensor<T> dq, dk, dv;
};
using bwd_io = bwd_io_of<float>;

template <class T>
bwd_io_of<T> make_bwd(const sizes& s, uint64_t seed) {
  bwd_io_of<T> a{tensor<T>::randn("q", shape4(s), seed),
                 tensor<T>::randn("k", shape4(s), seed + 1),
                 tensor<T>::randn("v", shape4(s), seed + 2),
                 tensor<T>::randn("dout", shape4(s), seed + 3),
                 tensor<T>::empty("o", shape4(s)),
                 tensor<float>::empty("lse", {s[0] * s[1], s[2]}),
                 output<T>("dq", shape4(s)),
                 output<T>("dk", shape4(s)),
                 output<T>("dv", shape4(s))};
  kernels::attention_fwd(a.q, a.k, a.v, a.o, a.lse, true);
  return a;
}
template <class T>
std::vector<launch_result> launch_bwd(bwd_io_of<T>& a) {
  return kernels::attention_bwd(a.q, a.k, a.v, a.o, a.lse, a.dout, a.dq, a.dk, a.dv, true);
}
template <class T>
kernels::ref::attention_grads reference_bwd(const bwd_io_of<T>& a) {
  return kernels::ref::attention_bwd(a.q, a.k, a.v, a.dout, true);
}
// dq, dk and dv each within tol (relative L2) of the reference.
template <class T>
void compare_bwd(checker& c, const bwd_io_of<T>& a, const kernels::ref::attention_grads& r,
                 double tol) {
  c.expect(a.dq, r.dq, tol);
  c.expect(a.dk, r.dk, tol);
  c.expect(a.dv, r.dv, tol);
}
// The emulator's runner `runner` on the entry's inputs, each output within tol of the reference
// and within diff_tol of the interpreter's.
template <class T>
emu_outcome emu_bwd(const char* runner, bwd_io_of<T>& a, const kernels::ref::attention_grads& ref,
                    target t, double tol, double diff_tol, std::string note = {}) {
  return emu_compare(runner, t)
      .in(a.q)
      .in(a.k)
      .in(a.v)
      .in(a.o)
      .in(a.dout)
      .in(a.lse)
      .cpu([&] { return launch_bwd(a); })
      .out(0, a.dq, ref.dq, tol, diff_tol)
      .out(1, a.dk, ref.dk, tol, diff_tol)
      .out(2, a.dv, ref.dv, tol, diff_tol)
      .done(std::move(note));
}

using bwd16_io = bwd_io_of<half>;

// The 16-bit backward on the GPU (with cpu, on the interpreter too) from a's inputs: dq against
// the reference within tol and the interpreter's within 5e-2, dk and dv folded into the GPU's
// outcome against the reference.
gpu_outcome gpu_bwd16(bwd16_io& a, bool cpu, double tol) {
  const double ms =
      gpu::attention_bwd(gpu::dtype_id::f16, a.q.data(), a.k.data(), a.v.data(), a.o.data(),
                         a.lse.data(), a.dout.data(), a.dq.data(), a.dk.data(), a.dv.data(),
                         dim(a.q, 0), dim(a.q, 1), dim(a.q, 2), dim(a.q, 3), true);
  const auto ref = reference_bwd(a);
  auto g = finish_gpu(a.dq, ms, ref.dq, tol, cpu, 5e-2, [&](tensor<half>& out) {
    auto dk_cpu = tensor<half>::empty("dk(cpu)", a.dk.shape());
    auto dv_cpu = tensor<half>::empty("dv(cpu)", a.dv.shape());
    return kernels::attention_bwd(a.q, a.k, a.v, a.o, a.lse, a.dout, out, dk_cpu, dv_cpu, true)
        .back();
  });
  fold_into(g.gpu, a.dk, ref.dk, tol);
  fold_into(g.gpu, a.dv, ref.dv, tol);
  return g;
}

registrar r_bwd{
    kernel<bwd_io, kernels::ref::attention_grads>{
        .name = "attention_bwd",
        .description = "flash attention backward (dq, dk, dv), recomputing P from lse, f32, causal",
        .size_help = "B,H,S,D (D = 64 or 128)",
        .default_size = {1, 2, 150, 64},
        .bench_size = {1, 2, 256, 64},
        .make = make_bwd<float>,
        .launch = launch_bwd<float>,
        .reference = reference_bwd<float>,
        .compare = [](checker& c, const bwd_io& a,
                      const kernels::ref::attention_grads& r) { compare_bwd(c, a, r, 1e-5); },
        .native = [](bwd_io& a) -> std::function<void()> {
          const int64_t heads = a.q.size(0) * a.q.size(1), n = a.q.size(2), d = a.q.size(3);
          return [&a, heads, n, d, p = fmat(n, n), dp = fmat(n, n)]() mutable {
            const float scale = 1.0f / std::sqrt(static_cast<float>(d));
            for (int64_t h = 0; h < heads; ++h) {
              const int64_t off = h * n * d;
              fmap Q(a.q.data() + off, n, d), K(a.k.data() + off, n, d), V(a.v.data() + off, n, d),
                  dO(a.dout.data() + off, n, d), dQ(a.dq.data() + off, n, d),
                  dK(a.dk.data() + off, n, d), dV(a.dv.data() + off, n, d);
              p.noalias() = (Q * K.transpose()) * scale;
              softmax_rows(p, true);
              dV.noalias() = p.transpose() * dO;
              dp.noalias() = dO * V.transpose();
              const Eigen::VectorXf delta = (p.array() * dp.array()).rowwise().sum();
              dp = (p.array() * (dp.array().colwise() - delta.array())).matrix();
              dQ.noalias() = (dp * K) * scale;
              dK.noalias() = (dp.transpose() * Q) * scale;
            }
          };
        },
    },
    {
        // GPU: the 16-bit backward on f16 copies of the inputs (head dim 64 or 128), its forward
        // (o and lse) on the interpreter in f16 too, as the GPU's backward takes them.
        .gpu =
            [](bwd_io& a, bool cpu) {
              bwd16_io h{as_f16(a.q),
                         as_f16(a.k),
                         as_f16(a.v),
                         as_f16(a.dout),
                         tensor<half>::empty("o", a.o.shape()),
                         tensor<float>::empty("lse", a.lse.shape()),
                         output<half>("dq", a.dq.shape()),
                         output<half>("dk", a.dk.shape()),
                         output<half>("dv", a.dv.shape())};
              kernels::attention_fwd(h.q, h.k, h.v, h.o, h.lse, true);
              return gpu_bwd16(h, cpu, 2e-2);
            },
        .amd_emu = [](bwd_io& a, const kernels::ref::attention_grads& ref,
                      target t) { return emu_bwd("attention_bwd", a, ref, t, 1e-5, 1e-4); },
    }};

// attention_bwd_f16: the causal backward in 16-bit, as the GPUs run it (f16 q, k, v, o, dout and
// dq, dk, dv; lse and the products' sums in fp32), on every backend from the same f16 inputs: on
// AMD its tiles are the 16-bit rows of attention_bwd_configs and attention_bwd_dq_configs, not the
// f32 entry's ones. o and lse are what the interpreter's 16-bit forward leaves.
registrar r_bwd_f16{
    kernel<bwd16_io, kernels::ref::attention_grads>{
        .name = "attention_bwd_f16",
        .description = "flash attention backward (dq, dk, dv), causal, f16 inputs and outputs, "
                       "fp32 accumulation",
        .size_help = "B,H,S,D (D = 64 or 128)",
        .default_size = {1, 2, 150, 128},
        .bench_size = {1, 2, 256, 128},
        .make = make_bwd<half>,
        .launch = launch_bwd<half>,
        .reference = reference_bwd<half>,
        .compare = [](checker& c, const bwd16_io& a,
                      const kernels::ref::attention_grads& r) { compare_bwd(c, a, r, 3e-3); },
        .note = "f16 inputs and outputs, fp32 accumulation",
    },
    {
        .gpu = [](bwd16_io& a, bool cpu) { return gpu_bwd16(a, cpu, 1e-2); },
        .amd_emu =
            [](bwd16_io& a, const kernels::ref::attention_grads& ref, target t) {
              return emu_bwd("attention_bwd_f16", a, ref, t, 3e-3, 8e-3,
                             "f16 inputs and outputs, fp32 accumulation");
            },
    }};

}  // namespace
}  // namespace bv::cli
