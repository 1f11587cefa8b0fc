// A host's side of the ABI (bv/library/abi.hpp): open a kernel library and turn its entries into
// bv::library::entry values whose run() calls into it. The host must export its interpreter
// (ENABLE_EXPORTS and the whole interpreter archive, as blockvec and blockvec-viewer do): the
// library's launches bind to it, so they run with the host's options, checks and trace, and the
// launch results it reports carry the host's diagnostics.
#pragma once
#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "bv/library/abi.hpp"
#include "bv/library/entry.hpp"

namespace bv::library {

// Why a file could not be loaded; what() names the file and says what to do.
struct load_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A shared object opened as a kernel library: entries of this ABI, or (abi == 1) a live plugin's
// kernels, which only the viewer still runs.
struct opened_library {
  std::string path;
  int abi = 0;
  const bv_kernel_entry* entries = nullptr;
  const bv_live_kernel* live_kernels = nullptr;  // abi == 1
  int count = 0;
  std::string backend = "interpreter";  // or "amd-emu": a build whose launches are emulated
};

// Where the AMD-emulator build of the library at `path` lies: NAME.amd-emu.so beside NAME.so.
inline std::string amd_emu_sibling(const std::string& path) {
  const std::string so = ".so";
  const bool ends =
      path.size() > so.size() && path.compare(path.size() - so.size(), so.size(), so) == 0;
  return (ends ? path.substr(0, path.size() - so.size()) : path) + ".amd-emu.so";
}

// Opens `path` and checks what it exports. Libraries stay loaded for the life of the process:
// their code may be on a stopped launch's stack, and the interpreter may hold their kernels'
// addresses (traces, checks' per-kernel state). Throws load_error.
inline opened_library open(const std::string& path, bool accept_abi1 = false) {
  const std::string rebuild =
      "build it with blockvec_add_kernel_library() from blockvec's CMake package "
      "(docs/viewer.md, \"Kernel libraries\")";
  auto fail = [&](const std::string& why) { return load_error(path + ": " + why); };
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw fail("no such file");
  if (std::filesystem::is_directory(path, ec)) throw fail("a directory, not a shared library");
  // dlopen searches the library path for a bare name; a file in the working directory is meant.
  const std::string where = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_NOW: an interpreter symbol the host does not export fails here, not in the middle of a
  // run.
  void* h = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    throw fail(std::string("not a loadable shared library (") + (e ? e : "unknown reason") + "); " +
               rebuild);
  }
  opened_library lib;
  lib.path = path;
  auto abi = reinterpret_cast<bv_kernel_library_abi_fn>(dlsym(h, "bv_kernel_library_abi"));
  auto list = reinterpret_cast<bv_kernel_library_entries_fn>(dlsym(h, "bv_kernel_library_entries"));
  if (!abi || !list) {
    auto v1 = reinterpret_cast<bv_live_abi_version_fn>(dlsym(h, "bv_live_abi_version"));
    auto v1_list = reinterpret_cast<bv_live_kernels_fn>(dlsym(h, "bv_live_kernels"));
    if (v1 && v1_list && v1() == BV_LIVE_PLUGIN_ABI) {
      if (!accept_abi1)
        throw fail(
            "a live plugin of kernel-library ABI 1, which only blockvec-viewer runs; "
            "declare its kernels with bv/kernel_library.hpp (ABI " +
            std::to_string(BV_KERNEL_LIBRARY_ABI) + ") and " + rebuild);
      lib.abi = 1;
      lib.live_kernels = v1_list(&lib.count);
      if (!lib.live_kernels || lib.count <= 0 || lib.count > 100000)
        throw fail("bv_live_kernels returned no kernels");
      return lib;
    }
    throw fail(std::string("a shared library, but not a blockvec kernel library: it exports no ") +
               (abi ? "bv_kernel_library_entries" : "bv_kernel_library_abi") + "; " + rebuild);
  }
  lib.abi = abi();
  if (lib.abi != BV_KERNEL_LIBRARY_ABI)
    throw fail("built for kernel-library ABI " + std::to_string(lib.abi) +
               "; this blockvec loads ABI " + std::to_string(BV_KERNEL_LIBRARY_ABI) +
               " (rebuild the library against this blockvec)");
  if (auto err = reinterpret_cast<bv_kernel_library_error_fn>(dlsym(h, "bv_kernel_library_error")))
    if (const char* e = err())
      throw fail(std::string("a kernel did not register: ") + e + "; fix its declaration");
  if (auto backend =
          reinterpret_cast<bv_kernel_library_backend_fn>(dlsym(h, "bv_kernel_library_backend")))
    if (const char* b = backend()) lib.backend = b;
  lib.entries = list(&lib.count);
  if (!lib.entries || lib.count <= 0 || lib.count > 100000)
    throw fail(
        "it registers no kernels (a bv::library::registration in one of its files "
        "declares one)");
  for (int i = 0; i < lib.count; ++i) {
    const bv_kernel_entry& c = lib.entries[i];
    if (!c.name || !*c.name || !c.run || !c.accepts || !c.time_reference)
      throw fail("entry " + std::to_string(i) + " has no name or misses a function");
  }
  return lib;
}

namespace detail {
inline void collect_launch(void* context, const void* r) {
  static_cast<outcome*>(context)->launches.push_back(*static_cast<const launch_result*>(r));
}
inline void collect_output(void* context, const char* name, const int64_t* shape, int rank,
                           const double* values, int64_t count, double tolerance) {
  output_values v{name ? name : "", {}, {}, tolerance};
  if (shape && rank > 0) v.shape.assign(shape, shape + rank);
  if (values && count > 0) v.values.assign(values, values + count);
  static_cast<outcome*>(context)->outputs.push_back(std::move(v));
}
}  // namespace detail

// One run of library entry `c`: its launches (and, with `outputs`, its compared outputs' values)
// come back in the outcome; `samples` as timed_samples(). A failure to run throws
// std::runtime_error with the library's message.
inline outcome run_entry(const bv_kernel_entry& c, const sizes& s, uint64_t seed, int samples,
                         bool outputs) {
  outcome o;
  const bv_kernel_host host{&o, &detail::collect_launch, samples,
                            outputs ? &detail::collect_output : nullptr};
  bv_kernel_result r{};
  char message[1024] = {0};
  if (c.run(c.self, s.data(), static_cast<int>(s.size()), seed, &host, &r, message, sizeof message))
    throw std::runtime_error(message[0] ? message : "the library's run failed");
  o.match = r.match != 0;
  o.max_abs_err = r.max_abs_err;
  o.rel_err = r.rel_err;
  o.tolerance = r.tolerance;
  o.note = r.note;
  return o;
}

// A library entry as the host's entry: run() passes the host's timed_samples() and collects the
// launches the library reports; a failure to run comes back as std::runtime_error.
inline entry to_entry(const bv_kernel_entry& c) {
  entry e;
  e.name = c.name;
  e.description = c.description ? c.description : "";
  e.size_help = c.size_help && *c.size_help ? c.size_help : "N";
  if (c.default_size && c.default_rank > 0)
    e.default_size.assign(c.default_size, c.default_size + c.default_rank);
  if (c.bench_size && c.bench_rank > 0)
    e.bench_size.assign(c.bench_size, c.bench_size + c.bench_rank);
  const bv_kernel_entry* p = &c;
  e.accepts = [p](const sizes& s) -> std::string {
    char why[512] = {0};
    return p->accepts(p->self, s.data(), static_cast<int>(s.size()), why, sizeof why) ? why : "";
  };
  e.run = [p](const sizes& s, uint64_t seed) {
    return run_entry(*p, s, seed, timed_samples(), false);
  };
  e.native = [p](const sizes& s, uint64_t seed) {
    double seconds = 0;
    char message[1024] = {0};
    if (p->time_reference(p->self, s.data(), static_cast<int>(s.size()), seed,
                          std::max(1, timed_samples()), &seconds, message, sizeof message))
      throw std::runtime_error(message[0] ? message : "timing the library's reference failed");
    return seconds;
  };
  return e;
}

// Refuses an AMD-emulator build where the interpreter's is meant. Throws load_error.
inline void expect_interpreter_build(const opened_library& lib) {
  if (lib.backend != "interpreter")
    throw load_error(lib.path + ": the " + lib.backend +
                     " build of a kernel library; pass its interpreter build (NAME.so), beside "
                     "which blockvec finds this one for --backend amd-emu");
}

// Every entry of the kernel library at `path` (its interpreter build). Throws load_error.
inline std::vector<entry> load(const std::string& path) {
  const opened_library lib = open(path);
  expect_interpreter_build(lib);
  std::vector<entry> out;
  for (int i = 0; i < lib.count; ++i) out.push_back(to_entry(lib.entries[i]));
  return out;
}

}  // namespace bv::library
