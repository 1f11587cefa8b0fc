// Program-id conditions (bv/condition.hpp): the shared table (condition_cases.hpp) through the
// one parser, the compile-time literal and the interpreter's entry points (pid_cond,
// parse_pid_cond, print_if, breakpoint_if, BV_BREAK); and random conditions against an
// independent regex reference. tests/lang/condition_device.cu checks the GPU side.
#include <doctest/doctest.h>
#include <unistd.h>

#include <bv/testing.hpp>
#include <climits>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bv/bv.hpp"
#include "bv/cpu/check.hpp"
#include "condition_cases.hpp"

namespace {

using triple = std::tuple<int, int, int>;

// Every valid row holds as a compile-time literal too: a wrong answer fails the build.
#define BV_STATIC_ROW(text, a, b, c, want) \
  static_assert(bv::cond_literal(text).matches(a, b, c) == (want), text);
BV_COND_VALID(BV_STATIC_ROW)
#undef BV_STATIC_ROW
#define BV_STATIC_BAD(text, err, pos)                                \
  static_assert(bv::parse_cond(text).error == bv::cond_error::err && \
                    bv::parse_cond(text).error_pos == (pos) &&       \
                    !bv::parse_cond(text).matches(0, 0, 0),          \
                text);
BV_COND_MALFORMED(BV_STATIC_BAD)
#undef BV_STATIC_BAD

struct valid_row {
  const char* text;
  bv::cond_literal lit;
  int a, b, c;
  bool want;
};
struct bad_row {
  const char* text;
  bv::cond_error err;
  int pos;
};
#define BV_VALID_ROW(text, a, b, c, want) valid_row{text, bv::cond_literal(text), a, b, c, want},
const std::vector<valid_row> valid_rows = {BV_COND_VALID(BV_VALID_ROW)};
#undef BV_VALID_ROW
#define BV_BAD_ROW(text, err, pos) bad_row{text, bv::cond_error::err, pos},
const std::vector<bad_row> bad_rows = {BV_COND_MALFORMED(BV_BAD_ROW)};
#undef BV_BAD_ROW

// The reference: the grammar of bv/condition.hpp's comment, written with std::regex and 64-bit
// arithmetic. nullopt when the text is malformed.
struct ref_part {
  std::string op;  // empty: any
  long long value = 0;
};
std::optional<std::vector<ref_part>> ref_parse(const std::string& text) {
  std::vector<std::string> parts(1);
  for (char ch : text) {
    if (ch == ',')
      parts.emplace_back();
    else
      parts.back() += ch;
  }
  if (parts.size() > 3) return std::nullopt;
  static const std::regex part_re(R"(^[ \t]*(?:(==|!=|<=|>=|=|<|>)[ \t]*([+-]?)([0-9]+)[ \t]*)?$)");
  std::vector<ref_part> out;
  for (const auto& p : parts) {
    std::smatch m;
    if (!std::regex_match(p, m, part_re)) return std::nullopt;
    ref_part r;
    if (m[1].matched) {
      r.op = m[1].str();
      std::string digits = m[3].str();
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
      if (digits.size() > 12) return std::nullopt;
      r.value = std::stoll(digits) * (m[2].str() == "-" ? -1 : 1);
      if (r.value < INT_MIN || r.value > INT_MAX) return std::nullopt;
    }
    out.push_back(r);
  }
  return out;
}
bool ref_matches(const std::vector<ref_part>& parts, const triple& pid) {
  const long long id[3] = {std::get<0>(pid), std::get<1>(pid), std::get<2>(pid)};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& [op, v] = parts[i];
    const long long x = id[i];
    const bool ok = op.empty()                  ? true
                    : (op == "=" || op == "==") ? x == v
                    : op == "!="                ? x != v
                    : op == "<"                 ? x < v
                    : op == "<="                ? x <= v
                    : op == ">"                 ? x > v
                                                : x >= v;
    if (!ok) return false;
  }
  return true;
}

// Runs f with file descriptor 1 going to a temporary file; returns what was written.
std::string capture_stdout(const std::function<void()>& f) {
  std::fflush(nullptr);
  std::cout.flush();
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = dup(1);
  dup2(fileno(tmp), 1);
  f();
  std::fflush(nullptr);
  std::cout.flush();
  dup2(saved, 1);
  close(saved);
  std::rewind(tmp);
  std::string out;
  char buf[4096];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, tmp)) > 0) out.append(buf, got);
  std::fclose(tmp);
  return out;
}

std::set<triple> printed(const std::string& out, const std::string& tag) {
  std::set<triple> pids;
  std::istringstream is(out);
  std::string line;
  while (std::getline(is, line)) {
    int a, b, c;
    if (line.find(" " + tag) != std::string::npos &&
        std::sscanf(line.c_str(), "[pid (%d,%d,%d)", &a, &b, &c) == 3)
      pids.insert({a, b, c});
  }
  return pids;
}

// The literal conditions the launch tests use, and the programs each selects.
template <int W>
BV_KERNEL void literal_kernel(bv::program<W> p, bv::ptr<int32_t> out) {
  bv::print_if(p, "= 3", "spaced", 1);
  bv::print_if(p, " != 1 , < 2", "second", 2);
  bv::print_if(p, "", "every", 3);
  bv::print_if(p, ",,", "commas", 4);
  bv::breakpoint_if(p, ">4, <=1");
  const int flat = p.id(1) * p.num_programs(0) + p.id(0);
  bv::store(out + flat, flat);
}

template <int W>
BV_KERNEL void runtime_kernel(bv::program<W> p, const char* cond, bv::ptr<int32_t> out) {
  bv::print_if(p, cond, "runtime", 1);
  const int flat = p.id(1) * p.num_programs(0) + p.id(0);
  bv::store(out + flat, flat);
}

// Records the programs that stop (breakpoint_if, BV_BREAK) and lets them go on.
struct stop_recorder {
  std::mutex mu;
  std::set<triple> pids;
  std::vector<std::string> why;
  stop_recorder() {
    bv::detail::set_stop_handler([this](bv::detail::program_state& s, const std::source_location*,
                                        const char* w, const bv::detail::access*) {
      std::lock_guard lk(mu);
      pids.insert({s.pid[0], s.pid[1], s.pid[2]});
      why.emplace_back(w);
      return bv::detail::stop_action::resume;
    });
  }
  ~stop_recorder() { bv::detail::set_stop_handler({}); }
};

// The programs of a gx x gy grid that the reference selects.
std::set<triple> grid_where(int gx, int gy, const std::string& cond) {
  const auto ref = ref_parse(cond);
  REQUIRE(ref.has_value());
  std::set<triple> s;
  for (int a = 0; a < gx; ++a)
    for (int b = 0; b < gy; ++b)
      if (ref_matches(*ref, {a, b, 0})) s.insert({a, b, 0});
  return s;
}

}  // namespace

TEST_CASE("the condition table: one parser, the literal, pid_cond and parse_pid_cond agree") {
  for (const auto& r : valid_rows) {
    CAPTURE(r.text);
    CAPTURE(r.a);
    CAPTURE(r.b);
    CAPTURE(r.c);
    const std::string text = r.text;
    const auto parsed = bv::parse_cond(r.text);
    REQUIRE(parsed.ok());
    CHECK(parsed.matches(r.a, r.b, r.c) == r.want);
    CHECK(bv::parse_cond(text.data(), static_cast<int>(text.size())).matches(r.a, r.b, r.c) ==
          r.want);
    CHECK(r.lit.matches(r.a, r.b, r.c) == r.want);
    // The interpreter: a string made at run time, and the checked literal.
    CHECK(bv::pid_cond(text).matches({r.a, r.b, r.c}) == r.want);
    CHECK(bv::pid_cond(r.lit).matches({r.a, r.b, r.c}) == r.want);
    bool got = !r.want;
    std::string err;
    REQUIRE(bv::parse_pid_cond(text, {r.a, r.b, r.c}, got, err));
    CHECK(got == r.want);
    // The reference agrees with the table (so the random test below checks the right grammar).
    const auto ref = ref_parse(text);
    REQUIRE(ref.has_value());
    CHECK(ref_matches(*ref, {r.a, r.b, r.c}) == r.want);
  }
}

TEST_CASE("malformed conditions: the error, where it is, and the message the interpreter shows") {
  for (const auto& r : bad_rows) {
    CAPTURE(r.text);
    const auto parsed = bv::parse_cond(r.text);
    CHECK(parsed.error == r.err);
    CHECK(parsed.error_pos == r.pos);
    CHECK_FALSE(ref_parse(r.text).has_value());
    for (auto pid : {triple{0, 0, 0}, triple{1, 2, 3}, triple{3, 0, 0}})
      CHECK_FALSE(parsed.matches(std::get<0>(pid), std::get<1>(pid), std::get<2>(pid)));
    bool got = true;
    std::string err;
    CHECK_FALSE(bv::parse_pid_cond(r.text, {0, 0, 0}, got, err));
    CAPTURE(err);
    CHECK(err.find(std::string("'") + r.text + "'") != std::string::npos);
    CHECK(err.find(bv::cond_error_text(r.err)) != std::string::npos);
    CHECK(err.find("at character " + std::to_string(r.pos + 1)) != std::string::npos);
    const std::string bad(r.text + parsed.error_pos, static_cast<std::size_t>(parsed.error_len));
    if (!bad.empty()) CHECK(err.find("'" + bad + "'") != std::string::npos);
  }
  // The offending text is quoted whole: the operator, the number, the extra part.
  std::string err;
  bool got = false;
  CHECK_FALSE(bv::parse_pid_cond(",=0,=>1", {0, 0, 0}, got, err));
  CHECK(err.find("'=>'") != std::string::npos);
  CHECK_FALSE(bv::parse_pid_cond("=99999999999", {0, 0, 0}, got, err));
  CHECK(err.find("'99999999999'") != std::string::npos);
  CHECK_FALSE(bv::parse_pid_cond("=1,=2,=3,=4", {0, 0, 0}, got, err));
  CHECK(err.find("',=4'") != std::string::npos);
  CHECK(err.find("more than three") != std::string::npos);
}

TEST_CASE("random conditions: the parser and the interpreter agree with the regex reference") {
  const uint64_t seed = bv::testing::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  // Pieces that make mostly valid conditions, with some of every kind of mistake mixed in.
  const std::vector<std::string> good_ops = {"=", "==", "!=", "<", "<=", ">", ">="};
  const std::vector<std::string> bad_ops = {"=>", "<>", "!", "===", "=<", "~", "> ="};
  const std::vector<std::string> spaces = {"", "", "", " ", "  ", "\t", " \t "};
  const auto number = [&]() -> std::string {
    switch (rng() % 8) {
      case 0:
        return "";
      case 1:
        return "-" + std::to_string(rng() % 4);
      case 2:
        return "+" + std::to_string(rng() % 4);
      case 3:
        return std::to_string(2147483640LL + static_cast<long long>(rng() % 16));
      case 4:
        return "-" + std::to_string(2147483640LL + static_cast<long long>(rng() % 16));
      case 5:
        return std::string(1 + rng() % 3, '0') + std::to_string(rng() % 6);
      case 6:
        return std::to_string(rng() % 6) + (rng() % 2 ? "x" : " 1");
      default:
        return std::to_string(rng() % 6);
    }
  };
  const auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  int valid = 0, malformed = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string text;
    const int parts = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < parts; ++k) {
      if (k) text += ",";
      text += pick(spaces);
      if (rng() % 5 == 0) continue;  // an empty part
      text += (rng() % 8 == 0 ? pick(bad_ops) : pick(good_ops)) + pick(spaces) + number() +
              pick(spaces);
    }
    CAPTURE(text);
    const auto ref = ref_parse(text);
    const auto got = bv::parse_cond(text.data(), static_cast<int>(text.size()));
    REQUIRE(got.ok() == ref.has_value());
    const bv::pid_cond interp(text);
    if (!ref) {
      ++malformed;
      CHECK(got.error_pos >= 0);
      CHECK(got.error_pos <= static_cast<int>(text.size()));
      continue;
    }
    ++valid;
    for (int t = 0; t < 8; ++t) {
      // Program ids next to the numbers the conditions use, and a few large ones.
      const auto id = [&] {
        return rng() % 8 == 0 ? 2147483640 + static_cast<int>(rng() % 8)
                              : static_cast<int>(rng() % 7);
      };
      const triple pid{id(), id(), id()};
      const bool want = ref_matches(*ref, pid);
      CHECK(got.matches(std::get<0>(pid), std::get<1>(pid), std::get<2>(pid)) == want);
      CHECK(interp.matches({std::get<0>(pid), std::get<1>(pid), std::get<2>(pid)}) == want);
    }
  }
  // Both kinds were drawn often enough for the comparison to mean something.
  INFO(valid << " valid and " << malformed << " malformed conditions");
  CHECK(valid > 800);
  CHECK(malformed > 800);
}

TEST_CASE("print_if and breakpoint_if with literal conditions select the table's programs") {
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s);
    bv::config().interactive = false;
    const int gx = 7, gy = 3;
    bv::tensor<int32_t> out("out", {gx * gy});
    bv::launch_result r;
    stop_recorder stops;
    const std::string text =
        capture_stdout([&] { r = bv::launch<literal_kernel<4>>(bv::grid(gx, gy), out); });
    CHECK(r.ok());
    CHECK(printed(text, "spaced") == grid_where(gx, gy, "= 3"));
    CHECK(printed(text, "second") == grid_where(gx, gy, " != 1 , < 2"));
    CHECK(printed(text, "every").size() == static_cast<std::size_t>(gx * gy));
    CHECK(printed(text, "commas").size() == static_cast<std::size_t>(gx * gy));
    CHECK(stops.pids == grid_where(gx, gy, ">4, <=1"));
    for (const auto& w : stops.why) CHECK(w == std::string("breakpoint_if hit"));
    // The source line is the kernel's, not this header's.
    CHECK(text.find("test_condition.cpp") != std::string::npos);
    for (int i = 0; i < gx * gy; ++i) CHECK(out(i) == i);
  }
}

TEST_CASE("runtime conditions: print_if and BV_BREAK parse them, and a bad one is reported") {
  bv::testing::schedule_scope scope(bv::schedule::sequential);
  bv::config().interactive = false;
  const int gx = 6, gy = 2;
  for (const auto& r : valid_rows) {
    CAPTURE(r.text);
    bv::tensor<int32_t> out("out", {gx * gy});
    bv::launch_result res;
    const std::string text =
        capture_stdout([&] { res = bv::launch<runtime_kernel<4>>(bv::grid(gx, gy), r.text, out); });
    CHECK(res.ok());
    CHECK(printed(text, "runtime") == grid_where(gx, gy, r.text));
  }
  for (const auto& r : bad_rows) {
    CAPTURE(r.text);
    bv::tensor<int32_t> out("out", {gx * gy});
    bv::launch_result res;
    const std::string text =
        capture_stdout([&] { res = bv::launch<runtime_kernel<4>>(bv::grid(gx, gy), r.text, out); });
    CHECK(printed(text, "runtime").empty());
    CHECK_FALSE(res.ok());
    int found = 0;
    for (const auto& d : res.diagnostics)
      if (d.kind == "bad-condition") {
        ++found;
        CHECK(d.headline.find(std::string("'") + r.text + "'") != std::string::npos);
        CHECK(d.headline.find(bv::cond_error_text(r.err)) != std::string::npos);
      }
    CHECK(found == 1);
    for (int i = 0; i < gx * gy; ++i) CHECK(out(i) == i);  // every program still ran
  }
  // BV_BREAK: a condition from the environment stops each matching program once.
  for (const char* cond : {"= 3", ">=4, =1", ",=0"}) {
    CAPTURE(cond);
    bv::config().break_cond = cond;
    stop_recorder stops;
    bv::tensor<int32_t> out("out", {gx * gy});
    const auto res = bv::launch<runtime_kernel<4>>(bv::grid(gx, gy), "=-1", out);
    CHECK(res.ok());
    CHECK(stops.pids == grid_where(gx, gy, cond));
  }
  bv::config().break_cond = "=1,=2,=3,=4";
  {
    stop_recorder stops;
    bv::tensor<int32_t> out("out", {gx * gy});
    const auto res = bv::launch<runtime_kernel<4>>(bv::grid(gx, gy), "=-1", out);
    CHECK(stops.pids.empty());
    CHECK_FALSE(res.ok());
    int found = 0;
    for (const auto& d : res.diagnostics)
      if (d.kind == "bad-condition") {
        ++found;
        CHECK(d.headline.find("BV_BREAK==1,=2,=3,=4") != std::string::npos);
        CHECK(d.headline.find(bv::cond_error_text(bv::cond_error::too_many_parts)) !=
              std::string::npos);
        CHECK(d.file.empty());  // no line of the kernel wrote it, and no program
        CHECK_FALSE(d.has_pid);
      }
    CHECK(found == 1);
  }
  bv::config().break_cond.clear();
}
