// Out-of-bounds accesses: reported with everything needed to find the bug, and never performed
// (a store is dropped, a load gives `other` or 0).
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "bv/bv.hpp"

namespace {

constexpr int kBlock = 64;

// The classic off-by-one: `<=` lets lane n through.
// clang-format off
constexpr int kBadStoreLine = __LINE__ + 6;
template <int W>
BV_KERNEL void copy_off_by_one(bv::program<W> p, bv::ptr<const float> x, bv::ptr<float> out,
                               int n) {
  auto offs = p.id(0) * kBlock + bv::arange<kBlock>(p);
  auto mask = offs <= n;
  bv::store(out + offs, bv::load(x + offs, mask), mask);
}
// clang-format on

// Reads through an off-by-one mask, with and without `other`, into an output large enough.
template <int W>
BV_KERNEL void load_off_by_one(bv::program<W> p, bv::ptr<const float> x, bv::ptr<float> plain,
                               bv::ptr<float> with_other, int n) {
  auto offs = p.id(0) * kBlock + bv::arange<kBlock>(p);
  auto mask = offs <= n;
  bv::store(plain + offs, bv::load(x + offs, mask), mask);
  bv::store(with_other + offs, bv::load(x + offs, mask, -5.0f), mask);
}

// A pointer that sees only the first n elements of a larger buffer: the elements past n are
// real memory the test can inspect, but out of bounds for the kernel.
struct short_view {
  bv::detail::alloc_info info;
  short_view(const bv::tensor<float>& big, int64_t n, std::string name) : info(*big.info()) {
    info.name = std::move(name);
    info.shape = {n};
    info.numel = n;
    info.shadow = bv::detail::make_shadow(n, true);
  }
  bv::ptr<float> ptr(bv::tensor<float>& big) { return {big.data(), &info}; }
};

const bv::diagnostic* find_kind(const bv::launch_result& r, const std::string& kind) {
  for (const auto& d : r.diagnostics)
    if (d.kind == kind) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("an off-by-one store is reported in full and dropped") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int n = bv::testing::ragged(rng, 100, 3000, kBlock);
  INFO("n " << n);
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s, seed);
    auto x = bv::tensor<float>::randn("x", {n}, seed);
    auto big = bv::tensor<float>::full("out_and_beyond", {n + kBlock}, 0.0f);
    for (int i = n; i < n + kBlock; ++i) big(i) = 1000.0f + i;  // sentinels past the end
    short_view out(big, n, "out");
    const auto r =
        bv::launch<copy_off_by_one<4>>(bv::grid(bv::cdiv(n, kBlock)), x, out.ptr(big), n);
    CHECK_FALSE(r.ok());
    // The read of x[n] and the write of out[n] are both reported.
    const bv::diagnostic* d = nullptr;
    int oob = 0;
    for (const auto& e : r.diagnostics)
      if (e.kind == "out-of-bounds") {
        ++oob;
        if (e.headline.find("write") != std::string::npos) d = &e;
      }
    CHECK(oob == 2);
    CHECK(r.errors >= 2);
    REQUIRE(d != nullptr);
    CHECK(d->sev == bv::severity::error);
    CHECK(d->kernel.find("copy_off_by_one") != std::string::npos);
    CHECK(d->file.find("test_bounds.cpp") != std::string::npos);
    CHECK(d->line == kBadStoreLine);
    CHECK(d->pid[0] == n / kBlock);
    CHECK(d->headline.find("write") != std::string::npos);
    REQUIRE(d->lanes.size() == 1);
    CHECK(d->lanes[0] == n % kBlock);
    REQUIRE(d->offsets.size() == 1);
    CHECK(d->offsets[0] == n);
    CHECK(d->waves.size() == 1);
    REQUIRE(d->has_tensor);
    CHECK(d->tensor.name == "out");
    CHECK(d->tensor.dtype == "f32");
    CHECK(d->tensor.shape == std::vector<int64_t>{n});
    CHECK(d->tensor.valid_begin == 0);
    CHECK(d->tensor.valid_end == n);
    // The text a person reads names the same things.
    const std::string t = d->text();
    CHECK(t.find("out-of-bounds") != std::string::npos);
    CHECK(t.find("test_bounds.cpp:" + std::to_string(kBadStoreLine)) != std::string::npos);
    CHECK(t.find("'out'") != std::string::npos);
    CHECK(t.find(std::to_string(n)) != std::string::npos);
    // And so does the JSON a tool reads.
    const auto j = nlohmann::json::parse(d->json());
    CHECK(j["kind"] == "out-of-bounds");
    CHECK(j["severity"] == "error");
    CHECK(j["kernel"].get<std::string>().find("copy_off_by_one") != std::string::npos);
    CHECK(j["file"].get<std::string>().find("test_bounds.cpp") != std::string::npos);
    CHECK(j["line"] == kBadStoreLine);
    CHECK(j["program"][0] == n / kBlock);
    CHECK(j["lanes"] == nlohmann::json::array({n % kBlock}));
    CHECK(j["offsets"] == nlohmann::json::array({n}));
    CHECK(j["tensor"]["name"] == "out");
    CHECK(j["tensor"]["dtype"] == "f32");
    CHECK(j["tensor"]["shape"] == nlohmann::json::array({n}));
    CHECK(j["tensor"]["valid_range"] == nlohmann::json::array({0, n}));
    // In-bounds elements were copied; the lane past the end was not performed.
    for (int i = 0; i < n; ++i) REQUIRE(big(i) == x(i));
    for (int i = n; i < n + kBlock; ++i) CHECK(big(i) == 1000.0f + i);
  }
}

TEST_CASE("out-of-bounds loads give 0, or `other`, and are reported") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int n = bv::testing::ragged(rng, 10, 1000, kBlock);
  INFO("n " << n);
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s, seed);
    auto big = bv::tensor<float>::randn("x_and_beyond", {n + kBlock}, seed);
    for (int i = n; i < n + kBlock; ++i) big(i) = 77.0f;  // what a performed load would see
    short_view x(big, n, "x");
    auto plain = bv::testing::poisoned<float>("plain", {n + 1});
    auto with_other = bv::testing::poisoned<float>("with_other", {n + 1});
    const auto r = bv::launch<load_off_by_one<4>>(bv::grid(bv::cdiv(n, kBlock)), x.ptr(big), plain,
                                                  with_other, n);
    int reads = 0;
    for (const auto& d : r.diagnostics)
      if (d.kind == "out-of-bounds") {
        ++reads;
        CHECK(d.headline.find("read") != std::string::npos);
        CHECK(d.tensor.name == "x");
        CHECK(d.offsets == std::vector<int64_t>{n});
      }
    CHECK(reads == 2);
    for (int i = 0; i < n; ++i) {
      REQUIRE(plain(i) == big(i));
      REQUIRE(with_other(i) == big(i));
    }
    CHECK(plain(n) == 0.0f);
    CHECK(with_other(n) == -5.0f);
  }
}

TEST_CASE("a correct mask runs clean") {
  const int n = 1000;
  for (auto s : bv::testing::all_schedules()) {
    bv::testing::schedule_scope scope(s);
    auto x = bv::tensor<float>::randn("x", {n}, 3);
    auto big = bv::tensor<float>::full("out_and_beyond", {n + kBlock}, 5.0f);
    short_view out(big, n - 1, "out");
    // n - 1 as the length: the off-by-one mask now stops exactly at the end.
    const auto r =
        bv::launch<copy_off_by_one<4>>(bv::grid(bv::cdiv(n - 1, kBlock)), x, out.ptr(big), n - 2);
    CHECK(r.ok());
    CHECK(find_kind(r, "out-of-bounds") == nullptr);
    for (int i = 0; i < n - 1; ++i) REQUIRE(big(i) == x(i));
  }
}

TEST_CASE("a tensor on huge pages starts zeroed and keeps its exact bounds") {
  // 3M + 5 floats: a buffer rounded up to whole 2 MB pages, whose padding must stay out of bounds.
  const int n = 3 * 1024 * 1024 + 5;
  auto z = bv::tensor<float>::zeros("z", {n});
  int nonzero = 0;
  for (int i = 0; i < n; ++i) nonzero += z.flat(i) != 0.0f;
  CHECK(nonzero == 0);
  auto x = bv::tensor<float>::randn("x", {n}, bv::testing::fresh_seed());
  auto out = bv::testing::poisoned<float>("out", {n});
  bv::config().enabled = bv::checks::all;
  const auto r = bv::launch<copy_off_by_one<4>>(bv::grid(bv::cdiv(n, kBlock)), x, out, n);
  const bv::diagnostic* d = find_kind(r, "out-of-bounds");
  REQUIRE(d != nullptr);
  CHECK(d->line == kBadStoreLine);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += !(out.flat(i) == x.flat(i));
  CHECK(bad == 0);
}
