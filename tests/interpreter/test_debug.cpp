// The debugging aids Triton users know: print_if / breakpoint_if on program ids (condition strings
// and predicates), check_tensors_ready, and clear errors for bad conditions, flags and grids.
#include <doctest/doctest.h>
#include <unistd.h>

#include <bv/testing.hpp>
#include <cstdio>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bv/bv.hpp"

namespace {

// Runs f with file descriptor fd (1 or 2) going to a temporary file; returns what was written.
std::string capture(int fd, const std::function<void()>& f) {
  std::fflush(nullptr);
  std::cout.flush();
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = dup(fd);
  dup2(fileno(tmp), fd);
  f();
  std::fflush(nullptr);
  std::cout.flush();
  dup2(saved, fd);
  close(saved);
  std::rewind(tmp);
  std::string out;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, tmp)) > 0) out.append(buf, got);
  std::fclose(tmp);
  return out;
}

// The program ids that print_if printed, from lines "[pid (a,b,c) file:line] ...".
std::set<std::pair<int, int>> printed_pids(const std::string& out) {
  std::set<std::pair<int, int>> pids;
  std::istringstream is(out);
  std::string line;
  while (std::getline(is, line)) {
    int a, b, c;
    if (std::sscanf(line.c_str(), "[pid (%d,%d,%d)", &a, &b, &c) == 3) pids.insert({a, b});
  }
  return pids;
}

template <int W>
BV_KERNEL void print_kernel(bv::program<W> p, const char* cond, bv::ptr<int32_t> out) {
  auto offs = bv::arange<4>(p) + p.id(0) * 10;
  bv::print_if(p, cond, "offs", offs);
  bv::store(out + p.id(1) * p.num_programs(0) + p.id(0), 1);
}

template <int W>
BV_KERNEL void print_pred_kernel(bv::program<W> p, bv::ptr<int32_t> out) {
  bv::print_if(
      p, [](int a, int b, int) { return a == b; }, "diag", p.id(0));
  bv::print_if(
      p, [](int a) { return a == 3; }, "three");
  bv::store(out + p.id(1) * p.num_programs(0) + p.id(0), 1);
}

template <int W>
BV_KERNEL void break_kernel(bv::program<W> p, bv::ptr<const float> x, bv::ptr<float> out, int n) {
  auto offs = p.id(0) * 64 + bv::arange<64>(p);
  auto v = bv::load(x + offs, offs < n, 0.0f);
  bv::watch(p, "v", v);
  bv::breakpoint_if(p, "=1");
  bv::store(out + offs, v * 2, offs < n);
}

template <int W>
BV_KERNEL void bad_cond_kernel(bv::program<W> p, bv::ptr<int32_t> out) {
  // Through a pointer: a malformed string literal would not compile (bv/condition.hpp).
  const char* cond = "=>1";
  bv::print_if(p, cond, "never");
  bv::store(out + p.id(0), 1);
}

std::vector<std::pair<int, int>> all_pids(int gx, int gy) {
  std::vector<std::pair<int, int>> v;
  for (int a = 0; a < gx; ++a)
    for (int b = 0; b < gy; ++b) v.push_back({a, b});
  return v;
}

}  // namespace

TEST_CASE("condition strings select program ids as Triton users write them") {
  struct cse {
    const char* text;
    std::function<bool(int, int)> want;
  };
  const std::vector<cse> cases = {
      {"=0", [](int a, int) { return a == 0; }},
      {"=0,>1", [](int a, int b) { return a == 0 && b > 1; }},
      {">=2", [](int a, int) { return a >= 2; }},
      {"<=1", [](int a, int) { return a <= 1; }},
      {"!=0", [](int a, int) { return a != 0; }},
      {",=1", [](int, int b) { return b == 1; }},
      {"<2, >=1", [](int a, int b) { return a < 2 && b >= 1; }},
      {"", [](int, int) { return true; }},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    for (auto [a, b] : all_pids(4, 4)) {
      bool got = false;
      std::string err;
      REQUIRE(bv::parse_pid_cond(c.text, {a, b, 0}, got, err));
      CHECK(got == c.want(a, b));
      CHECK(bv::pid_cond(c.text).matches({a, b, 0}) == c.want(a, b));
    }
  }
  for (const char* bad : {"=x", "=>1", "~1", "=1,=2,=3,=4", "1", ">"}) {
    CAPTURE(bad);
    bool got = true;
    std::string err;
    CHECK_FALSE(bv::parse_pid_cond(bad, {0, 0, 0}, got, err));
    CHECK_FALSE(err.empty());
  }
}

TEST_CASE("print_if prints for the matching programs only, under every schedule") {
  const char* conds[] = {"=0", "=0,>1", ">=2", "<=1", "!=0", ",=1"};
  for (auto s : bv::testing::all_schedules())
    for (const char* cond : conds) {
      INFO("schedule " << std::string(bv::schedule_name(s)));
      CAPTURE(cond);
      bv::testing::schedule_scope scope(s);
      bv::tensor<int32_t> out("out", {3 * 4});
      bv::launch_result r;
      const std::string text =
          capture(1, [&] { r = bv::launch<print_kernel<4>>(bv::grid(4, 3), cond, out); });
      CHECK(r.ok());
      std::set<std::pair<int, int>> want;
      bool ok = false;
      std::string err;
      for (auto [a, b] : all_pids(4, 3)) {
        REQUIRE(bv::parse_pid_cond(cond, {a, b, 0}, ok, err));
        if (ok) want.insert({a, b});
      }
      CHECK(printed_pids(text) == want);
      CHECK(text.find("test_debug.cpp") != std::string::npos);
      if (want.count({2, 1})) CHECK(text.find("[pid (2,1,0)") != std::string::npos);
      // The value printed is the block of that program.
      if (want.count({0, 0})) CHECK(text.find("offs i32[0, 1, 2, 3]") != std::string::npos);
      for (int i = 0; i < 12; ++i) CHECK(out(i) == 1);  // every program still ran
    }
}

TEST_CASE("print_if takes a predicate on the program ids") {
  bv::testing::schedule_scope scope(bv::schedule::sequential);
  bv::tensor<int32_t> out("out", {16});
  bv::launch_result r;
  const std::string text =
      capture(1, [&] { r = bv::launch<print_pred_kernel<4>>(bv::grid(4, 4), out); });
  CHECK(r.ok());
  std::set<std::pair<int, int>> diag, three;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) {
    int a, b, c;
    REQUIRE(std::sscanf(line.c_str(), "[pid (%d,%d,%d)", &a, &b, &c) == 3);
    (line.find("diag") != std::string::npos ? diag : three).insert({a, b});
  }
  CHECK(diag == std::set<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 2}, {3, 3}});
  CHECK(three == std::set<std::pair<int, int>>{{3, 0}, {3, 1}, {3, 2}, {3, 3}});
}

TEST_CASE("breakpoint_if without a terminal prints the program's state and continues") {
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s);
    bv::config().interactive = false;
    const int n = 200;
    auto x = bv::tensor<float>::randn("x", {n}, 9);
    auto out = bv::testing::poisoned<float>("out", {n});
    bv::launch_result r;
    const std::string err =
        capture(2, [&] { r = bv::launch<break_kernel<4>>(bv::grid(bv::cdiv(n, 64)), x, out, n); });
    CHECK(r.ok());
    CHECK(err.find("breakpoint_if hit") != std::string::npos);
    CHECK(err.find("program (1,0,0)") != std::string::npos);
    CHECK(err.find("program (0,0,0)") == std::string::npos);
    CHECK(err.find("continuing") != std::string::npos);
    for (int i = 0; i < n; ++i) REQUIRE(out(i) == x(i) * 2);
  }
}

TEST_CASE("a malformed condition string is a bad-condition diagnostic") {
  bv::testing::schedule_scope scope(bv::schedule::sequential);
  // Every launch that uses it hears about it once, not once per program, not once per process.
  for (int launch = 0; launch < 2; ++launch) {
    CAPTURE(launch);
    bv::tensor<int32_t> out("out", {8});
    bv::launch_result r;
    const std::string text =
        capture(1, [&] { r = bv::launch<bad_cond_kernel<4>>(bv::grid(8), out); });
    CHECK(text.find("never") == std::string::npos);
    CHECK_FALSE(r.ok());
    int found = 0;
    for (const auto& d : r.diagnostics)
      if (d.kind == "bad-condition") {
        ++found;
        CHECK(d.headline.find("=>1") != std::string::npos);
        CHECK(d.file.find("test_debug.cpp") != std::string::npos);
      }
    CHECK(found == 1);
    for (int i = 0; i < 8; ++i) CHECK(out(i) == 1);
  }
}

TEST_CASE("parse_checks and parse_schedule name what is wrong") {
  uint32_t bits = 0;
  std::string err;
  CHECK(bv::parse_checks("all", bits, err));
  CHECK(bits == bv::checks::all);
  CHECK(bv::parse_checks("none", bits, err));
  CHECK(bits == 0);
  CHECK(bv::parse_checks("bounds,race", bits, err));
  CHECK(bits == (bv::checks::bounds | bv::checks::race));
  CHECK_FALSE(bv::parse_checks("bounds,bogus", bits, err));
  CHECK(err.find("bogus") != std::string::npos);
  CHECK(err.find("bounds") != std::string::npos);  // lists the known ones
  bv::schedule s{};
  CHECK(bv::parse_schedule("shuffled", s, err));
  CHECK(s == bv::schedule::shuffled);
  CHECK(bv::parse_schedule("parallel", s, err));
  CHECK(s == bv::schedule::parallel);
  err.clear();
  CHECK_FALSE(bv::parse_schedule("random", s, err));
  CHECK(err.find("random") != std::string::npos);
  CHECK(err.find("sequential") != std::string::npos);
}

TEST_CASE("check_tensors_ready rejects a transposed view") {
  bv::clear_diagnostics();
  auto a = bv::tensor<float>::randn("a", {8, 16}, 1);
  auto b = bv::tensor<float>::randn("b", {16}, 2);
  CHECK(bv::check_tensors_ready(a, b));
  CHECK(bv::diagnostics().empty());
  const auto t = a.transposed();
  CHECK_FALSE(t.is_contiguous());
  bv::testing::schedule_scope scope(bv::schedule::sequential);  // quiet
  CHECK_FALSE(bv::check_tensors_ready(b, t));
  REQUIRE(bv::diagnostics().size() == 1);
  const auto& d = bv::diagnostics()[0];
  CHECK(d.kind == "non-contiguous");
  CHECK(d.sev == bv::severity::error);
  CHECK(d.tensor.name == "a.T");
  CHECK(d.tensor.shape == std::vector<int64_t>{16, 8});
  CHECK(d.tensor.strides == std::vector<int64_t>{1, 16});
  CHECK(d.text().find("NOT contiguous") != std::string::npos);
  CHECK(bv::check_tensors_ready(t.contiguous("a_t")));
  bv::clear_diagnostics();
}

TEST_CASE("launching an empty grid is a clear error, not a silent no-op") {
  bv::testing::schedule_scope scope(bv::schedule::sequential);
  bv::tensor<int32_t> out("out", {8});
  for (bv::grid g : {bv::grid(0), bv::grid(4, 0), bv::grid(-1)}) {
    const auto r = bv::launch<bad_cond_kernel<4>>(g, out);
    CHECK_FALSE(r.ok());
    CHECK(r.errors == 1);
    CHECK(r.programs == 0);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].kind == "launch");
    CHECK(r.diagnostics[0].headline.find("grid") != std::string::npos);
    CHECK(r.diagnostics[0].kernel.find("bad_cond_kernel") != std::string::npos);
  }
  for (int i = 0; i < 8; ++i) CHECK(out(i) == 0);
}
