// A library's side of the ABI (bv/library/abi.hpp): its registered entries as bv_kernel_entry
// structs, each function a guard that turns a C++ result or exception into C values.
// blockvec_add_kernel_library defines BV_KERNEL_LIBRARY_BUILD, which makes the two exported
// functions below exist in that shared object (once, however many of its files include this:
// they are inline, and `used` makes each file that includes this emit them).
#pragma once
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "bv/library/abi.hpp"
#include "bv/library/entry.hpp"

namespace bv::library::detail {

inline void put(char* out, size_t len, const std::string& text) {
  if (out && len) std::snprintf(out, len, "%s", text.c_str());
}

// Runs f(), turning an exception into a non-zero return and its message: nothing may unwind
// through a C function into the host.
template <class F>
int guarded(F&& f, char* message, size_t len) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    put(message, len, e.what());
  } catch (...) {
    put(message, len, "unknown exception");
  }
  return 1;
}

inline sizes size_of(const int64_t* size, int rank) {
  return rank > 0 && size ? sizes(size, size + rank) : sizes{};
}

inline int c_accepts(const void* self, const int64_t* size, int rank, char* why, size_t len) {
  const entry& e = *static_cast<const entry*>(self);
  int refused = 0;
  const int rc = guarded(
      [&] {
        const std::string r = refusal(e, size_of(size, rank));
        refused = !r.empty();
        put(why, len, r);
      },
      why, len);
  return rc ? rc : refused;
}

inline int c_run(const void* self, const int64_t* size, int rank, uint64_t seed,
                 const bv_kernel_host* host, bv_kernel_result* result, char* message, size_t len) {
  const entry& e = *static_cast<const entry*>(self);
  return guarded(
      [&] {
        const sizes s = size_of(size, rank);
        if (const std::string why = refusal(e, s); !why.empty())
          throw std::invalid_argument("size not accepted: " + why);
        timed_samples() = host ? host->samples : 0;
        keep_outputs() = host && host->output;
        outcome o;
        try {
          o = e.run(s, seed);
        } catch (...) {
          timed_samples() = 0;
          keep_outputs() = false;
          throw;
        }
        timed_samples() = 0;
        keep_outputs() = false;
        if (host && host->launched)
          for (const auto& l : o.launches) host->launched(host->context, &l);
        if (host && host->output)
          for (const auto& v : o.outputs)
            host->output(host->context, v.name.c_str(), v.shape.data(),
                         static_cast<int>(v.shape.size()), v.values.data(),
                         static_cast<int64_t>(v.values.size()), v.tolerance);
        if (result) {
          result->match = o.match;
          result->max_abs_err = o.max_abs_err;
          result->rel_err = o.rel_err;
          result->tolerance = o.tolerance;
          put(result->note, sizeof result->note, o.note);
        }
        put(message, len, "");
      },
      message, len);
}

inline int c_time_reference(const void* self, const int64_t* size, int rank, uint64_t seed,
                            int samples, double* seconds, char* message, size_t len) {
  const entry& e = *static_cast<const entry*>(self);
  return guarded(
      [&] {
        if (!e.native) throw std::invalid_argument(e.name + " has no reference to time");
        timed_samples() = samples < 1 ? 1 : samples;
        double t = 0;
        try {
          t = e.native(size_of(size, rank), seed);
        } catch (...) {
          timed_samples() = 0;
          throw;
        }
        timed_samples() = 0;
        if (seconds) *seconds = t;
      },
      message, len);
}

// The C view of registered(), made once: the entries must all be registered by then (they are:
// registrations run while the library loads, the host asks after).
__attribute__((visibility("hidden"))) inline const std::vector<bv_kernel_entry>& c_entries() {
  static const std::vector<bv_kernel_entry> out = [] {
    std::vector<bv_kernel_entry> v;
    for (const entry& e : registered())
      v.push_back({e.name.c_str(), e.description.c_str(), e.size_help.c_str(),
                   e.default_size.data(), static_cast<int>(e.default_size.size()),
                   e.bench_size.data(), static_cast<int>(e.bench_size.size()), &e, &c_accepts,
                   &c_run, &c_time_reference});
    return v;
  }();
  return out;
}

}  // namespace bv::library::detail

#if defined(BV_KERNEL_LIBRARY_BUILD)
extern "C" __attribute__((visibility("default"), used)) inline int bv_kernel_library_abi(void) {
  return BV_KERNEL_LIBRARY_ABI;
}
extern "C" __attribute__((visibility("default"), used)) inline const bv_kernel_entry*
bv_kernel_library_entries(int* count) {
  try {
    const auto& v = bv::library::detail::c_entries();
    if (count) *count = static_cast<int>(v.size());
    return v.data();
  } catch (...) {  // out of memory making the array: no entries, nothing thrown
    if (count) *count = 0;
    return nullptr;
  }
}
#if defined(BV_AMD_EMU) && BV_AMD_EMU
// This object's launches run in the emulator (a second build of the library's sources).
extern "C" __attribute__((visibility("default"), used)) inline const char*
bv_kernel_library_backend(void) {
  return "amd-emu";
}
#endif
extern "C" __attribute__((visibility("default"), used)) inline const char* bv_kernel_library_error(
    void) {
  const std::string& e = bv::library::registration_error();
  return e.empty() ? nullptr : e.c_str();
}
#endif
