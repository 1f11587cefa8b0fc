// Tiled matmul C = A @ B with Triton's grouped program ordering (GROUP_M rows of tiles share the
// B columns they read, for L2 reuse), masked ragged edges and fp32 accumulation.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/launch_config.hpp"

namespace bv::kernels {

// Triton's grouped ordering: program `pid` of a 1-D grid takes the tile (pid_m, pid_n) so that
// GROUP_M consecutive programs share the columns of B they read (L2 reuse).
struct tile_index {
  int m, n;
};
BV_HD constexpr tile_index grouped_tile(int pid, int M, int N, int BM, int BN, int GROUP_M) {
  const int num_pid_m = cdiv(M, BM), num_pid_n = cdiv(N, BN);
  const int num_in_group = GROUP_M * num_pid_n;
  const int first_m = (pid / num_in_group) * GROUP_M;
  const int group_size = num_pid_m - first_m < GROUP_M ? num_pid_m - first_m : GROUP_M;
  return {first_m + (pid % num_in_group) % group_size, (pid % num_in_group) / group_size};
}

// The K loop streams a's and b's tiles from block pointers (for_range over along(bp, step,
// boundary_check): each step's tiles are tl.load(tl.advance(bp, ...), boundary_check)): the
// interpreter loads each tile as a masked pointer block; on sm_90a the loop is a TMA pipeline
// with the next stages - 1 steps' tiles in flight during this step's wgmma
// (gpu_backend/bv/gpu/tile_loop.hpp), elsewhere on NVIDIA a cp.async pipeline through the block
// pointers' rings (block_ptr.hpp), and on AMD the next step's tiles are loaded into registers
// while this step's MFMA instructions run, and the loop's stages (for_range<Stages>, the launch
// row's) at 2 stage each step's tiles into the other of two LDS images, one barrier a step
// instead of two (gpu_backend/bv/gpu/dot.hpp, dot_lds_double). The accumulator is an accumulator():
// zeros that, on sm_90a, stay in wgmma's register order through the loop, each step's wgmma running
// on into the next (gpu_backend/bv/gpu/accumulator.hpp).
// matmul_tile_product is that loop for tile t, a[t.m rows, :] @ b[:, t.n columns], returned as the
// accumulator(); matmul_kernel stores it, and the fused matmul's block-pointer variant runs it too.
template <int BM, int BN, int BK, int Stages, int W, class T>
BV_INLINE auto matmul_tile_product(program<W> p, ptr<const T> a, ptr<const T> b, tile_index t,
                                   int M, int N, int K, int sam, int sak, int sbk, int sbn) {
  auto a_bp = make_block_ptr<BM, BK>(p, a, {M, K}, {sam, sak}, {t.m * BM, 0});
  auto b_bp = make_block_ptr<BK, BN>(p, b, {K, N}, {sbk, sbn}, {0, t.n * BN});
  return for_range<Stages>(
      p, 0, K, BK, accumulator<float, BM, BN>(p), along(a_bp, {0, BK}, boundary_check(0, 1)),
      along(b_bp, {BK, 0}, boundary_check(0, 1)),
      [&](int, const auto& a, const auto& b, auto acc) { return dot(a, b, acc); });
}

template <class T, class O, int BM, int BN, int BK, int GROUP_M, int W = 4, int Stages = 0>
BV_KERNEL void matmul_kernel(program<W> p, ptr<const T> a, ptr<const T> b, ptr<O> c, int M, int N,
                             int K, int sam, int sak, int sbk, int sbn, int scm, int scn) {
  const tile_index t = grouped_tile(p.id(0), M, N, BM, BN, GROUP_M);
  auto acc = matmul_tile_product<BM, BN, BK, Stages>(p, a, b, t, M, N, K, sam, sak, sbk, sbn);
  // The tile goes out through a block pointer, as Triton's tl.store(bp, acc, boundary_check):
  // its bounds are tested where each run is stored. (With the mask written as a block of its own,
  // hipcc and clang computed every element's before the first store and held them: a 256x256
  // tile's store spilled on gfx942.)
  auto c_bp = make_block_ptr<BM, BN>(p, c, {M, N}, {scm, scn}, {t.m * BM, t.n * BN});
  store(c_bp, acc, boundary_check(0, 1));
}

// Launch configurations (bv/launch_config.hpp), by the inputs' element size. 16-bit inputs on
// sm_90: two warpgroups (8 warps) over 128x256x64 tiles, a and b streamed by the TMA through 4
// slots each (192 KiB of LDS), wgmma on sm_90a, each step's group in flight into the next (so 3
// steps' tiles ahead of it). At 8192^3 on an H100 (bench/gpu/matmul_dev.cu) it takes 1.53 ms,
// 256x128x64 on 8 warps 1.55, 128x256x64 with 3 slots 1.60, and one warpgroup over 128x128x64 1.90
// to 1.98 whatever its slots. On an H200 the row takes 1.53 ms as well, against 1.67 for one
// warpgroup over 128x128x64 with 3 slots, 1.56 for 256x128x64 and 1.62 with 3 slots. AMD (gfx942,
// gfx90a; block pointers have no rings there), 16-bit inputs: 8 waves, 2 a SIMD, over 256x256x32
// tiles, a third fewer global bytes per MFMA than 128x256x64 (docs/PERFORMANCE.md, AMD: 256x256
// tiles), and stages 2: a and b through two LDS images in turn, unpadded (64 KiB, all of a
// workgroup's LDS; 192 VGPRs on gfx942, 190 on gfx90a, no spills), one barrier a K step where one
// padded image (36 KiB) takes two. 256x256x64 would take 68 KiB for one image. Everything else, f32
// on AMD included: 4 waves over 64x64x32 tiles (an 8-wave f32 tile's 32-row b block fills a quarter
// of the AMD layout's 128 rows: the interpreter rightly notes low lane utilisation at small sizes).
// f32 on sm_90 (dot on CUDA cores): 4 warps over 128x64x32 tiles, 33.6 TFLOP/s at 4096^3 on an H200
// where 64x64x32 gives 24.0, 64x64x32 on 2 warps 29.3, 128x128x32 35.0 at 4096^3 but 30 at the
// decoder block's 1024-row products (bench/gpu/matmul_f32_dev.cu).
struct matmul_configs {
  static constexpr const char* key = "element size in bytes";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        bytes up to  waves       BM          BN          BK         GROUP_M        stages
      {.targets = only(target::sm_90), .up_to = 2, .waves = 8, .bm = 128, .bn = 256, .bk = 64, .group_m = 8, .stages = 4},
      {.targets = only(target::sm_90), .up_to = 4, .waves = 4, .bm = 128, .bn = 64,  .bk = 32, .group_m = 8},
      {.targets = amd_targets,         .up_to = 2, .waves = 8, .bm = 256, .bn = 256, .bk = 32, .group_m = 8, .stages = 2},
      {                                             .waves = 4, .bm = 64,  .bn = 64,  .bk = 32, .group_m = 8, .stages = 3},
  };
  // clang-format on
};

// The dynamic LDS matmul_kernel's two block pointers take with rings of `stages` slots (0: none).
template <class T, int BM, int BN, int BK, int W>
constexpr int matmul_lds_bytes(int stages) {
  return stages
             ? block_ptr_lds_bytes<T, BM, BK, W>(stages) + block_ptr_lds_bytes<T, BK, BN, W>(stages)
             : 0;
}

// c = a @ b for 2-D tensors (any strides) with tiles given here; c's dtype may differ from the
// inputs'. On a GPU, Stages > 0 gives a and b block-pointer rings of that many slots in LDS
// (NVIDIA; gpu_backend/bv/gpu/block_ptr.hpp) and MinPrograms > 0 leaves registers for that many
// programs per SM (bv/launch_tuning.hpp). Where every column stride is 1 (contiguous rows) they are
// compiled in as 1, as Triton specialises unit strides.
template <int BM, int BN, int BK, int GROUP_M = 8, int W = 4, int Stages = 0, int MinPrograms = 0,
          class T, class O>
launch_result matmul(const tensor<T>& a, const tensor<T>& b, tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  const int sam = static_cast<int>(a.stride(0)), sak = static_cast<int>(a.stride(1));
  const int sbk = static_cast<int>(b.stride(0)), sbn = static_cast<int>(b.stride(1));
  const int scm = static_cast<int>(c.stride(0)), scn = static_cast<int>(c.stride(1));
  constexpr int lds = matmul_lds_bytes<T, BM, BN, BK, W>(Stages);
  const grid g(cdiv(M, BM) * cdiv(N, BN));
  if (sak == 1 && sbn == 1 && scn == 1)
    return launch<matmul_kernel<T, O, BM, BN, BK, GROUP_M, W, Stages>>(
        gpu_tuning<Stages, MinPrograms, unit_args<7, 9, 11>>{lds}, g, a, b, c, M, N, K, sam, 1, sbk,
        1, scm, 1);
  return launch<matmul_kernel<T, O, BM, BN, BK, GROUP_M, W, Stages>>(
      gpu_tuning<Stages, MinPrograms>{lds}, g, a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn);
}
// c = a @ b in the configuration declared for the launch's target.
template <class T, class O>
launch_result matmul(const tensor<T>& a, const tensor<T>& b, tensor<O>& c) {
  return with_config_for<matmul_configs, sizeof(T)>("matmul", [&](auto cfg) {
    constexpr launch_config k = decltype(cfg)::value;
    return matmul<k.bm, k.bn, k.bk, k.group_m, k.waves, k.stages, k.min_programs>(a, b, c);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_MATMUL_INSTANCES_OF(X, T, O) \
  X(launch_result matmul(const tensor<T>&, const tensor<T>&, tensor<O>&))
#define BV_MATMUL_INSTANCES(X)               \
  BV_MATMUL_INSTANCES_OF(X, float, float)    \
  BV_MATMUL_INSTANCES_OF(X, half, float)     \
  BV_MATMUL_INSTANCES_OF(X, half, half)      \
  BV_MATMUL_INSTANCES_OF(X, bfloat16, float) \
  BV_MATMUL_INSTANCES_OF(X, bfloat16, bfloat16)
BV_EXTERN_INSTANCES(BV_MATMUL_INSTANCES)

}  // namespace bv::kernels
