// Source locations for reports: the calling lane's stack, symbolized with GCC's libbacktrace from
// the executable's line tables (emulated translation units are built with -g1, which keeps the
// inlined frames), reduced to the innermost frame in the kernel's own source: the first frame not
// in the library's implementation (the GPU lowering, the language headers, the emulator, the
// system). Only a report pays for it.
#include <cstdlib>
#include <cstring>
#include <string>

#include "state.hpp"

#if __has_include(<backtrace.h>) && defined(__GNUC__) && !defined(__clang__)
#define BV_EMU_BACKTRACE 1
#include <backtrace.h>
#include <cxxabi.h>
#else
#define BV_EMU_BACKTRACE 0
#endif

namespace bv::emu::detail {

#if BV_EMU_BACKTRACE
namespace {

backtrace_state* state() {
  static backtrace_state* s = backtrace_create_state(nullptr, 1, nullptr, nullptr);
  return s;
}

bool library_file(const char* f) {
  if (f[0] != '/' || std::strncmp(f, "/usr/", 5) == 0) return true;
  for (const char* dir : {"/gpu_backend/bv/gpu/", "/lang/bv/", "/emulator/bv/", "/emulator/src/"})
    if (std::strstr(f, dir)) return true;
  return false;
}

std::string demangle(const char* fn) {
  if (!fn) return {};
  int status = 0;
  char* d = abi::__cxa_demangle(fn, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : fn;
  std::free(d);
  return s;
}

struct search {
  source_where found;
  bool done = false;
};

int on_frame(void* data, uintptr_t, const char* file, int line, const char* fn) {
  auto* s = static_cast<search*>(data);
  if (!file || library_file(file)) return 0;
  s->found.file = file;
  s->found.line = line;
  s->found.function = demangle(fn);
  s->done = true;
  return 1;  // stop: the innermost kernel frame
}

void on_error(void*, const char*, int) {}

}  // namespace

source_where where_here() {
  search s;
  if (backtrace_state* st = state()) backtrace_full(st, 0, on_frame, on_error, &s);
  return s.found;
}
#else
source_where where_here() { return {}; }
#endif

}  // namespace bv::emu::detail
