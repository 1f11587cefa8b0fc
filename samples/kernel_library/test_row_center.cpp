// The kernel against its reference on fresh ragged sizes, outputs poisoned first, under every
// schedule; then the library's registration, run the way blockvec runs it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bv/kernel_library.hpp>
#include <bv/testing.hpp>
#include <random>
#include <string>
#include <vector>

#include "reference.hpp"
#include "row_center.hpp"

TEST_CASE("row_center matches the double-precision reference on ragged sizes") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed << " (BV_TEST_SEED=" << seed << " repeats it)");
  std::mt19937_64 rng(seed);
  // Each block width the launcher picks, at a ragged width below it.
  for (const int widest : {256, 1024, my::max_row_center_cols}) {
    const int rows = bv::testing::ragged(rng, 1, 40);
    const int cols = bv::testing::ragged(rng, widest / 4 + 1, widest);
    CAPTURE(rows);
    CAPTURE(cols);
    const auto x = bv::tensor<float>::randn("x", {rows, cols}, seed + cols);
    const std::vector<double> want = my::ref::row_center(x);
    for (auto s : bv::testing::all_schedules()) {
      bv::testing::schedule_scope scope(s, seed);
      auto out = bv::tensor<float>::empty("out", {rows, cols});
      bv::testing::poison(out);
      const auto r = my::row_center(x, out);
      CHECK(r.ok());
      CHECK(r.programs == rows);
      BV_CHECK_CLOSE(out, want, bv::testing::tolerance<float>());
    }
  }
}

TEST_CASE("the registered entry runs, matches, and refuses rows wider than a block") {
  const auto& all = bv::library::registered();
  const auto it =
      std::find_if(all.begin(), all.end(), [](const auto& e) { return e.name == "row_center"; });
  REQUIRE(it != all.end());
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const bv::library::sizes size{bv::testing::ragged(rng, 1, 30), bv::testing::ragged(rng, 1, 3000)};
  CHECK(bv::library::refusal(*it, size).empty());
  const bv::library::outcome o = it->run(size, seed);
  CHECK(o.match);
  CHECK(o.rel_err <= o.tolerance);
  REQUIRE(o.launches.size() == 1);
  CHECK(o.launches[0].ok());
  CHECK(o.launches[0].programs == size[0]);
  const std::string why = bv::library::refusal(*it, {3, my::max_row_center_cols + 1});
  CHECK(why.find("does not fit one block") != std::string::npos);
  CHECK(bv::library::refusal(*it, {3}).find("ROWS,COLS") != std::string::npos);
}
