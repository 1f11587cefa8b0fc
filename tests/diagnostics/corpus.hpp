// The corpus runner. A case is a function that launches kernels; cases/NAME.expect lists the
// diagnostics it must produce, in the grammar of tests/support/expect_file.hpp (severity, kind,
// line or `@marker`, program, tensor), checked under every schedule.
#pragma once
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bv/bv.hpp"
#include "bv/testing.hpp"
#include "expect_file.hpp"

namespace bv::diag {

using expect_file::expected;

inline std::vector<expected> read_expect(const std::string& name, const std::string& source) {
  return expect_file::read(std::string(BV_DIAG_CASES) + "/" + name + ".expect", source);
}

struct run_config {
  const char* label;
  schedule sched;
  uint64_t seed;
  int threads;
};
inline const std::vector<run_config>& run_configs() {
  static const std::vector<run_config> c{{"sequential", schedule::sequential, 0, 1},
                                         {"shuffled seed 1", schedule::shuffled, 1, 1},
                                         {"shuffled seed 2", schedule::shuffled, 2, 1},
                                         {"parallel 2 threads", schedule::parallel, 0, 2}};
  return c;
}

// Runs a case under every schedule with the given checks and performance notes on, and compares
// what it reported with the expectation file.
inline void run_case(const std::string& name, const std::string& source,
                     const std::function<void()>& body, uint32_t enabled) {
  const bool notes = config().notes;
  config().notes = true;
  for (const auto& rc : run_configs()) {
    auto exp = read_expect(name, source);
    testing::schedule_scope scope(rc.sched, rc.seed, rc.threads);
    config().enabled = enabled;
    clear_diagnostics();
    body();
    const auto diags = diagnostics();  // a copy: the next run clears them
    // BV_DIAG_PRINT=1 prints the reports as a user sees them (docs/diagnostics.md shows these).
    if (rc.sched == schedule::sequential && std::getenv("BV_DIAG_PRINT"))
      for (const auto& d : diags) std::printf("%s\n", d.text().c_str());
    INFO("case " << name << " under the " << std::string(rc.label) << " schedule; diagnostics:\n"
                 << expect_file::listing(diags));
    expect_file::compare(std::move(exp), diags);
  }
  config().notes = notes;
  clear_diagnostics();
}

}  // namespace bv::diag

// BV_DIAG_CASE(name) { ...launch kernels... }: a corpus case checked against cases/name.expect,
// with every correctness check on (nan included). The wavefront notes (coalescing) judge
// performance, and the corpus's deliberately tiny kernels trip them: they are on for the cases
// made for them and for the library's kernels (BV_DIAG_CASE_ALL).
#define BV_DIAG_CASE_WITH(NAME, CHECKS)                                                      \
  static void NAME##_body();                                                                 \
  TEST_CASE("corpus/" #NAME) { ::bv::diag::run_case(#NAME, __FILE__, NAME##_body, CHECKS); } \
  static void NAME##_body()
#define BV_DIAG_CASE(NAME) BV_DIAG_CASE_WITH(NAME, ::bv::checks::all & ~::bv::checks::coalescing)
#define BV_DIAG_CASE_ALL(NAME) BV_DIAG_CASE_WITH(NAME, ::bv::checks::all)
