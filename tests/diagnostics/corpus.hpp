// The corpus runner. A case is a function that launches kernels; cases/NAME.expect lists the
// diagnostics it must produce, one per line:
//     [SEVERITY] KIND LINE PROGRAM TENSOR
// SEVERITY error, warning or note (the corpus's files all give it; it is checked when given);
// KIND as in diagnostic::kind; LINE a source line number of the case's file, `@marker` for the
// line carrying the comment `// @marker`, `-` for none, or `*` for any (a report from inside a
// library kernel, whose header's lines move as it is edited); PROGRAM `x,y,z`, `*` for any (races
// and reports whose program depends on the schedule), or `-` for a report without one; TENSOR
// the tensor's name, `-` for none, `*` for any. `#` starts a comment. An empty file: a clean
// kernel. Every diagnostic must match a line, and every line must match a diagnostic, under
// every schedule.
#pragma once
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bv/bv.hpp"
#include "bv/testing.hpp"

namespace bv::diag {

struct expected {
  std::string severity;  // empty: any
  std::string kind, pid, tensor;
  int line = 0;  // -1: none, -2: any
  std::string text;
  int hits = 0;
};

inline std::map<std::string, int> markers(const std::string& file) {
  std::map<std::string, int> m;
  std::ifstream in(file);
  std::string l;
  for (int n = 1; std::getline(in, l); ++n) {
    const auto p = l.find("// @");
    if (p == std::string::npos) continue;
    std::string name = l.substr(p + 4);
    name = name.substr(0, name.find_first_of(" \t\r"));
    m[name] = n;
  }
  return m;
}

inline std::vector<expected> read_expect(const std::string& name, const std::string& source) {
  const std::string path = std::string(BV_DIAG_CASES) + "/" + name + ".expect";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "missing expectation file " << path);
  const auto mk = markers(source);
  std::vector<expected> out;
  std::string l;
  while (std::getline(in, l)) {
    if (auto h = l.find('#'); h != std::string::npos) l = l.substr(0, h);
    std::istringstream ss(l);
    expected e;
    std::string line;
    if (!(ss >> e.kind)) continue;
    if (e.kind == "error" || e.kind == "warning" || e.kind == "note") {
      e.severity = e.kind;
      REQUIRE_MESSAGE(bool(ss >> e.kind), path << ": malformed line '" << l << "'");
    }
    REQUIRE_MESSAGE(bool(ss >> line >> e.pid >> e.tensor),
                    path << ": malformed line '" << l << "'");
    if (line == "-") {
      e.line = -1;
    } else if (line == "*") {
      e.line = -2;
    } else if (line[0] == '@') {
      auto it = mk.find(line.substr(1));
      REQUIRE_MESSAGE(it != mk.end(), path << ": no '// " << line << "' in " << source);
      e.line = it->second;
    } else {
      e.line = std::stoi(line);
    }
    e.text = l;
    out.push_back(e);
  }
  return out;
}

inline std::string pid_of(const diagnostic& d) {
  if (!d.has_pid) return "-";
  return std::to_string(d.pid[0]) + "," + std::to_string(d.pid[1]) + "," + std::to_string(d.pid[2]);
}

inline const char* severity_of(const diagnostic& d) {
  return d.sev == severity::error ? "error" : d.sev == severity::warning ? "warning" : "note";
}

inline bool matches(const expected& e, const diagnostic& d) {
  if (e.kind != d.kind) return false;
  if (!e.severity.empty() && e.severity != severity_of(d)) return false;
  if (e.line != -2 && (e.line == -1 ? d.line != 0 : e.line != d.line)) return false;
  if (e.pid != "*" && e.pid != pid_of(d)) return false;
  if (e.tensor == "*") return true;
  if (e.tensor == "-") return !d.has_tensor;
  return d.has_tensor && d.tensor.name == e.tensor;
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
    std::ostringstream all;
    for (const auto& d : diags)
      all << "  " << d.kind << " line " << d.line << " program " << pid_of(d) << " tensor "
          << (d.has_tensor ? d.tensor.name : "-") << ": " << d.headline << "\n";
    INFO("case " << name << " under the " << std::string(rc.label) << " schedule; diagnostics:\n"
                 << all.str());
    for (const auto& d : diags) {
      bool ok = false;
      for (auto& e : exp)
        if (matches(e, d)) ok = true, ++e.hits;
      CHECK_MESSAGE(ok, "unexpected diagnostic: " << d.kind << " at line " << d.line << " program "
                                                  << pid_of(d) << ": " << d.headline);
    }
    for (const auto& e : exp) CHECK_MESSAGE(e.hits > 0, "missing diagnostic: " << e.text);
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
