// Expectation files of the diagnostics corpora (the interpreter's, tests/diagnostics/cases, and
// the AMD emulator's, tests/emulator/cases): the diagnostics a case must produce, one a line,
//     [SEVERITY] KIND LINE PROGRAM TENSOR
// SEVERITY error, warning or note (checked when given); KIND as in diagnostic::kind; LINE a
// source line number of the case's file, `@marker` for the line carrying the comment
// `// @marker`, `-` for none, or `*` for any (a report from inside a library kernel, whose
// header's lines move as it is edited); PROGRAM `x,y,z` (the emulator's: the workgroup), `*` for
// any (races and reports whose program depends on the schedule), or `-` for a report without
// one; TENSOR the tensor's name, `-` for none, `*` for any. `#` starts a comment. An empty file:
// a clean kernel. Every diagnostic must match a line, and every line a diagnostic.
#pragma once
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bv/diagnostic.hpp"

namespace bv::expect_file {

struct expected {
  std::string severity;  // empty: any
  std::string kind, pid, tensor;
  int line = 0;  // -1: none, -2: any
  std::string text;
  int hits = 0;
};

// The `// @name` markers of a source file, by name, with their line numbers.
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

// The expectations of `path`, whose `@marker` lines are looked up in `source`. A missing file or
// a malformed line fails the calling test case.
inline std::vector<expected> read(const std::string& path, const std::string& source) {
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
    std::string extra;
    REQUIRE_MESSAGE(!(ss >> extra),
                    path << ": '" << extra << "' after the tensor in '" << l << "'");
    if (line == "-") {
      e.line = -1;
    } else if (line == "*") {
      e.line = -2;
    } else if (line[0] == '@') {
      auto it = mk.find(line.substr(1));
      REQUIRE_MESSAGE(it != mk.end(), path << ": no '// " << line << "' in " << source);
      e.line = it->second;
    } else {
      REQUIRE_MESSAGE(line.find_first_not_of("0123456789") == std::string::npos,
                      path << ": line '" << line << "' is not a number, @marker, - or *");
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

// The diagnostics one per line, as a failure message shows them.
inline std::string listing(const std::vector<diagnostic>& diags) {
  std::ostringstream all;
  for (const auto& d : diags)
    all << "  " << severity_of(d) << " " << d.kind << " line " << d.line << " program " << pid_of(d)
        << " tensor " << (d.has_tensor ? d.tensor.name : "-") << ": " << d.headline << "\n";
  return all.str();
}

// Every diagnostic must match an expectation and every expectation a diagnostic (doctest checks;
// the caller says which run in an INFO).
inline void compare(std::vector<expected> exp, const std::vector<diagnostic>& diags) {
  for (const auto& d : diags) {
    bool ok = false;
    for (auto& e : exp)
      if (matches(e, d)) ok = true, ++e.hits;
    CHECK_MESSAGE(ok, "unexpected diagnostic: " << std::string(severity_of(d)) << " " << d.kind
                                                << " at line " << d.line << " program " << pid_of(d)
                                                << ": " << d.headline);
  }
  for (const auto& e : exp) CHECK_MESSAGE(e.hits > 0, "missing diagnostic: " << e.text);
}

}  // namespace bv::expect_file
