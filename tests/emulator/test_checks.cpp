// The emulator's checks, one small kernel each that breaks a rule (with the diagnostic's kind and
// source line it must get) and one that keeps it (no diagnostic); then the counters on kernels
// whose counts are known. The failing kernels are written against the GPU backend's primitives
// (bv/gpu/wave.hpp), where the bugs the block language cannot express can be written.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "bv/bv.hpp"

namespace prim = bv::gpu::prim;

namespace {

// ---- A wave operation reached by part of a wave
// ---------------------------------------------------
template <bool Bug>
BV_KERNEL void shuffle_kernel(bv::program<1>, bv::ptr<int> out) {
  int v = prim::thread_id();
  if (!Bug || prim::lane_id() < 32) v = prim::shuffle_xor(v, 1);
  out.p[prim::thread_id()] = v;
}
constexpr int shuffle_line = __LINE__ - 3;

template <bool Bug>
BV_KERNEL void mfma_kernel(bv::program<1>, bv::ptr<float> out) {
  prim::f32x16 c = {};
  const float a = 1.0f, b = 2.0f;
  if (!Bug || prim::lane_id() >= 16) prim::mfma_32x32x2_f32(c, a, b);
  out.p[prim::thread_id()] = c[0];
}
constexpr int mfma_line = __LINE__ - 3;

// ---- A barrier reached by part of the workgroup
// ---------------------------------------------------
template <bool Bug>
BV_KERNEL void barrier_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 201>();
  s[prim::thread_id()] = prim::thread_id();
  if (!Bug || prim::lane_id() < 32) prim::barrier();
  out.p[prim::thread_id()] = 1;
  (void)s;
}
constexpr int barrier_line = __LINE__ - 4;

// ---- LDS out of bounds ------------------------------------------------------------------------
template <bool Bug>
BV_KERNEL void oob_kernel(bv::program<4>, bv::ptr<int> out) {
  int* s = prim::lds<int, 256, 202>();
  const int t = prim::thread_id();
  s[Bug ? t + 1 : t] = t;
  prim::barrier();
  out.p[t] = s[t > 0 ? t - 1 : 0];
}
constexpr int oob_line = __LINE__ - 4;

// Past the target's 64 KiB: the one buffer fills the LDS and the access runs off its end.
template <bool Bug>
BV_KERNEL void oob_capacity_kernel(bv::program<1>, bv::ptr<float> out) {
  float* s = prim::lds<float, 16384, 203>();
  const int t = prim::thread_id();
  s[16384 - 64 + t] = 1.0f;
  prim::barrier();
  out.p[t] = s[16384 - 64 + t + (Bug ? 32 : 0)];
}
constexpr int oob_capacity_line = __LINE__ - 2;

// ---- LDS read before written ------------------------------------------------------------------
template <bool Bug>
BV_KERNEL void uninit_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 204>();
  const int t = prim::thread_id();
  if (!Bug || t % 2 == 0) s[t] = t;
  prim::barrier();
  out.p[t] = s[127 - t];
}
constexpr int uninit_line = __LINE__ - 2;

// ---- An LDS race between waves ----------------------------------------------------------------
template <bool Bug>
BV_KERNEL void race_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 205>();
  const int t = prim::thread_id();
  s[t] = t * 3;
  if (!Bug) prim::barrier();
  out.p[t] = s[(t + 64) % 128];
}
constexpr int race_line = __LINE__ - 2;

// A write after another wave's read, with no barrier between (write-after-read).
template <bool Bug>
BV_KERNEL void war_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 128, 206>();
  const int t = prim::thread_id();
  s[t] = t;
  prim::barrier();
  const int v = s[(t + 64) % 128];
  if (!Bug) prim::barrier();
  s[t] = v + 1;
  prim::barrier();
  out.p[t] = s[t];
}
constexpr int war_read_line = __LINE__ - 6, war_write_line = __LINE__ - 4;

// Replicated stores: both waves write the same values to the same words, which is no race.
BV_KERNEL void replica_kernel(bv::program<2>, bv::ptr<int> out) {
  int* s = prim::lds<int, 64, 207>();
  s[prim::lane_id()] = prim::lane_id() * 5;
  prim::barrier();
  out.p[prim::thread_id()] = s[63 - prim::lane_id()];
}

// ---- LDS over the target's capacity -------------------------------------------------------------
template <bool Bug>
BV_KERNEL void capacity_kernel(bv::program<1>, bv::ptr<float> out) {
  float* a = prim::lds<float, 8192, 208>();
  float* b = prim::lds<float, (Bug ? 10000 : 4000), 209>();
  a[prim::thread_id()] = 1, b[prim::thread_id()] = 2;
  prim::barrier();
  out.p[prim::thread_id()] = a[prim::thread_id()] + b[prim::thread_id()];
}
constexpr int capacity_line = __LINE__ - 5;

struct expect {
  const char* kind;
  int line;
};

// The first diagnostic of e's kind must be at e's line (others may come with it: a read of
// another wave's slots before it wrote them is both a race and a read before any write).
const bv::diagnostic& check_one(const bv::emu::result& r, expect e) {
  CAPTURE(r.kernel);
  REQUIRE(r.memory_checked);
  const bv::diagnostic* found = nullptr;
  for (const auto& x : r.diagnostics)
    if (!found && x.kind == e.kind) found = &x;
  REQUIRE(found != nullptr);
  const bv::diagnostic& d = *found;
  CAPTURE(d.text());
  CHECK(d.kind == e.kind);
  CHECK(d.line == e.line);
  CHECK(d.file.find("test_checks.cpp") != std::string::npos);
  CHECK(d.kernel == r.kernel);
  CHECK(!d.lanes.empty());
  CHECK(d.waves.size() == d.lanes.size());
  CHECK(!r.ok());
  return d;
}
void check_clean(const bv::emu::result& r) {
  CAPTURE(r.kernel);
  for (const auto& d : r.diagnostics) CHECK_MESSAGE(false, d.text());
  CHECK(r.ok());
}

}  // namespace

TEST_CASE("emulator checks: a shuffle and an MFMA reached by part of a wave") {
  std::vector<int> out(64);
  std::vector<float> fo(64);
  check_one(bv::launch<shuffle_kernel<true>>(bv::grid(1), bv::ptr<int>{out.data()}),
            {"wave-divergence", shuffle_line});
  check_clean(bv::launch<shuffle_kernel<false>>(bv::grid(1), bv::ptr<int>{out.data()}));
  const auto r = bv::launch<mfma_kernel<true>>(bv::grid(1), bv::ptr<float>{fo.data()});
  check_one(r, {"wave-divergence", mfma_line});
  CHECK(r.diagnostics[0].lanes.size() == 48);
  CHECK(r.diagnostics[0].headline.find("An MFMA reached by 48 of 64") != std::string::npos);
  check_clean(bv::launch<mfma_kernel<false>>(bv::grid(1), bv::ptr<float>{fo.data()}));
}

TEST_CASE("emulator checks: a barrier reached by part of the workgroup ends it, reported") {
  std::vector<int> out(128, 0);
  const auto r = bv::launch<barrier_kernel<true>>(bv::grid(3), bv::ptr<int>{out.data()});
  check_one(r, {"barrier-divergence", barrier_line});
  CHECK(r.deadlocked);
  CHECK(r.diagnostics[0].detail.find("ended") != std::string::npos);
  check_clean(bv::launch<barrier_kernel<false>>(bv::grid(3), bv::ptr<int>{out.data()}));
}

TEST_CASE("emulator checks: LDS out of bounds, past a buffer and past the target's 64 KiB") {
  std::vector<int> out(256);
  std::vector<float> fo(64);
  const auto r = bv::launch<oob_kernel<true>>(bv::grid(2), bv::ptr<int>{out.data()});
  check_one(r, {"lds-out-of-bounds", oob_line});
  CHECK(r.diagnostics[0].lanes == std::vector<int>{255});
  CHECK(r.diagnostics[0].detail.find("0 bytes past the end of LDS buffer 0") != std::string::npos);
  check_clean(bv::launch<oob_kernel<false>>(bv::grid(2), bv::ptr<int>{out.data()}));
  const auto c = bv::launch<oob_capacity_kernel<true>>(bv::grid(1), bv::ptr<float>{fo.data()});
  check_one(c, {"lds-out-of-bounds", oob_capacity_line});
  CHECK(c.diagnostics[0].detail.find("beyond the 65536 bytes of LDS gfx942 has") !=
        std::string::npos);
  check_clean(bv::launch<oob_capacity_kernel<false>>(bv::grid(1), bv::ptr<float>{fo.data()}));
}

TEST_CASE("emulator checks: LDS read before written, per workgroup") {
  std::vector<int> out(128);
  const auto r = bv::launch<uninit_kernel<true>>(bv::grid(2), bv::ptr<int>{out.data()});
  // Lanes reading the odd slots 127 - t, never written: the even lanes.
  CHECK(check_one(r, {"lds-uninit", uninit_line}).lanes.front() == 0);
  check_clean(bv::launch<uninit_kernel<false>>(bv::grid(2), bv::ptr<int>{out.data()}));
}

TEST_CASE("emulator checks: LDS races between waves in one barrier epoch") {
  std::vector<int> out(128);
  const auto r = bv::launch<race_kernel<true>>(bv::grid(1), bv::ptr<int>{out.data()});
  check_one(r, {"lds-race", race_line});
  check_clean(bv::launch<race_kernel<false>>(bv::grid(1), bv::ptr<int>{out.data()}));
  // Wave 0 reads wave 1's slots and writes its own; wave 1 then reads what wave 0 wrote (a read
  // after a write) and overwrites what wave 0 read (a write after a read): both reported.
  const auto w = bv::launch<war_kernel<true>>(bv::grid(1), bv::ptr<int>{out.data()});
  CHECK(check_one(w, {"lds-race", war_read_line}).headline.find("races with a write") !=
        std::string::npos);
  REQUIRE(w.diagnostics.size() == 2);
  CHECK(w.diagnostics[1].line == war_write_line);
  CHECK(w.diagnostics[1].headline.find("races with a read") != std::string::npos);
  check_clean(bv::launch<war_kernel<false>>(bv::grid(1), bv::ptr<int>{out.data()}));
  check_clean(bv::launch<replica_kernel>(bv::grid(1), bv::ptr<int>{out.data()}));
}

TEST_CASE("emulator checks: static LDS over the target's capacity") {
  std::vector<float> fo(64);
  const auto r = bv::launch<capacity_kernel<true>>(bv::grid(1), bv::ptr<float>{fo.data()});
  check_one(r, {"lds-capacity", capacity_line});
  CHECK(fo[5] == 3.0f);  // run on: the emulator holds it
  check_clean(bv::launch<capacity_kernel<false>>(bv::grid(1), bv::ptr<float>{fo.data()}));
}

// ---- Counters
// -------------------------------------------------------------------------------------
namespace {
// Lane l reads word l * STRIDE (4 bytes) of LDS: stride 32 puts each phase's 32 lanes on one bank.
template <int STRIDE>
BV_KERNEL void bank_kernel(bv::program<1>, bv::ptr<float> out) {
  float* s = prim::lds<float, 64 * 32 + 4, 210>();
  for (int i = prim::lane_id(); i < 64 * 32 + 4; i += 64) s[i] = static_cast<float>(i);
  prim::barrier();
  out.p[prim::lane_id()] = s[prim::lane_id() * STRIDE];
}
// 16-byte reads: lane l reads words 4l .. 4l + 3 (phases of 8 lanes cover 32 words: no
// conflict), or with a 128-byte stride, words 32l ..: the 8 lanes of a phase all hit banks 0-3.
template <int STRIDE_WORDS>
BV_KERNEL void bank128_kernel(bv::program<1>, bv::ptr<float> out) {
  float* s = prim::lds<float, 64 * 32 + 4, 211>();
  for (int i = prim::lane_id(); i < 64 * 32 + 4; i += 64) s[i] = static_cast<float>(i);
  prim::barrier();
  uint4 v;
  __builtin_memcpy(&v, s + prim::lane_id() * STRIDE_WORDS, 16);
  float f;
  __builtin_memcpy(&f, &v.y, 4);
  out.p[prim::lane_id()] = f;
}
// Only lanes 0-15 store.
BV_KERNEL void quarter_kernel(bv::program<1>, bv::ptr<float> out) {
  if (prim::lane_id() < 16) out.p[prim::lane_id()] = 1.0f;
}
}  // namespace

TEST_CASE("emulator counters: LDS bank conflicts in 128-byte phases") {
  auto out = bv::tensor<float>::empty("out", {64});
  auto conflicts_of = [](const bv::emu::result& r) {
    CHECK(r.ok());
    return r.counts.lds_bank_conflicts;
  };
  // The fill loop (stride 1 across lanes, 33 instructions, 4 words past 32 * 64 in the last) has
  // no conflict; the read has: stride 1 none, stride 2 one extra word per bank in each of the two
  // phases, stride 32 all 32 lanes of a phase on bank 0: 31 extra cycles per phase.
  CHECK(conflicts_of(bv::launch<bank_kernel<1>>(bv::grid(1), out)) == 0);
  CHECK(conflicts_of(bv::launch<bank_kernel<2>>(bv::grid(1), out)) == 2);
  CHECK(conflicts_of(bv::launch<bank_kernel<32>>(bv::grid(1), out)) == 62);
  CHECK(conflicts_of(bv::launch<bank128_kernel<4>>(bv::grid(1), out)) == 0);
  // 8 phases of 8 lanes; each lane's 4 words on banks 0-3: 8 distinct words per bank.
  CHECK(conflicts_of(bv::launch<bank128_kernel<32>>(bv::grid(1), out)) == 8 * 7);
  const auto r = bv::launch<bank_kernel<1>>(bv::grid(1), out);
  CHECK(r.counts.lds_read_bytes == 64 * 4);
  CHECK(r.counts.lds_write_bytes == (64 * 32 + 4) * 4);
  CHECK(r.counts.global_write_bytes == 64 * 4);
  CHECK(r.counts.global_read_bytes == 0);
}

TEST_CASE("emulator counters: active lanes of memory instructions") {
  auto out = bv::tensor<float>::empty("out", {64});
  const auto r = bv::launch<quarter_kernel>(bv::grid(3), out);
  CHECK(r.counts.wave_instructions == 3);
  CHECK(r.counts.active_lanes == 3 * 16);
  CHECK(r.counts.active_lane_fraction() == doctest::Approx(0.25));
  CHECK(r.counts.global_write_bytes == 3 * 16 * 4);
}
