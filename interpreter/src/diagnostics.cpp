#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bv/cpu/runtime.hpp"
#include "bv/sarif.hpp"

namespace bv {

namespace {
std::mutex g_mu;
std::vector<diagnostic> g_all;

const char* sev_name(severity s) {
  switch (s) {
    case severity::note: return "note";
    case severity::warning: return "warning";
    case severity::error: return "error";
  }
  return "?";
}

template <class V>
std::string list(const V& v, size_t cap = 16) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size() && i < cap; ++i) os << (i ? ", " : "") << v[i];
  if (v.size() > cap) os << ", ... (" << v.size() << " in all)";
  os << "]";
  return os.str();
}

// Lanes as compact ranges: 61..63, 70
std::string ranges(const std::vector<int>& lanes) {
  std::ostringstream os;
  size_t i = 0, shown = 0;
  while (i < lanes.size() && shown < 8) {
    size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    os << (shown ? ", " : "") << lanes[i];
    if (j > i) os << ".." << lanes[j];
    i = j + 1;
    ++shown;
  }
  if (i < lanes.size()) os << ", ...";
  return os.str();
}

struct exit_hook {
  exit_hook() {
    if (const char* s = std::getenv("BV_EXIT_ON_ERROR"); s && std::string(s) == "1")
      std::atexit([] {
        if (error_count() > 0) {
          std::fflush(stdout);
          std::fprintf(stderr, "blockvec: exiting with status 1: %d error diagnostic(s) (BV_EXIT_ON_ERROR=1)\n",
                       error_count());
          std::_Exit(1);
        }
      });
    // BV_SARIF=FILE: every diagnostic of the process as a SARIF log at exit (registered after
    // the hook above, so it runs first).
    if (const char* s = std::getenv("BV_SARIF"); s && *s)
      std::atexit([] {
        std::string err;
        sarif_options o;
        o.command_line = "BV_SARIF";
        if (!write_sarif(std::getenv("BV_SARIF"), diagnostics(), o, err))
          std::fprintf(stderr, "blockvec: BV_SARIF: %s\n", err.c_str());
      });
  }
} g_exit_hook;
}  // namespace

tensor_desc detail::alloc_info::describe() const {
  tensor_desc t;
  t.name = name;
  t.dtype = dtype;
  t.shape = shape;
  t.strides = strides;
  t.contiguous = contiguous;
  t.valid_begin = 0;
  t.valid_end = numel;
  return t;
}

std::string diagnostic::text() const {
  std::ostringstream os;
  os << (sev == severity::error ? "ERROR" : sev == severity::warning ? "WARNING" : "NOTE") << " "
     << kind << ": " << headline << "\n";
  if (!file.empty() || !kernel.empty()) {
    os << "  at kernel " << (kernel.empty() ? "?" : kernel);
    if (!file.empty()) os << " (" << file << ":" << line << ")";
    os << "\n";
  }
  if (has_pid) {
    os << "  program (" << pid[0] << "," << pid[1] << "," << pid[2] << ")";
    if (!lanes.empty()) {
      os << ", lanes " << ranges(lanes);
      if (!waves.empty()) {
        std::vector<int> w = waves;
        std::sort(w.begin(), w.end());
        w.erase(std::unique(w.begin(), w.end()), w.end());
        os << " (wave" << (w.size() > 1 ? "s " : " ") << ranges(w) << ")";
      }
    }
    os << "\n";
  }
  if (has_tensor) {
    os << "  tensor '" << tensor.name << "' " << tensor.dtype << " shape " << list(tensor.shape)
       << " strides " << list(tensor.strides) << ", "
       << (tensor.contiguous ? "contiguous" : "NOT contiguous") << "; valid offsets ["
       << tensor.valid_begin << ", " << tensor.valid_end << ")\n";
  }
  if (!offsets.empty()) os << "  offending offsets: " << list(offsets, 8) << "\n";
  if (!detail.empty()) os << "  " << detail << "\n";
  if (!hint.empty()) os << "  hint: " << hint << "\n";
  return os.str();
}

std::string diagnostic::json() const {
  nlohmann::json j;
  j["kind"] = kind;
  j["severity"] = sev_name(sev);
  j["message"] = headline;
  j["kernel"] = kernel;
  j["file"] = file;
  j["line"] = line;
  j["function"] = function;
  if (has_pid) j["program"] = pid;
  j["lanes"] = lanes;
  j["waves"] = waves;
  j["offsets"] = offsets;
  if (has_tensor)
    j["tensor"] = {{"name", tensor.name},       {"dtype", tensor.dtype},
                   {"shape", tensor.shape},     {"strides", tensor.strides},
                   {"contiguous", tensor.contiguous},
                   {"valid_range", {tensor.valid_begin, tensor.valid_end}}};
  if (!detail.empty()) j["detail"] = detail;
  if (!hint.empty()) j["hint"] = hint;
  return j.dump();
}

namespace detail {
// The notes said so far (kernel, kind, line, tensor), so each is said once.
std::set<std::string> g_noted;

bool first_note(const std::string& key) {
  std::lock_guard lk(g_mu);
  return g_noted.insert(key).second;
}

void publish(std::vector<diagnostic> ds) {
  std::lock_guard lk(g_mu);
  for (auto& d : ds) g_all.push_back(std::move(d));
}
}  // namespace detail

const std::vector<diagnostic>& diagnostics() { return g_all; }
void clear_diagnostics() {
  std::lock_guard lk(g_mu);
  g_all.clear();
  detail::g_noted.clear();
}
int error_count() {
  std::lock_guard lk(g_mu);
  int n = 0;
  for (auto& d : g_all) n += d.sev == severity::error;
  return n;
}
int exit_status() { return error_count() ? 1 : 0; }

}  // namespace bv
