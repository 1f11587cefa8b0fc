// The AMD emulator's diagnostics corpus: for each of its checks a kernel that breaks the rule and
// one that keeps it, each with cases/NAME.expect listing the diagnostics it must produce (the
// grammar of tests/support/expect_file.hpp; PROGRAM is the workgroup, TENSOR always `-`: the
// emulator's reports name LDS buffers and lanes, not tensors). Every diagnostic must match a line
// and every line a diagnostic. The kernels are written against the GPU backend's primitives
// (bv/gpu/wave.hpp), where the bugs the block language cannot express can be written.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bv/bv.hpp"
#include "expect_file.hpp"

namespace prim = bv::gpu::prim;

namespace {

// Checks a launch's diagnostics against cases/NAME.expect, and what every report must carry:
// this file's line, the kernel, its lanes with their waves; and that a report fails the launch.
void run_case(const std::string& name, const bv::emu::result& r) {
  namespace ef = bv::expect_file;
  CAPTURE(name);
  REQUIRE_MESSAGE(r.memory_checked,
                  "the emulator's memory checks are off in this build (a sanitizer build)");
  // BV_DIAG_PRINT=1 prints the reports as a user sees them.
  if (std::getenv("BV_DIAG_PRINT"))
    for (const auto& d : r.diagnostics) std::printf("%s\n", d.text().c_str());
  INFO("diagnostics of " << r.kernel << ":\n" << ef::listing(r.diagnostics));
  ef::compare(ef::read(std::string(BV_EMU_CASES) + "/" + name + ".expect", __FILE__),
              r.diagnostics);
  for (const auto& d : r.diagnostics) {
    CAPTURE(d.text());
    CHECK(d.file.find("test_corpus.cpp") != std::string::npos);
    CHECK(d.kernel == r.kernel);
    CHECK(!d.lanes.empty());
    CHECK(d.waves.size() == d.lanes.size());
  }
  CHECK(r.ok() == r.diagnostics.empty());
}

}  // namespace

// BV_EMU_CASE(name) { ...; return bv::launch<...>(...); }: a corpus case checked against
// cases/name.expect. The body may check more of the result (lanes, texts) before returning it.
#define BV_EMU_CASE(NAME)                                        \
  static bv::emu::result NAME##_body();                          \
  TEST_CASE("corpus/" #NAME) { run_case(#NAME, NAME##_body()); } \
  static bv::emu::result NAME##_body()

namespace {

// ---- wave-divergence: a wave operation reached by part of a wave --------------------------------
template <bool Bug>
BV_KERNEL void shuffle_kernel(bv::program<1>, bv::ptr<int> out) {
  int v = prim::thread_id();
  if (!Bug || prim::lane_id() < 32) v = prim::shuffle_xor(v, 1);  // @shuffle
  out.p[prim::thread_id()] = v;
}

template <bool Bug>
BV_KERNEL void mfma_kernel(bv::program<1>, bv::ptr<float> out) {
  prim::f32x16 c = {};
  const float a = 1.0f, b = 2.0f;
  if (!Bug || prim::lane_id() >= 16) prim::mfma_32x32x2_f32(c, a, b);  // @mfma
  out.p[prim::thread_id()] = c[0];
}

// ---- barrier-divergence: a barrier reached by part of the workgroup -----------------------------
template <bool Bug>
BV_KERNEL void barrier_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 201>();
  s[prim::thread_id()] = prim::thread_id();
  if (!Bug || prim::lane_id() < 32) prim::barrier();  // @barrier
  out.p[prim::thread_id()] = 1;
  (void)s;
}

// ---- lds-out-of-bounds: past a buffer, and past the target's LDS --------------------------------
template <bool Bug>
BV_KERNEL void oob_kernel(bv::program<4>, bv::ptr<int> out) {
  int* s = prim::lds<int, 256, 202>();
  const int t = prim::thread_id();
  s[Bug ? t + 1 : t] = t;  // @oob_store
  prim::barrier();
  out.p[t] = s[t > 0 ? t - 1 : 0];  // @oob_read
}

// The one buffer fills the 64 KiB and the read runs off its end.
template <bool Bug>
BV_KERNEL void oob_capacity_kernel(bv::program<1>, bv::ptr<float> out) {
  float* s = prim::lds<float, 16384, 203>();
  const int t = prim::thread_id();
  s[16384 - 64 + t] = 1.0f;
  prim::barrier();
  out.p[t] = s[16384 - 64 + t + (Bug ? 32 : 0)];  // @oob_past_lds
}

// ---- lds-uninit: LDS read before any lane of the workgroup wrote it -----------------------------
// The bug is workgroup 1's only: the check is per workgroup, and its report names that one.
template <bool Bug>
BV_KERNEL void uninit_kernel(bv::program<2> p, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 204>();
  const int t = prim::thread_id();
  if (!Bug || p.id(0) != 1 || t % 2 == 0) s[t] = t;
  prim::barrier();
  out.p[p.id(0) * 128 + t] = s[127 - t];  // @uninit_read
}

// ---- lds-race: waves of one workgroup meeting in LDS with no barrier between --------------------
// Each wave writes its half and reads the other's. Wave 0 runs to its end before wave 1 starts:
// its read finds wave 1's half never written, and wave 1's write then races with that read;
// wave 1's read races with wave 0's write.
template <bool Bug>
BV_KERNEL void race_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 205>();
  const int t = prim::thread_id();
  s[t] = t * 3;  // @race_write
  if (!Bug) prim::barrier();
  out.p[t] = s[(t + 64) % 128];  // @race_read
}

// Both directions at once: wave 0 reads wave 1's half then overwrites its own, wave 1 then reads
// what wave 0 wrote (a read after a write) and overwrites what wave 0 read (a write after a read).
template <bool Bug>
BV_KERNEL void war_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 206>();
  const int t = prim::thread_id();
  s[t] = t;
  prim::barrier();
  const int v = s[(t + 64) % 128];  // @war_read
  if (!Bug) prim::barrier();
  s[t] = v + 1;  // @war_write
  prim::barrier();
  out.p[t] = s[t];
}

// Replicated stores: both waves write the same values to the same words, which is no race.
BV_KERNEL void replica_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 64, 207>();
  s[prim::lane_id()] = prim::lane_id() * 5;
  prim::barrier();
  out.p[prim::thread_id()] = s[63 - prim::lane_id()];
}

// ---- lds-capacity: static LDS over the target's 64 KiB ------------------------------------------
template <bool Bug>
BV_KERNEL void capacity_kernel(bv::program<1>, bv::ptr<float> out) {
  float* a = prim::lds<float, 8192, 208>();
  float* b = prim::lds<float, (Bug ? 10000 : 4000), 209>();  // @capacity
  a[prim::thread_id()] = 1, b[prim::thread_id()] = 2;
  prim::barrier();
  out.p[prim::thread_id()] = a[prim::thread_id()] + b[prim::thread_id()];
}

// The first diagnostic, for the cases that check more than the corpus line says.
const bv::diagnostic& first(const bv::emu::result& r) {
  REQUIRE(!r.diagnostics.empty());
  return r.diagnostics.front();
}

}  // namespace

BV_EMU_CASE(emu_wave_divergence_shuffle) {
  std::vector<int> out(64);
  return bv::launch<shuffle_kernel<true>>(bv::grid(1), bv::ptr<int>{out.data()});
}
BV_EMU_CASE(emu_clean_shuffle) {
  std::vector<int> out(64);
  auto r = bv::launch<shuffle_kernel<false>>(bv::grid(1), bv::ptr<int>{out.data()});
  for (int l = 0; l < 64; ++l) CHECK(out[l] == (l ^ 1));
  return r;
}

BV_EMU_CASE(emu_wave_divergence_mfma) {
  std::vector<float> out(64);
  auto r = bv::launch<mfma_kernel<true>>(bv::grid(1), bv::ptr<float>{out.data()});
  CHECK(first(r).lanes.size() == 48);
  CHECK(first(r).headline.find("An MFMA reached by 48 of 64") != std::string::npos);
  return r;
}
BV_EMU_CASE(emu_clean_mfma) {
  std::vector<float> out(64);
  auto r = bv::launch<mfma_kernel<false>>(bv::grid(1), bv::ptr<float>{out.data()});
  // D[i][j] = sum over k < 2 of 1 * 2: register 0 of every lane.
  for (int l = 0; l < 64; ++l) CHECK(out[l] == 4.0f);
  return r;
}

BV_EMU_CASE(emu_barrier_divergence) {
  std::vector<int> out(128, 0);
  auto r = bv::launch<barrier_kernel<true>>(bv::grid(3), bv::ptr<int>{out.data()});
  CHECK(r.deadlocked);
  CHECK(first(r).detail.find("ended") != std::string::npos);
  return r;
}
BV_EMU_CASE(emu_clean_barrier) {
  std::vector<int> out(128, 0);
  return bv::launch<barrier_kernel<false>>(bv::grid(3), bv::ptr<int>{out.data()});
}

BV_EMU_CASE(emu_lds_out_of_bounds_buffer) {
  std::vector<int> out(256);
  auto r = bv::launch<oob_kernel<true>>(bv::grid(2), bv::ptr<int>{out.data()});
  CHECK(first(r).lanes == std::vector<int>{255});
  CHECK(first(r).detail.find("0 bytes past the end of LDS buffer 0") != std::string::npos);
  return r;
}
BV_EMU_CASE(emu_clean_lds_in_bounds_buffer) {
  std::vector<int> out(256);
  return bv::launch<oob_kernel<false>>(bv::grid(2), bv::ptr<int>{out.data()});
}

BV_EMU_CASE(emu_lds_out_of_bounds_past_lds) {
  std::vector<float> out(64);
  auto r = bv::launch<oob_capacity_kernel<true>>(bv::grid(1), bv::ptr<float>{out.data()});
  CHECK(first(r).detail.find("beyond the 65536 bytes of LDS gfx942 has") != std::string::npos);
  return r;
}
BV_EMU_CASE(emu_clean_lds_full) {
  std::vector<float> out(64);
  return bv::launch<oob_capacity_kernel<false>>(bv::grid(1), bv::ptr<float>{out.data()});
}

BV_EMU_CASE(emu_lds_uninit) {
  std::vector<int> out(256);
  auto r = bv::launch<uninit_kernel<true>>(bv::grid(2), bv::ptr<int>{out.data()});
  // Lanes reading the odd slots 127 - t, never written: the even lanes.
  CHECK(first(r).lanes.front() == 0);
  return r;
}
BV_EMU_CASE(emu_clean_lds_written) {
  std::vector<int> out(256);
  return bv::launch<uninit_kernel<false>>(bv::grid(2), bv::ptr<int>{out.data()});
}

BV_EMU_CASE(emu_lds_race_no_barrier) {
  std::vector<int> out(128);
  return bv::launch<race_kernel<true>>(bv::grid(1), bv::ptr<int>{out.data()});
}
BV_EMU_CASE(emu_clean_lds_barrier_between) {
  std::vector<int> out(128);
  return bv::launch<race_kernel<false>>(bv::grid(1), bv::ptr<int>{out.data()});
}

BV_EMU_CASE(emu_lds_race_both_ways) {
  std::vector<int> out(128);
  auto r = bv::launch<war_kernel<true>>(bv::grid(1), bv::ptr<int>{out.data()});
  for (const auto& d : r.diagnostics) {
    CAPTURE(d.text());
    const bool raw = d.headline.find("races with a write") != std::string::npos;
    const bool war = d.headline.find("races with a read") != std::string::npos;
    CHECK(raw != war);
  }
  return r;
}
BV_EMU_CASE(emu_clean_lds_barriers_both_ways) {
  std::vector<int> out(128);
  return bv::launch<war_kernel<false>>(bv::grid(1), bv::ptr<int>{out.data()});
}
BV_EMU_CASE(emu_clean_replicated_stores) {
  std::vector<int> out(128);
  return bv::launch<replica_kernel>(bv::grid(1), bv::ptr<int>{out.data()});
}

BV_EMU_CASE(emu_lds_capacity) {
  std::vector<float> out(64);
  auto r = bv::launch<capacity_kernel<true>>(bv::grid(1), bv::ptr<float>{out.data()});
  CHECK(out[5] == 3.0f);  // run on: the emulator holds it
  return r;
}
BV_EMU_CASE(emu_clean_lds_capacity) {
  std::vector<float> out(64);
  return bv::launch<capacity_kernel<false>>(bv::grid(1), bv::ptr<float>{out.data()});
}
