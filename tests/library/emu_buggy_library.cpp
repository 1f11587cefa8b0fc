// A kernel library with a bug only the AMD emulator shows: tile_matmul's 256x256 tiles with a
// K step of 32 stage two f32 operands of 256 x (32 + 1) in LDS, 67584 bytes, more than an AMD
// workgroup's 65536 (a K step of 32 f32 is one slice: slicing K does not shrink it). The
// interpreter, which has no LDS, runs it correctly; its emulated build
// (bv_test_emu_buggy_library.amd-emu.so) reports lds-capacity. small_tile_matmul, the same kernel
// with 64x64 tiles, passes both.
#include <bv/kernel_library.hpp>

namespace {

using bv::library::sizes;

template <int BM, int BN, int BK>
BV_KERNEL void tile_matmul(bv::program<4> p, bv::ptr<const float> a, bv::ptr<const float> b,
                           bv::ptr<float> c, int m, int n, int k) {
  auto rm = p.id(0) * BM + bv::arange<BM>(p);
  auto rn = p.id(1) * BN + bv::arange<BN>(p);
  auto acc = bv::zeros<float, BM, BN>(p);
  for (int k0 = 0; k0 < k; k0 += BK) {
    auto rk = k0 + bv::arange<BK>(p);
    auto at = bv::load(a + rm.col() * k + rk.row(), (rm.col() < m) & (rk.row() < k), 0.0f);
    auto bt = bv::load(b + rk.col() * n + rn.row(), (rk.col() < k) & (rn.row() < n), 0.0f);
    acc = bv::dot(at, bt, acc);  // BIG-TILE-DOT
  }
  bv::store(c + rm.col() * n + rn.row(), acc, (rm.col() < m) & (rn.row() < n));
}

struct io {
  bv::tensor<float> a, b, c;
};

std::vector<double> reference(const io& t) {
  const int64_t m = t.a.size(0), k = t.a.size(1), n = t.b.size(1);
  std::vector<double> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += static_cast<double>(t.a(i, l)) * t.b(l, j);
      out[static_cast<size_t>(i * n + j)] = s;
    }
  return out;
}

template <int BM, int BN, int BK>
bv::library::kernel<io, std::vector<double>> entry(const char* name, const char* what) {
  return {
      .name = name,
      .description = what,
      .size_help = "M,N,K",
      .default_size = {70, 50, 40},
      .make =
          [](const sizes& s, uint64_t seed) {
            return io{bv::tensor<float>::randn("a", {s[0], s[2]}, seed),
                      bv::tensor<float>::randn("b", {s[2], s[1]}, seed + 1),
                      bv::library::output<float>("c", {s[0], s[1]})};
          },
      .launch =
          [](io& t) {
            const int m = static_cast<int>(t.a.size(0)), k = static_cast<int>(t.a.size(1));
            const int n = static_cast<int>(t.b.size(1));
            return bv::launch<tile_matmul<BM, BN, BK>>(bv::grid(bv::cdiv(m, BM), bv::cdiv(n, BN)),
                                                       t.a, t.b, t.c, m, n, k);
          },
      .reference = reference,
      .compare = [](bv::library::checker& c, const io& t,
                    const std::vector<double>& r) { c.expect(t.c, r, 1e-5); },
  };
}

const bv::library::registration big{
    entry<256, 256, 32>("tile_matmul", "c = a @ b, f32, 256x256 tiles (too much LDS on AMD)")};
const bv::library::registration small{
    entry<64, 64, 32>("small_tile_matmul", "c = a @ b, f32, 64x64 tiles")};

}  // namespace
