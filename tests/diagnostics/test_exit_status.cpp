// The exit status of a user's program reflects error diagnostics: through bv::exit_status(), and
// through BV_EXIT_ON_ERROR=1 for programs that return 0 regardless.
#include <sys/wait.h>

#include <cstdio>
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

// A program whose blocks outgrow its fiber stack ends with a message that names it and says what
// to set, not with a bare segmentation fault; the default stack holds it.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST_CASE("exit/stack_overflow_names_the_program_and_BV_STACK") {
  const std::string cmd = "ulimit -c 0; BV_STACK=64 '" BV_DIAG_EXIT_HELPER "' big 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[512];
  while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) out.append(buf, k);
  const int st = pclose(p);
  INFO(out);
  // Killed by the fault (or the shell's 128 + signal, where it did not exec the program).
  CHECK((WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) > 128)));
  CHECK(out.find("program (0,0,0) of big_blocks overflowed its stack of 64 KiB") !=
        std::string::npos);
  CHECK(out.find("BV_STACK=256") != std::string::npos);
  CHECK(run("", "big") == 0);
}
#endif
