// The exit status of a user's program reflects error diagnostics: through bv::exit_status(), and
// through BV_EXIT_ON_ERROR=1 for programs that return 0 regardless.
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "corpus.hpp"

namespace {
int run(const std::string& env, const std::string& arg) {
  const std::string cmd = env + " '" BV_DIAG_EXIT_HELPER "' " + arg + " 2>/dev/null";
  const int st = std::system(cmd.c_str());
  REQUIRE(st != -1);
  REQUIRE(WIFEXITED(st));
  return WEXITSTATUS(st);
}
void tiny_oob(bv::program<1> p, bv::ptr<float> out) { bv::store(out + bv::arange<64>(p), 0.0f); }
}  // namespace

TEST_CASE("exit/status_api_reflects_errors") {
  CHECK(run("BV_EXIT_ON_ERROR=0", "status") == 1);
  // In process too: the count starts at zero and an error makes it 1.
  bv::testing::schedule_scope scope(bv::schedule::sequential);
  bv::clear_diagnostics();
  CHECK(bv::exit_status() == 0);
  auto out = bv::tensor<float>::zeros("out", {16});
  bv::launch<tiny_oob>(bv::grid(1), out);
  CHECK(bv::error_count() == 1);
  CHECK(bv::exit_status() == 1);
  bv::clear_diagnostics();
  CHECK(bv::exit_status() == 0);
}

TEST_CASE("exit/env_var_fails_a_program_that_returns_0") {
  CHECK(run("BV_EXIT_ON_ERROR=0", "") == 0);
  CHECK(run("BV_EXIT_ON_ERROR=1", "") == 1);
}
