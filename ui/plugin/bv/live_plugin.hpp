// The viewer's first plugin ABI (kernel-library ABI 1), still loaded by blockvec-viewer. New code
// declares its kernels with bv/kernel_library.hpp (ABI 2): the same library then also runs in
// `blockvec list|run|bench|demo --lib`, and the tools compare with its reference themselves.
//
// A live-mode plugin: a user's kernels, built as a shared library, run inside
// blockvec-viewer's Live tab (`blockvec-viewer --live-plugin LIB.so`, or "Load plugin..." there).
//
// A plugin exports two C functions (BV_LIVE_PLUGIN below writes them):
//   int bv_live_abi_version(void);                      returns BV_LIVE_PLUGIN_ABI
//   const bv_live_kernel* bv_live_kernels(int* count);  an array of *count kernels
// Each kernel's run(size, seed, message, len) makes inputs from the size typed in the Live tab
// and the seed, launches on the interpreter and compares with a reference; it returns 0 when the
// launch ran and writes a one-line summary (or, non-zero, the reason it could not run) into
// message. The launch runs in the viewer's process, on the viewer's interpreter: the plugin is
// built against blockvec's headers only (bv_add_live_plugin in blockvecLivePlugin.cmake does
// this) and its references to the interpreter resolve to the viewer's copy when it is loaded.
// That is why breakpoints, stepping, debug events and the trace work as for library kernels:
// there is one stop handler, one config() and one trace writer.
//
// Plain C types only cross the boundary, so a plugin and a viewer built by different compilers
// of the same C++ ABI agree; the interpreter itself must be the same blockvec version (the ABI
// number changes whenever this header's structs or the interpreter's layout change).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "bv/library/abi.hpp"  // struct bv_live_kernel, BV_LIVE_PLUGIN_ABI

namespace bv::live {

// "3000" or "64,256" (spaces and 'x' also separate) -> {3000} or {64, 256}; throws
// std::invalid_argument with a readable reason on anything else.
inline std::vector<int64_t> parse_size(const char* text, size_t want = 0) {
  std::vector<int64_t> out;
  const std::string s = text ? text : "";
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ',' || s[i] == ' ' || s[i] == 'x') {
      ++i;
      continue;
    }
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(s.substr(i), &used);
    } catch (const std::exception&) {
      throw std::invalid_argument("size '" + s + "' is not a list of numbers");
    }
    if (v <= 0) throw std::invalid_argument("size '" + s + "' has a number below 1");
    out.push_back(v);
    i += used;
  }
  if (out.empty()) throw std::invalid_argument("no size given");
  if (want && out.size() != want)
    throw std::invalid_argument("size '" + s + "' needs " + std::to_string(want) + " number(s)");
  return out;
}

// Runs f() -> std::string (the summary) and turns the result or an exception into run()'s
// return value and message: exceptions must not cross into the viewer through a C function.
template <class F>
int guarded(F&& f, char* message, size_t len) {
  auto put = [&](const std::string& m) {
    if (message && len) std::snprintf(message, len, "%s", m.c_str());
  };
  try {
    put(f());
    return 0;
  } catch (const std::exception& e) {
    put(e.what());
  } catch (...) {
    put("unknown exception");
  }
  return 1;
}

}  // namespace bv::live

// BV_LIVE_PLUGIN(array): exports the two entry points over a static array of bv_live_kernel.
#define BV_LIVE_PLUGIN(kernels)                                                            \
  extern "C" __attribute__((visibility("default"))) int bv_live_abi_version(void) {        \
    return BV_LIVE_PLUGIN_ABI;                                                             \
  }                                                                                        \
  extern "C" __attribute__((visibility("default"))) const bv_live_kernel* bv_live_kernels( \
      int* count) {                                                                        \
    *count = static_cast<int>(sizeof(kernels) / sizeof(kernels[0]));                       \
    return kernels;                                                                        \
  }
