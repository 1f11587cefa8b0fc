// The MFMA instructions the AMD lowering issues (gpu_backend/bv/gpu/wave.hpp), as functions from
// the 64 lanes' A, B and C registers to their D registers; the same on gfx90a (CDNA2) and gfx942
// (CDNA3). Operand and result placement follows AMD's CDNA2/CDNA3 ISA guides and the AMD Matrix
// Instruction Calculator's register layouts (blocks = 1, CBSZ = ABID = BLGP = 0):
//  - A (32 x K): element A[i][k] is item k % KPL of lane i + 32 * (k / KPL), KPL = K / 2
//    values per lane (4 for the x8 16-bit forms, 1 for 32x32x2f32);
//  - B (K x 32): element B[k][j] is item k % KPL of lane j + 32 * (k / KPL);
//  - C and D (32 x 32): element D[i][j] is register 4 * (i / 8) + i % 4 of lane j + 32 * ((i / 4) %
//  2).
// Inputs are converted to fp32 exactly (every f16 and bf16 is an fp32); a product of two 16-bit
// inputs is exact in fp32, and the products are accumulated in fp32 onto C in increasing k. The
// hardware's internal summation order is not published: sums may differ from a device's in their
// last bits, never in which elements meet.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace bv::emu::mfma {

struct place {
  int lane, item;
};
// Where A[i][k], B[k][j] and D[i][j] live (KPL: the input values one lane holds).
constexpr place a_place(int i, int k, int kpl) { return {i + 32 * (k / kpl), k % kpl}; }
constexpr place b_place(int k, int j, int kpl) { return {j + 32 * (k / kpl), k % kpl}; }
constexpr place d_place(int i, int j) {
#ifdef BV_EMU_MUTATION_MFMA_LANE
  // Test hook: the mutation tests (tests/emulator/CMakeLists.txt) swap the lane halves of D's
  // row groups, a wrong lane mapping the layout and matmul tests must catch.
  return {j + 32 * (1 - (i / 4) % 2), 4 * (i / 8) + i % 4};
#else
  return {j + 32 * ((i / 4) % 2), 4 * (i / 8) + i % 4};
#endif
}

// bf16 bits to the fp32 value they are the top half of.
inline float bf16_to_float(uint16_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// D = A B + C for a 32 x 32 x K instruction; a(lane, item) and b(lane, item) give the inputs as
// fp32, c and d hold 16 floats per lane.
template <int K, int KPL, class GetA, class GetB>
void mfma_32x32(GetA a, GetB b, const float (*c)[16], float (*d)[16]) {
  static_assert(64 * KPL == 32 * K, "internal: a 32x32 MFMA's inputs fill the wave's 64 lanes");
  float A[32][K], B[K][32];
  for (int i = 0; i < 32; ++i)
    for (int k = 0; k < K; ++k) {
      const place p = a_place(i, k, KPL);
      A[i][k] = a(p.lane, p.item);
    }
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < 32; ++j) {
      const place p = b_place(k, j, KPL);
      B[k][j] = b(p.lane, p.item);
    }
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      const place p = d_place(i, j);
      float acc = c[p.lane][p.item];
      for (int k = 0; k < K; ++k) acc = std::fma(A[i][k], B[k][j], acc);
      d[p.lane][p.item] = acc;
    }
}

// v_mfma_f32_32x32x8f16: four f16 of A and of B per lane.
inline void f32_32x32x8f16(const _Float16 (*a)[4], const _Float16 (*b)[4], const float (*c)[16],
                           float (*d)[16]) {
  mfma_32x32<8, 4>([&](int l, int e) { return static_cast<float>(a[l][e]); },
                   [&](int l, int e) { return static_cast<float>(b[l][e]); }, c, d);
}
// v_mfma_f32_32x32x8bf16_1k: four bf16 (as their bits) of A and of B per lane.
inline void f32_32x32x8bf16_1k(const uint16_t (*a)[4], const uint16_t (*b)[4], const float (*c)[16],
                               float (*d)[16]) {
  mfma_32x32<8, 4>([&](int l, int e) { return bf16_to_float(a[l][e]); },
                   [&](int l, int e) { return bf16_to_float(b[l][e]); }, c, d);
}
// v_mfma_f32_32x32x2f32: one f32 of A and of B per lane.
inline void f32_32x32x2f32(const float* a, const float* b, const float (*c)[16], float (*d)[16]) {
  mfma_32x32<2, 1>([&](int l, int) { return a[l]; }, [&](int l, int) { return b[l]; }, c, d);
}

}  // namespace bv::emu::mfma
