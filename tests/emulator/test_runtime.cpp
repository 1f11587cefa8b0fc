// The emulator's runtime under the GPU backend's primitives (bv/gpu/wave.hpp): ids over a grid,
// the butterfly shuffle, the barrier and LDS, atomics, and the errors a kernel that would hang or
// misbehave on the device gets.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bv/bv.hpp"

namespace prim = bv::gpu::prim;

namespace {

// Each thread writes its ids, and the grid's size as the dispatch packet gives it.
template <int W>
BV_KERNEL void ids_kernel(bv::program<W> p, bv::ptr<int> out) {
  const int prog = (p.id(2) * p.num_programs(1) + p.id(1)) * p.num_programs(0) + p.id(0);
  int* o = out.p + (static_cast<int64_t>(prog) * W * 64 + prim::thread_id()) * 6;
  o[0] = p.id(0), o[1] = p.id(1), o[2] = p.id(2);
  o[3] = p.num_programs(0) * 10000 + p.num_programs(1) * 100 + p.num_programs(2);
  o[4] = prim::lane_id();
  o[5] = prim::wave_id();
}

// Each lane reads (lane ^ mask)'s value through shuffle_xor, for every mask, in 4 and 8 bytes.
template <int W>
BV_KERNEL void shuffle_kernel(bv::program<W>, bv::ptr<const int> in, bv::ptr<int64_t> out) {
  const int t = prim::thread_id();
  const int v = in.p[t];
  for (int m = 0; m < 64; ++m) {
    out.p[(t * 64 + m) * 2] = prim::shuffle_xor(v, m);
    const int64_t wide = (static_cast<int64_t>(v) << 32) | static_cast<uint32_t>(~v);
    out.p[(t * 64 + m) * 2 + 1] = prim::shuffle_xor(wide, m);
  }
}

// Thread t writes LDS slot t, and after the barrier reads slot (t + 67) % threads: across waves.
template <int W>
BV_KERNEL void lds_kernel(bv::program<W> p, bv::ptr<int> out) {
  constexpr int T = W * 64;
  int* s = prim::lds<int, T, 91>();
  const int t = prim::thread_id();
  s[t] = p.id(0) * 1000 + t * 3;
  prim::barrier();
  out.p[p.id(0) * T + t] = s[(t + 67) % T];
}

// Every program adds its block of ones into a few counters: the sum is exact only if the adds
// are atomic.
template <int W>
BV_KERNEL void atomic_kernel(bv::program<W> p, bv::ptr<int> counters) {
  auto i = bv::arange<256>(p);
  bv::atomic_add(counters + (i % 7), 1);
  (void)p;
}

// A shuffle reached by only half of the lanes of a wave.
template <int W>
BV_KERNEL void divergent_kernel(bv::program<W>, bv::ptr<int> out) {
  int v = prim::thread_id();
  if (prim::lane_id() < 32) v = prim::shuffle_xor(v, 1);
  out.p[prim::thread_id()] = v;
}

// More static LDS than a workgroup has.
template <int W>
BV_KERNEL void lds_overflow_kernel(bv::program<W>, bv::ptr<float> out) {
  float* a = prim::lds<float, 12000, 92>();
  float* b = prim::lds<float, 6000, 93>();
  a[0] = 1, b[0] = 2;
  out.p[0] = a[0] + b[0];
}

// Half of a wave waits at the barrier while its other half waits at a shuffle.
template <int W>
BV_KERNEL void deadlock_kernel(bv::program<W>, bv::ptr<int> out) {
  int v = prim::thread_id();
  if (prim::lane_id() < 32)
    prim::barrier();
  else
    v = prim::shuffle_xor(v, 2);
  out.p[prim::thread_id()] = v;
}

}  // namespace

TEST_CASE("emulator: program ids, grid size from the dispatch packet, lane and wave ids") {
  constexpr int W = 2;
  const int gx = 3, gy = 2, gz = 2;
  std::vector<int> out(static_cast<size_t>(gx * gy * gz * W * 64 * 6), -7);
  bv::launch<ids_kernel<W>>(bv::grid(gx, gy, gz), bv::ptr<int>{out.data()});
  int bad = 0;
  for (int z = 0; z < gz; ++z)
    for (int y = 0; y < gy; ++y)
      for (int x = 0; x < gx; ++x)
        for (int t = 0; t < W * 64; ++t) {
          const int* o = out.data() + (((z * gy + y) * gx + x) * W * 64 + t) * 6;
          bad += o[0] != x || o[1] != y || o[2] != z || o[3] != gx * 10000 + gy * 100 + gz ||
                 o[4] != t % 64 || o[5] != t / 64;
        }
  CHECK(bad == 0);
}

TEST_CASE("emulator: shuffle_xor gives lane (lane ^ mask)'s value for every mask") {
  constexpr int W = 2;
  std::mt19937 rng(11);
  std::vector<int> in(W * 64);
  for (auto& v : in) v = static_cast<int>(rng());
  std::vector<int64_t> out(W * 64 * 64 * 2, 0);
  bv::launch<shuffle_kernel<W>>(bv::grid(1), bv::ptr<const int>{in.data()},
                                bv::ptr<int64_t>{out.data()});
  int bad = 0;
  for (int t = 0; t < W * 64; ++t)
    for (int m = 0; m < 64; ++m) {
      const int src = (t & ~63) | ((t & 63) ^ m);  // the same wave
      const int v = in[src];
      bad += out[(t * 64 + m) * 2] != v;
      bad += out[(t * 64 + m) * 2 + 1] !=
             ((static_cast<int64_t>(v) << 32) | static_cast<uint32_t>(~v));
    }
  CHECK(bad == 0);
}

TEST_CASE("emulator: the barrier orders LDS writes before reads across waves, per workgroup") {
  constexpr int W = 4, T = W * 64;
  std::vector<int> out(3 * T, -1);
  bv::launch<lds_kernel<W>>(bv::grid(3), bv::ptr<int>{out.data()});
  int bad = 0;
  for (int g = 0; g < 3; ++g)
    for (int t = 0; t < T; ++t) bad += out[g * T + t] != g * 1000 + ((t + 67) % T) * 3;
  CHECK(bad == 0);
  CHECK(bv::emu::last_lds_bytes() == T * sizeof(int));
}

TEST_CASE("emulator: atomic adds from every lane of every workgroup all land") {
  std::vector<int> counters(7, 0);
  bv::launch<atomic_kernel<4>>(bv::grid(5), bv::ptr<int>{counters.data()});
  for (int c = 0; c < 7; ++c) {
    const int per_program = 256 / 7 + (c < 256 % 7 ? 1 : 0);
    CHECK(counters[c] == 5 * per_program);
  }
}

// The diagnostic of `kind` in r, which must be the only one.
const bv::diagnostic& only(const bv::emu::result& r, const char* kind) {
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].kind == kind);
  CHECK(r.diagnostics[0].sev == bv::severity::error);
  return r.diagnostics[0];
}

TEST_CASE("emulator: a shuffle that half a wave skips is reported, naming the lanes") {
  std::vector<int> out(64, 0);
  const auto r = bv::launch<divergent_kernel<1>>(bv::grid(1), bv::ptr<int>{out.data()});
  CHECK(!r.ok());
  const auto& d = only(r, "wave-divergence");
  const std::string t = d.text();
  CAPTURE(t);
  CHECK(d.lanes.size() == 32);
  CHECK(d.lanes.front() == 0);
  CHECK(t.find("lanes 32-63 ended") != std::string::npos);
  CHECK(t.find("ds_bpermute") != std::string::npos);
  CHECK(d.kernel.find("divergent_kernel") != std::string::npos);
}

TEST_CASE("emulator: static LDS past 64 KiB is reported, and the kernel runs on") {
  std::vector<float> out(1, 0);
  const auto r = bv::launch<lds_overflow_kernel<1>>(bv::grid(1), bv::ptr<float>{out.data()});
  const auto& d = only(r, "lds-capacity");
  CHECK(d.headline.find("more than the 65536 a workgroup has on gfx942") != std::string::npos);
  CHECK(out[0] == 3.0f);
}

TEST_CASE("emulator: a wave split between the barrier and a shuffle is reported, not hung") {
  std::vector<int> out(128, 0);
  const auto r = bv::launch<deadlock_kernel<2>>(bv::grid(1), bv::ptr<int>{out.data()});
  CHECK(r.deadlocked);
  const auto& d = only(r, "wave-divergence");
  const std::string t = d.text();
  CAPTURE(t);
  CHECK(t.find("A shuffle (ds_bpermute) reached by 32 of 64 lanes of wave 0") != std::string::npos);
  CHECK(t.find("lanes 0-31 wait at the barrier") != std::string::npos);
}
