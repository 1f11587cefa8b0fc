// The emulator's MFMA instructions against the register layouts AMD publishes (the AMD Matrix
// Instruction Calculator, CDNA2/CDNA3, blocks = 1), transcribed here on their own: one-hot
// inputs show which A and B elements reach each D element, and random inputs are compared with
// a plain matrix product.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "bv/emu/mfma.hpp"

namespace {

// The calculator's tables for v_mfma_f32_32x32x{8f16, 8bf16_1k, 2f32}: "A[i][k]: lane i + 32 *
// (k / KL), item k % KL"; "B[k][j]: lane j + 32 * (k / KL), item k % KL"; "D[i][j]: lane j + 32 *
// ((i / 4) % 2), item (i % 4) + 4 * (i / 8)"; KL = K / 2.
struct instr {
  const char* name;
  int K;
};
int lane_a(int i, int k, int K) { return i + 32 * (k / (K / 2)); }
int item_a(int, int k, int K) { return k % (K / 2); }
int lane_d(int i, int j) { return j + 32 * ((i / 4) % 2); }
int item_d(int i, int) { return (i % 4) + 4 * (i / 8); }

uint16_t bf16_bits(float f) {  // exact for the values used here
  uint32_t u;
  std::memcpy(&u, &f, 4);
  REQUIRE((u & 0xffffu) == 0);
  return static_cast<uint16_t>(u >> 16);
}

// D = A B + C through the instruction `which` (0: f16, 1: bf16, 2: f32), A 32 x K, B K x 32,
// C and D 32 x 32, all row-major doubles, placed in lanes by the tables above.
void run(int which, int K, const double* A, const double* B, const double* C, double* D) {
  float c[64][16], d[64][16];
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) c[lane_d(i, j)][item_d(i, j)] = static_cast<float>(C[i * 32 + j]);
  if (which == 2) {
    float a[64], b[64];
    for (int i = 0; i < 32; ++i)
      for (int k = 0; k < K; ++k) {
        a[lane_a(i, k, K)] = static_cast<float>(A[i * K + k]);
        b[lane_a(i, k, K)] = static_cast<float>(B[k * 32 + i]);  // B[k][j] placed as A[j][k]
      }
    bv::emu::mfma::f32_32x32x2f32(a, b, c, d);
  } else if (which == 0) {
    _Float16 a[64][4], b[64][4];
    for (int i = 0; i < 32; ++i)
      for (int k = 0; k < K; ++k) {
        a[lane_a(i, k, K)][item_a(i, k, K)] = static_cast<_Float16>(A[i * K + k]);
        b[lane_a(i, k, K)][item_a(i, k, K)] = static_cast<_Float16>(B[k * 32 + i]);
      }
    bv::emu::mfma::f32_32x32x8f16(a, b, c, d);
  } else {
    uint16_t a[64][4], b[64][4];
    for (int i = 0; i < 32; ++i)
      for (int k = 0; k < K; ++k) {
        a[lane_a(i, k, K)][item_a(i, k, K)] = bf16_bits(static_cast<float>(A[i * K + k]));
        b[lane_a(i, k, K)][item_a(i, k, K)] = bf16_bits(static_cast<float>(B[k * 32 + i]));
      }
    bv::emu::mfma::f32_32x32x8bf16_1k(a, b, c, d);
  }
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) D[i * 32 + j] = d[lane_d(i, j)][item_d(i, j)];
}

const instr instrs[] = {
    {"v_mfma_f32_32x32x8f16", 8}, {"v_mfma_f32_32x32x8bf16_1k", 8}, {"v_mfma_f32_32x32x2f32", 2}};

}  // namespace

TEST_CASE("mfma: a one-hot A element reaches exactly its row of D, times its row of B") {
  for (int w = 0; w < 3; ++w) {
    const int K = instrs[w].K;
    CAPTURE(instrs[w].name);
    double B[8 * 32], C[32 * 32] = {}, D[32 * 32];
    // Distinct integers, exact in f16 and bf16 (at most 256).
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < 32; ++j) B[k * 32 + j] = 1 + k * 32 + j;
    for (int i0 = 0; i0 < 32; ++i0)
      for (int k0 = 0; k0 < K; ++k0) {
        double A[32 * 8] = {};
        A[i0 * K + k0] = 1;
        run(w, K, A, B, C, D);
        int bad = 0;
        for (int i = 0; i < 32; ++i)
          for (int j = 0; j < 32; ++j) bad += D[i * 32 + j] != (i == i0 ? B[k0 * 32 + j] : 0.0);
        CAPTURE(i0);
        CAPTURE(k0);
        CHECK(bad == 0);
      }
  }
}

TEST_CASE("mfma: a one-hot B element reaches exactly its column of D, times its column of A") {
  for (int w = 0; w < 3; ++w) {
    const int K = instrs[w].K;
    CAPTURE(instrs[w].name);
    double A[32 * 8], C[32 * 32] = {}, D[32 * 32];
    for (int i = 0; i < 32; ++i)
      for (int k = 0; k < K; ++k) A[i * K + k] = 1 + i * K + k;
    for (int k0 = 0; k0 < K; ++k0)
      for (int j0 = 0; j0 < 32; ++j0) {
        double B[8 * 32] = {};
        B[k0 * 32 + j0] = 1;
        run(w, K, A, B, C, D);
        int bad = 0;
        for (int i = 0; i < 32; ++i)
          for (int j = 0; j < 32; ++j) bad += D[i * 32 + j] != (j == j0 ? A[i * K + k0] : 0.0);
        CAPTURE(k0);
        CAPTURE(j0);
        CHECK(bad == 0);
      }
  }
}

TEST_CASE("mfma: C is added in place (one-hot C)") {
  for (int w = 0; w < 3; ++w) {
    const int K = instrs[w].K;
    CAPTURE(instrs[w].name);
    double A[32 * 8] = {}, B[8 * 32] = {}, D[32 * 32];
    int bad = 0;
    for (int e = 0; e < 32 * 32; ++e) {
      double C[32 * 32] = {};
      C[e] = 3;
      run(w, K, A, B, C, D);
      for (int f = 0; f < 32 * 32; ++f) bad += D[f] != (f == e ? 3.0 : 0.0);
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("mfma: random inputs give A B + C (inputs rounded to the instruction's type)") {
  std::mt19937 rng(20240611);
  std::normal_distribution<double> nd;
  for (int w = 0; w < 3; ++w) {
    const int K = instrs[w].K;
    CAPTURE(instrs[w].name);
    for (int rep = 0; rep < 5; ++rep) {
      double A[32 * 8], B[8 * 32], C[32 * 32], D[32 * 32];
      auto round = [&](double x) {
        if (w == 0) return static_cast<double>(static_cast<_Float16>(x));
        if (w == 1) {  // to bf16 by truncation: exact in bf16
          float f = static_cast<float>(x);
          uint32_t u;
          std::memcpy(&u, &f, 4);
          u &= 0xffff0000u;
          std::memcpy(&f, &u, 4);
          return static_cast<double>(f);
        }
        return static_cast<double>(static_cast<float>(x));
      };
      for (auto& x : A) x = round(nd(rng));
      for (auto& x : B) x = round(nd(rng));
      for (auto& x : C) x = static_cast<float>(nd(rng));
      run(w, K, A, B, C, D);
      double worst = 0;
      for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j) {
          double ref = C[i * 32 + j];
          for (int k = 0; k < K; ++k) ref += A[i * K + k] * B[k * 32 + j];
          worst = std::fmax(worst, std::fabs(D[i * 32 + j] - ref));
        }
      CHECK(worst < 1e-5);
    }
  }
}
