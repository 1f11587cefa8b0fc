// Helpers the check plugins share: the lanes of an access that were performed, and a diagnostic
// filled with everything an access knows (kernel, line, program, lanes, waves, tensor, offsets).
#pragma once
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "bv/cpu/check.hpp"
#include "bv/cpu/runtime.hpp"

namespace bv::detail {

std::vector<int> waves_of_lanes(const access& a, const std::vector<int>& lanes);

// Whether lane i of the access was active and performed.
inline bool performed(const access& a, const bool* perform, int i) {
  return (!a.mask || a.mask[i]) && (!perform || perform[i]);
}
inline int active_lanes(const access& a) {
  if (!a.mask) return a.lanes;
  int n = 0;
  for (int i = 0; i < a.lanes; ++i) n += a.mask[i];
  return n;
}

// A check's per-launch record of a few memory ops, by source location, on this thread. The ops
// of a kernel come round in turn (a row norm's load, store, load, store), so remembering only
// the last one sent nearly every access to a map under the check's mutex. Keyed by the launch's
// serial too: a check object of a later launch may reuse a freed address.
template <class V>
struct loc_cache {
  struct slot {
    uint64_t serial = 0;
    const char* file = nullptr;
    uint32_t line = 0, column = 0;
    V value{};
  };
  slot slots[16];
  slot& at(const std::source_location& l) { return slots[(l.line() * 7u + l.column()) & 15u]; }
  V* find(uint64_t serial, const std::source_location& l) {
    slot& e = at(l);
    if (e.serial == serial && e.line == l.line() && e.column == l.column() &&
        e.file == l.file_name())
      return &e.value;
    return nullptr;
  }
  void put(uint64_t serial, const std::source_location& l, V v) {
    at(l) = {serial, l.file_name(), l.line(), l.column(), v};
  }
};

inline const char* access_verb(const access& a) {
  return a.kind == access_kind::load ? "read" : a.kind == access_kind::store ? "write" : "atomic";
}

// A diagnostic about `lanes` of access `a`, completed with the current program and source line.
inline diagnostic access_diag(const char* kind, const access& a, const std::vector<int>& lanes,
                              severity sev = severity::error) {
  diagnostic d;
  d.kind = kind;
  d.sev = sev;
  d.lanes = lanes;
  d.waves = waves_of_lanes(a, lanes);
  for (int e : lanes) d.offsets.push_back(a.base + a.off[e]);
  if (a.alloc) {
    d.has_tensor = true;
    d.tensor = a.alloc->describe();
  }
  complete(d, a.loc);
  return d;
}

inline std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

inline std::string pid_text(const std::array<int, 3>& p) {
  return "(" + std::to_string(p[0]) + "," + std::to_string(p[1]) + "," + std::to_string(p[2]) + ")";
}

inline std::string loc_text(const std::source_location* l) {
  if (!l) return "?";
  std::string f = l->file_name();
  return f + ":" + std::to_string(l->line());
}

// One factory per check (one file each); register_builtin_checks() registers them all.
std::unique_ptr<observer> make_uninit_check();
std::unique_ptr<observer> make_race_check();
std::unique_ptr<observer> make_contiguity_check();
std::unique_ptr<observer> make_overflow_check();
std::unique_ptr<observer> make_nan_check();
std::unique_ptr<observer> make_masked_check();
std::unique_ptr<observer> make_coalescing_check();
std::unique_ptr<observer> make_stream_store_check();

}  // namespace bv::detail
