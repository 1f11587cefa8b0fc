// The breakpoint prompt as a terminal user drives it: commands come from stdin, answers go to
// stderr. `s` names the op it stops at and its line, `n` steps over the rest of a line, `p @LINE`
// prints what the op at that line made, `w` lists every value, `l` counts the programs done.
#include <doctest/doctest.h>
#include <unistd.h>

#include <bv/testing.hpp>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "bv/bv.hpp"

namespace {

constexpr int line_of_break = __LINE__ + 6;
constexpr int line_of_load = line_of_break + 1;
constexpr int line_of_sum = line_of_break + 2;
BV_KERNEL void row_sum(bv::program<1> p, bv::ptr<const float> x, bv::ptr<float> out, int n) {
  auto offs = p.id(0) * 64 + bv::arange<64>(p);
  auto m = offs < n;
  bv::breakpoint_if(p, "=2");
  auto v = bv::load(x + offs, m, 0.0f);
  auto s = bv::sum(v);
  bv::store(out + p.id(0), s);
}

// Runs the launch with `commands` on stdin and a terminal's options; returns what went to stderr.
std::string drive(const std::string& commands, const bv::tensor<float>& x, bv::tensor<float>& out,
                  int n) {
  bv::testing::schedule_scope scope(bv::schedule::sequential);
  bv::config().interactive = true;
  std::istringstream in(commands);
  std::streambuf* saved_in = std::cin.rdbuf(in.rdbuf());
  std::fflush(nullptr);
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = dup(2);
  dup2(fileno(tmp), 2);
  const auto r = bv::launch<row_sum>(bv::grid(bv::cdiv(n, 64)), x, out, n);
  std::fflush(nullptr);
  dup2(saved, 2);
  close(saved);
  std::cin.rdbuf(saved_in);
  bv::config().interactive = false;
  CHECK(r.ok());
  std::rewind(tmp);
  std::string text;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, tmp)) > 0) text.append(buf, got);
  std::fclose(tmp);
  return text;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the prompt names the op it steps to, steps by line, prints op values, counts programs") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int n = 64 * 3 + static_cast<int>(rng() % 63) + 1;  // program 3 holds the ragged tail
  auto x = bv::tensor<float>::randn("x", {n}, seed);
  auto out = bv::tensor<float>::full("out", {4}, NAN);
  const std::string text = drive("l\ns\np @" + std::to_string(line_of_load) + "\nn\np @" +
                                     std::to_string(line_of_sum) + "\nw\np @1\nc\n",
                                 x, out, n);
  INFO(text);
  CHECK(has(text, "breakpoint_if hit"));
  CHECK(has(text, "program (2,0,0)"));
  // l: programs 0 and 1 are done, 2 is stopped, 3 has not started.
  CHECK(has(text, "(0,0,0) done"));
  CHECK(has(text, "(2,0,0) stopped  <- here"));
  CHECK(has(text, "2 of 4 programs done"));
  // s stops at the load and says so.
  CHECK(has(text, "stepped to the load at " + std::string(__FILE__) + ":" +
                      std::to_string(line_of_load)));
  // p @LINE of the load: program 2's 64 values of x.
  char first[64], last[64];
  std::snprintf(first, sizeof first, "f32[%g, ", double(x(128)));
  std::snprintf(last, sizeof last, ", %g]", double(x(191)));
  CHECK(has(text, "@" + std::to_string(line_of_load) + " load ("));
  CHECK(has(text, first));
  CHECK(has(text, last));
  // n from the load's line stops at the next line's op, the sum, whose value p @LINE prints.
  CHECK(has(text,
            "stepped to the sum at " + std::string(__FILE__) + ":" + std::to_string(line_of_sum)));
  double s = 0;
  for (int i = 128; i < 192; ++i) s += x(i);
  const std::string sum_line = "@" + std::to_string(line_of_sum) + " sum (";
  const auto at = text.find(sum_line);
  REQUIRE(at != std::string::npos);
  const auto eq = text.find("= ", at);
  CHECK(std::stod(text.substr(eq + 2)) == doctest::Approx(s).epsilon(1e-4));
  // w lists the watched values and both ops.
  CHECK(has(text, "  @" + std::to_string(line_of_load) + " load = f32["));
  CHECK(has(text, "  @" + std::to_string(line_of_sum) + " sum = "));
  // A line with no op says so.
  CHECK(has(text, "no op at line 1 has run"));
  // The launch finished: every row's sum.
  for (int r = 0; r < 4; ++r) {
    double want = 0;
    for (int i = r * 64; i < std::min(n, r * 64 + 64); ++i) want += x(i);
    CHECK(out(r) == doctest::Approx(want).epsilon(1e-4));
  }
}
