// Helpers the check plugins share: the lanes of an access that were performed, and a diagnostic
// filled with everything an access knows (kernel, line, program, lanes, waves, tensor, offsets).
#pragma once
#include <memory>
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

}  // namespace bv::detail
