// The kernel-library ABI: what crosses between a shared object of a user's kernels and the
// program that loads it (`blockvec list|run|bench|demo --lib LIB.so`, the viewer's Live tab).
// Plain C types only, so both sides may be built by different compilers of one C++ ABI; nothing
// here throws. Users do not write these structs: bv/kernel_library.hpp fills them from C++ entries.
//
// A library exports two C functions:
//   int bv_kernel_library_abi(void);                             returns BV_KERNEL_LIBRARY_ABI
//   const bv_kernel_entry* bv_kernel_library_entries(int* count); its *count entries
// and may export a third, which the host asks first when present:
//   const char* bv_kernel_library_error(void);  why an entry could not register, or null
// The library is built against blockvec's headers only (blockvec_add_kernel_library); its calls
// into the interpreter resolve to the loading program's copy, so its launches run on the host's
// interpreter, with the host's options, checks, breakpoints and trace. That ties a library to the
// blockvec version it was built with: the ABI number changes with these structs and with the
// interpreter's types that cross as opaque pointers (bv::launch_result).
//
// A library may also be built a second time for the AMD emulator (blockvec_add_kernel_library
// makes NAME.amd-emu.so beside NAME.so in a build with the emulator): the same sources with the
// GPU language, whose launches run in the loading program's emulator. It says so through a fourth
// function, absent from interpreter builds:
//   const char* bv_kernel_library_backend(void);  "amd-emu"
// The host sets the emulated target before a run (the emulator's state is the host's).
//
// ABI 2 had no `output` in bv_kernel_host. ABI 1 (bv/live_plugin.hpp: bv_live_abi_version,
// bv_live_kernels) had a run that only returned a text summary; the viewer still loads it, the
// blockvec command asks for a rebuild.
#pragma once
#include <cstddef>
#include <cstdint>

#define BV_KERNEL_LIBRARY_ABI 3

extern "C" {

// What the host hands to a run.
struct bv_kernel_host {
  void* context;
  // Called once for each launch the run made, in order, with a pointer to the bv::launch_result
  // the host's interpreter returned (valid during the call only; the host copies what it keeps).
  void (*launched)(void* context, const void* launch_result);
  // 0: launch once. n > 0 (blockvec bench): one untimed launch, then n timed ones over the same
  // inputs, reporting the fastest.
  int samples;
  // Null, or called after the run once per output it compared, in order, with its values
  // (row-major, as doubles) and tolerance: the host compares two backends' outputs with it.
  void (*output)(void* context, const char* name, const int64_t* shape, int rank,
                 const double* values, int64_t count, double tolerance);
};

// What a run found against the reference.
struct bv_kernel_result {
  int match;           // every compared output within its tolerance, and finite where expected
  double max_abs_err;  // over every compared output
  double rel_err;      // relative L2 error of the output furthest past its tolerance
  double tolerance;    // that output's tolerance
  char note[160];      // optional, e.g. "f16 inputs"
};

struct bv_kernel_entry {
  const char* name;         // unique among the kernels a program loads
  const char* description;  // one line
  const char* size_help;    // "N", "ROWS,COLS": one word per number --size takes
  const int64_t* default_size;
  int default_rank;
  const int64_t* bench_size;  // the size `blockvec bench` times; bench_rank 0: the default
  int bench_rank;
  const void* self;  // the library's own entry, passed back to the functions below
  // 0 when the library accepts this size; otherwise non-zero, and why not in `why`.
  int (*accepts)(const void* self, const int64_t* size, int rank, char* why, size_t why_len);
  // Makes inputs of `size` from `seed`, launches on the interpreter, compares with the reference.
  // 0 when it ran (`result` says whether it matched); non-zero when it could not, the reason in
  // `message`.
  int (*run)(const void* self, const int64_t* size, int rank, uint64_t seed,
             const bv_kernel_host* host, bv_kernel_result* result, char* message,
             size_t message_len);
  // The reference alone on inputs of `size` made outside the timed part: one untimed run, then
  // the fastest of `samples` (at least 1), in seconds. blockvec bench's "native" column.
  int (*time_reference)(const void* self, const int64_t* size, int rank, uint64_t seed, int samples,
                        double* seconds, char* message, size_t message_len);
};

typedef int (*bv_kernel_library_abi_fn)(void);
typedef const bv_kernel_entry* (*bv_kernel_library_entries_fn)(int* count);
typedef const char* (*bv_kernel_library_error_fn)(void);
typedef const char* (*bv_kernel_library_backend_fn)(void);

// ABI 1, the viewer's first live plugins: a run that returns a one-line summary.
#define BV_LIVE_PLUGIN_ABI 1
struct bv_live_kernel {
  const char* name;
  const char* description;
  const char* default_size;  // "3000", "64,256"
  int (*run)(const char* size, uint64_t seed, char* message, size_t message_len);
};
typedef int (*bv_live_abi_version_fn)(void);
typedef const bv_live_kernel* (*bv_live_kernels_fn)(int* count);
}
