// SARIF 2.1.0 (OASIS): the log object, one run, the tool's rules and one result per diagnostic.
#include "bv/sarif.hpp"

#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "bv/cpu/runtime.hpp"

#ifndef BV_VERSION
#define BV_VERSION "0"
#endif

namespace bv {
namespace {
using json = nlohmann::ordered_json;

struct rule_info {
  const char* check;  // the check (`--check` name) that reports it
  const char* text;
};

// What each kind of diagnostic means, by the check that reports it.
const std::map<std::string, rule_info>& rules() {
  static const std::map<std::string, rule_info> r = {
      {"out-of-bounds", {"bounds", "A load, store or atomic outside its tensor's allocation."}},
      {"misaligned", {"bounds", "An access not aligned to its element size."}},
      {"null-pointer", {"bounds", "An access through a null pointer."}},
      {"uninit", {"uninit", "A read of memory that was never written."}},
      {"race", {"race", "Two programs of one launch on one element, one of them writing."}},
      {"stream-store",
       {"race",
        "A store, in a for_range's body, over a tile that a later step of the loop streams."}},
      {"non-contiguous", {"contiguity", "A tensor argument that is not contiguous."}},
      {"hint-violated", {"contiguity", "A multiple_of or max_contiguous hint that does not hold."}},
      {"int32-overflow", {"overflow", "Index arithmetic that overflows int32."}},
      {"nan", {"nan", "The first operation that produced NaN or Inf."}},
      {"masked", {"masked", "A use of masked-off lanes of a load without `other`."}},
      {"deadlock", {"deadlock", "Every program waiting on another."}},
      {"device-assert", {"deadlock", "A device_assert that failed."}},
      {"loop-step", {"deadlock", "A for_range whose step would never reach its end."}},
      {"stream-load",
       {"deadlock", "A load, in a for_range's body, of a block pointer that the loop streams."}},
      {"stream-slots",
       {"deadlock", "A moving tile stream whose block pointer has one ring slot (max_slots<1>)."}},
      {"ring-lds",
       {"bounds", "Block-pointer rings (sm_90) beyond the dynamic LDS their launch gives."}},
      {"uncoalesced", {"coalescing", "Wavefront accesses touching far more segments than needed."}},
      {"low-utilisation", {"coalescing", "Most (lane, register) slots of a program idle."}},
      {"wave-divergence", {"amd-emu", "A wave collective or MFMA reached by part of a wave."}},
      {"barrier-divergence", {"amd-emu", "A barrier reached by part of a workgroup."}},
      {"lds-out-of-bounds", {"amd-emu", "An LDS access outside the allocation."}},
      {"lds-uninit", {"amd-emu", "An LDS read before any write."}},
      {"lds-race", {"amd-emu", "LDS accesses of two waves with no barrier between them."}},
      {"lds-capacity", {"amd-emu", "An LDS allocation over the target's capacity."}},
  };
  return r;
}

const char* level(severity s) {
  switch (s) {
    case severity::error:
      return "error";
    case severity::warning:
      return "warning";
    case severity::note:
      return "note";
  }
  return "none";
}

// RFC 3986 percent-encoding of a path, keeping its slashes.
std::string uri_path(const std::string& p) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : p) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string pid_text(const std::array<int, 3>& p) {
  return "(" + std::to_string(p[0]) + "," + std::to_string(p[1]) + "," + std::to_string(p[2]) + ")";
}

std::string message(const diagnostic& d) {
  std::string m = d.headline;
  if (!d.kernel.empty()) m += " in kernel " + d.kernel;
  if (d.has_pid) m += ", program " + pid_text(d.pid);
  if (d.has_tensor) m += ", tensor '" + d.tensor.name + "'";
  m += ".";
  if (!d.detail.empty()) m += " " + d.detail + ".";
  if (!d.hint.empty()) m += " Hint: " + d.hint + ".";
  return m;
}

}  // namespace

std::string sarif_log(const std::vector<diagnostic>& diags, const sarif_options& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path root = o.source_root.empty() ? fs::current_path(ec) : fs::path(o.source_root);
  root = fs::weakly_canonical(fs::absolute(root, ec), ec);
  std::string root_uri = "file://" + uri_path(root.generic_string());
  if (root_uri.back() != '/') root_uri += '/';

  // Rules in order of first appearance; results point at them by index.
  json rule_list = json::array();
  std::map<std::string, int> rule_index;
  auto rule_of = [&](const diagnostic& d) {
    auto [it, fresh] = rule_index.emplace(d.kind, static_cast<int>(rule_list.size()));
    if (fresh) {
      const auto known = rules().find(d.kind);
      json r = {{"id", d.kind}, {"name", d.kind}};
      r["shortDescription"] = {
          {"text", known != rules().end() ? known->second.text : "A blockvec diagnostic."}};
      r["defaultConfiguration"] = {{"level", level(d.sev)}};
      r["help"] = {{"text", "docs/diagnostics.md explains this diagnostic and how to read it."}};
      if (known != rules().end()) r["properties"] = {{"check", known->second.check}};
      rule_list.push_back(std::move(r));
    }
    return it->second;
  };

  json results = json::array();
  for (const diagnostic& d : diags) {
    json r;
    r["ruleId"] = d.kind;
    r["ruleIndex"] = rule_of(d);
    r["level"] = level(d.sev);
    r["message"] = {{"text", message(d)}};
    json loc = json::object();
    if (!d.file.empty() && d.line > 0) {
      fs::path f = fs::weakly_canonical(fs::absolute(fs::path(d.file), ec), ec);
      const fs::path rel = f.lexically_relative(root);
      json art;
      if (!rel.empty() && *rel.begin() != "..") {
        art = {{"uri", uri_path(rel.generic_string())}, {"uriBaseId", "SRCROOT"}};
      } else {
        art = {{"uri", "file://" + uri_path(f.generic_string())}};
      }
      loc["physicalLocation"] = {{"artifactLocation", art}, {"region", {{"startLine", d.line}}}};
    }
    if (!d.kernel.empty())
      loc["logicalLocations"] =
          json::array({{{"fullyQualifiedName", d.kernel}, {"kind", "function"}}});
    if (!loc.empty()) r["locations"] = json::array({loc});
    json props = json::object();
    if (d.has_pid) props["program"] = d.pid;
    if (!d.lanes.empty()) props["lanes"] = d.lanes;
    if (!d.waves.empty()) props["waves"] = d.waves;
    if (d.has_tensor) props["tensor"] = d.tensor.name;
    if (!props.empty()) r["properties"] = props;
    results.push_back(std::move(r));
  }

  json driver = {{"name", "blockvec"},
                 {"version", BV_VERSION},
                 {"semanticVersion", BV_VERSION},
                 {"rules", rule_list}};
  json invocation = {{"executionSuccessful", o.successful}};
  if (!o.command_line.empty()) invocation["commandLine"] = o.command_line;
  json run = {{"tool", {{"driver", driver}}},
              {"originalUriBaseIds", {{"SRCROOT", {{"uri", root_uri}}}}},
              {"invocations", json::array({invocation})},
              {"results", results},
              {"properties", {{"target", target_name(config().tgt)}}}};
  json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
  return log.dump(2) + "\n";
}

bool write_sarif(const std::string& path, const std::vector<diagnostic>& diags,
                 const sarif_options& o, std::string& error) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    error = "cannot write the SARIF log to '" + path + "': check that its directory exists";
    return false;
  }
  f << sarif_log(diags, o);
  f.close();
  if (!f) {
    error = "writing the SARIF log to '" + path + "' failed (disk full?)";
    return false;
  }
  return true;
}

}  // namespace bv
