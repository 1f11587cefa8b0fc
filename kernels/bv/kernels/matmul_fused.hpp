// Two variants of the tiled matmul (matmul.hpp):
//  - matmul_bias_act: C = act(A @ B + bias) with the bias add and the activation (none, ReLU, SiLU,
//    GELU-tanh) applied to the fp32 accumulator before the one store: the epilogue fusion that
//    saves a full read and write of C.
//  - matmul_splitk: the K dimension split over SPLIT_K programs per output tile (grid axis 1),
//    each adding its partial tile into C with atomic_add. More programs for skinny, deep
//    products (small M*N, large K); C must be fp32 and is zeroed by a first launch.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"
#include "bv/kernels/matmul.hpp"

namespace bv::kernels {

enum class epilogue : int { none = 0, relu = 1, silu = 2, gelu_tanh = 3 };

namespace detail {
template <epilogue E, class B>
BV_HD auto apply_epilogue(const B& x) {
  if constexpr (E == epilogue::relu)
    return maximum(x, 0.0f);
  else if constexpr (E == epilogue::silu)
    return act_value<gate_act::silu>(x);
  else if constexpr (E == epilogue::gelu_tanh)
    return act_value<gate_act::gelu_tanh>(x);
  else
    return x;
}
}  // namespace detail

template <class T, class O, epilogue E, int BM, int BN, int BK, int GROUP_M, int W = 4>
BV_KERNEL void matmul_bias_act_kernel(program<W> p, ptr<const T> a, ptr<const T> b,
                                      ptr<const T> bias, ptr<O> c, int M, int N, int K, int sam,
                                      int sak, int sbk, int sbn, int scm, int scn) {
  const tile_index t = grouped_tile(p.id(0), M, N, BM, BN, GROUP_M);
  const int pid_m = t.m, pid_n = t.n;

  auto rm = pid_m * BM + arange<BM>(p);
  auto rn = pid_n * BN + arange<BN>(p);
  auto rk = arange<BK>(p);
  auto pa = a + (rm.col() * sam + rk.row() * sak);
  auto pb = b + (rk.col() * sbk + rn.row() * sbn);
  auto acc = zeros<float, BM, BN>(p);
  for (int k = 0; k < K; k += BK) {
    auto a_mask = (rm.col() < M) & (rk.row() < K - k);
    auto b_mask = (rk.col() < K - k) & (rn.row() < N);
    acc = dot(load(pa, a_mask, 0.0f), load(pb, b_mask, 0.0f), acc);
    pa += BK * sak;
    pb += BK * sbk;
  }
  // The epilogue, on the fp32 accumulator: bias broadcast along rows, then the activation.
  auto out = detail::apply_epilogue<E>(acc + load(bias + rn, rn < N, 0.0f).to(f32).row());
  store(c + (rm.col() * scm + rn.row() * scn), out, (rm.col() < M) & (rn.row() < N));
}

// Variant 1 (the AMD rows): a's and b's tiles streamed through block pointers, matmul_kernel's
// K loop (on AMD 16 bytes a lane, each element once, the next step's tiles loaded during this
// step's MFMAs, two LDS images in turn at 2 stages), then the same epilogue, and the tile stored
// through a block pointer. Variant 0's pointer loads (Triton's tutorial) hold b's 32 x 64 tile
// twice in the block layout of 4 waves on AMD, so each element of b was loaded twice there.
template <class T, class O, epilogue E, int BM, int BN, int BK, int GROUP_M, int W = 4,
          int Stages = 0>
BV_KERNEL void matmul_bias_act_bp_kernel(program<W> p, ptr<const T> a, ptr<const T> b,
                                         ptr<const T> bias, ptr<O> c, int M, int N, int K, int sam,
                                         int sak, int sbk, int sbn, int scm, int scn) {
  const tile_index t = grouped_tile(p.id(0), M, N, BM, BN, GROUP_M);
  auto acc = matmul_tile_product<BM, BN, BK, Stages>(p, a, b, t, M, N, K, sam, sak, sbk, sbn);
  auto rn = t.n * BN + arange<BN>(p);
  auto out = detail::apply_epilogue<E>(acc + load(bias + rn, rn < N, 0.0f).to(f32).row());
  store(make_block_ptr<BM, BN>(p, c, {M, N}, {scm, scn}, {t.m * BM, t.n * BN}), out,
        boundary_check(0, 1));
}

// The fused matmul's kernel for launch row k, written once for every launcher.
template <class T, class O, epilogue E, launch_config k>
inline constexpr auto matmul_bias_act_for = [] {
  if constexpr (k.variant == 1)
    return &matmul_bias_act_bp_kernel<T, O, E, k.bm, k.bn, k.bk, k.group_m, k.waves, k.stages>;
  else
    return &matmul_bias_act_kernel<T, O, E, k.bm, k.bn, k.bk, k.group_m, k.waves>;
}();

// Not a template: GCC 12 leaves a non-dependent function template specialisation used only as a
// `template <auto K>` argument uninstantiated (an undefined reference at link time).
BV_KERNEL void zero_kernel(program<4> p, ptr<float> out, int n) {
  constexpr int BLOCK = 1024;
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  store(out + offs, 0.0f, offs < n);
}

// Program (tile, s) multiplies A[:, ks:ke] @ B[ks:ke, :] for its K slice and adds into C.
template <class T, int BM, int BN, int BK, int W = 4>
BV_KERNEL void matmul_splitk_kernel(program<W> p, ptr<const T> a, ptr<const T> b, ptr<float> c,
                                    int M, int N, int K, int k_per_split, int sam, int sak, int sbk,
                                    int sbn, int scm, int scn) {
  const int num_pid_n = cdiv(N, BN);
  const int pid_m = p.id(0) / num_pid_n, pid_n = p.id(0) % num_pid_n;
  const int k_begin = p.id(1) * k_per_split;
  const int k_end = k_begin + k_per_split < K ? k_begin + k_per_split : K;
  auto rm = pid_m * BM + arange<BM>(p);
  auto rn = pid_n * BN + arange<BN>(p);
  auto rk = arange<BK>(p);
  auto pa = a + (rm.col() * sam + (k_begin + rk).row() * sak);
  auto pb = b + ((k_begin + rk).col() * sbk + rn.row() * sbn);
  auto acc = zeros<float, BM, BN>(p);
  for (int k = k_begin; k < k_end; k += BK) {
    auto a_mask = (rm.col() < M) & (rk.row() < k_end - k);
    auto b_mask = (rk.col() < k_end - k) & (rn.row() < N);
    acc = dot(load(pa, a_mask, 0.0f), load(pb, b_mask, 0.0f), acc);
    pa += BK * sak;
    pb += BK * sbk;
  }
  atomic_add(c + (rm.col() * scm + rn.row() * scn), acc, (rm.col() < M) & (rn.row() < N));
}

// Launch configurations (bv/launch_config.hpp), on every target: 64x64x32 tiles, 4 waves, GROUP_M
// 8 for the fused epilogue (the plain matmul's AMD configuration; neither kernel has been tuned on
// a GPU yet). AMD takes variant 1 at 2 stages, whose streams read a and b once (the emulator's
// global bytes: docs/PERFORMANCE.md); sm_90 keeps variant 0.
struct matmul_bias_act_configs {
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                 kernel         waves       BM          BN          BK         GROUP_M        stages
      {.targets = amd_targets, .variant = 1, .waves = 4, .bm = 64, .bn = 64, .bk = 32, .group_m = 8, .stages = 2},
      {                                       .waves = 4, .bm = 64, .bn = 64, .bk = 32, .group_m = 8},
  };
  // clang-format on
};
struct matmul_splitk_configs {
  static constexpr launch_config table[] = {
      {.waves = 4, .bm = 64, .bn = 64, .bk = 32},
  };
};

// K per slice for `splits` slices of BK steps each (only the last slice has a ragged end).
BV_HD constexpr int splitk_slice(int K, int splits, int BK) {
  return cdiv(cdiv(K, splits), BK) * BK;
}

// c = act(a @ b + bias); bias [N]; c's dtype may differ from the inputs'.
template <epilogue E, class T, class O>
launch_result matmul_bias_act(const tensor<T>& a, const tensor<T>& b, const tensor<T>& bias,
                              tensor<O>& c) {
  const int M = detail::i32(a.size(0)), K = detail::i32(a.size(1)), N = detail::i32(b.size(1));
  return with_config<matmul_bias_act_configs>(M, "matmul_bias_act", [&](auto cfg) {
    constexpr launch_config k = decltype(cfg)::value;
    return launch<matmul_bias_act_for<T, O, E, k>>(
        grid(cdiv(M, k.bm) * cdiv(N, k.bn)), a, b, bias, c, M, N, K, detail::i32(a.stride(0)),
        detail::i32(a.stride(1)), detail::i32(b.stride(0)), detail::i32(b.stride(1)),
        detail::i32(c.stride(0)), detail::i32(c.stride(1)));
  });
}

// c = a @ b with K split `splits` ways; two launches (zero c, then the split products).
template <class T>
std::vector<launch_result> matmul_splitk(const tensor<T>& a, const tensor<T>& b, tensor<float>& c,
                                         int splits) {
  const int M = detail::i32(a.size(0)), K = detail::i32(a.size(1)), N = detail::i32(b.size(1));
  if (!c.is_contiguous()) throw std::invalid_argument("matmul_splitk: c must be contiguous");
  std::vector<launch_result> out;
  const int n = detail::i32(c.numel());
  out.push_back(launch<zero_kernel>(grid(cdiv(n, 1024)), c, n));
  out.push_back(with_config<matmul_splitk_configs>(K, "matmul_splitk", [&](auto cfg) {
    constexpr launch_config k = decltype(cfg)::value;
    const int k_per_split = splitk_slice(K, splits, k.bk);
    return launch<matmul_splitk_kernel<T, k.bm, k.bn, k.bk, k.waves>>(
        grid(cdiv(M, k.bm) * cdiv(N, k.bn), cdiv(K, k_per_split)), a, b, c, M, N, K, k_per_split,
        detail::i32(a.stride(0)), detail::i32(a.stride(1)), detail::i32(b.stride(0)),
        detail::i32(b.stride(1)), detail::i32(c.stride(0)), detail::i32(c.stride(1)));
  }));
  return out;
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_MATMUL_FUSED_INSTANCES_OF(X, T)                                                       \
  X(std::vector<launch_result> matmul_splitk(const tensor<T>&, const tensor<T>&, tensor<float>&, \
                                             int))                                               \
  X(launch_result matmul_bias_act<epilogue::gelu_tanh>(const tensor<T>&, const tensor<T>&,       \
                                                       const tensor<T>&, tensor<T>&))
#define BV_MATMUL_FUSED_INSTANCES(X)     \
  BV_MATMUL_FUSED_INSTANCES_OF(X, float) \
  BV_MATMUL_FUSED_INSTANCES_OF(X, half)  \
  BV_MATMUL_FUSED_INSTANCES_OF(X, bfloat16)
BV_EXTERN_INSTANCES(BV_MATMUL_FUSED_INSTANCES)

}  // namespace bv::kernels
