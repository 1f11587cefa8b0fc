// --lib PATH: a user's kernel library (bv/kernel_library.hpp) in the command's registry. Beside
// NAME.so, the library's AMD-emulator build NAME.amd-emu.so (blockvec_add_kernel_library makes it
// in a build with the emulator) gives its kernels --backend amd-emu: the same sources with the GPU
// language, run in this program's emulator.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "bv/library/load.hpp"
#include "emu/emu_bench.hpp"
#include "emu/emu_runner.hpp"
#include "registry.hpp"

namespace bv::cli {

kernel_entry from_library(bv::library::entry e) {
  kernel_entry k;
  k.name = std::move(e.name);
  k.description = std::move(e.description);
  k.size_help = std::move(e.size_help);
  k.default_size = std::move(e.default_size);
  k.bench_size = std::move(e.bench_size);
  k.accepts = std::move(e.accepts);
  k.run = std::move(e.run);
  k.native = std::move(e.native);
  return k;
}

namespace {

// The emulated build's outputs against the interpreter build's, in the order the entry compares
// them: an element agrees within its output's tolerance scaled by the output's largest magnitude
// (at least 1), as an absolute difference.
void compare_outputs(const std::string& name, emu_outcome& e) {
  const auto& a = e.emu.outputs;
  const auto& b = e.cpu.outputs;
  if (a.size() != b.size() || a.empty())
    throw std::runtime_error(fmt::format(
        "{}: its AMD-emulator build compared {} output(s), its interpreter build {}; rebuild both "
        "from the same sources",
        name, a.size(), b.size()));
  double worst = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape != b[i].shape || a[i].values.size() != b[i].values.size())
      throw std::runtime_error(
          fmt::format("{}: output {} ('{}') has another shape in the AMD-emulator build than in "
                      "the interpreter build; rebuild both from the same sources",
                      name, i, b[i].name));
    double scale = 1, d = 0;
    for (size_t j = 0; j < b[i].values.size(); ++j) {
      const double x = a[i].values[j], y = b[i].values[j];
      if (std::isfinite(y)) scale = std::max(scale, std::abs(y));
      // Equal non-finite values (an infinity both computed) agree; any other non-finite does not.
      d = std::max(
          d, std::isfinite(x) && std::isfinite(y) ? std::abs(x - y) : (x == y ? 0.0 : INFINITY));
    }
    const double allowed = b[i].tolerance * scale;
    const double r = allowed > 0 ? d / allowed : (d > 0 ? INFINITY : 0);
    if (r > worst) {
      worst = r;
      e.max_abs_diff = d;
      e.diff_tolerance = allowed;
    }
    e.agree = e.agree && d <= allowed;
  }
}

// Library entry `emu` (the emulated build) and `cpu` (the interpreter build) of one kernel, run on
// the inputs each makes from the same size and seed (the same values: both fill from bv/random).
emu_outcome run_both(const bv_kernel_entry& emu, const bv_kernel_entry& cpu,
                     const bv::library::sizes& s, uint64_t seed, target t) {
  // This program's flag too (bv/library/compare.hpp): a library's checker may be this program's.
  struct keep {
    keep() { bv::library::keep_outputs() = true; }
    ~keep() { bv::library::keep_outputs() = false; }
  } keeping;
  emu_outcome e;
  amd_emu::begin_library_run(t);
  try {
    e.emu = bv::library::run_entry(emu, s, seed, 0, true);
  } catch (...) {
    amd_emu::end_library_run(0);
    throw;
  }
  e.emu_seconds = seconds(e.emu);  // the emulated launches' (the emulator times each)
  e.counts = amd_emu::end_library_run(e.emu.launches.size());
  e.cpu = bv::library::run_entry(cpu, s, seed, bv::library::timed_samples(), true);
  compare_outputs(cpu.name, e);
  return e;
}

}  // namespace

bool load_library(const std::string& path, std::string& error) {
  bv::library::opened_library lib, emu;
  try {
    lib = bv::library::open(path);
    bv::library::expect_interpreter_build(lib);
    const std::string sibling = bv::library::amd_emu_sibling(path);
    std::error_code ec;
    if (std::filesystem::exists(sibling, ec)) {
      emu = bv::library::open(sibling);
      if (emu.backend != "amd-emu")
        throw bv::library::load_error(sibling + ": beside " + path +
                                      " but not its AMD-emulator build (it says it runs on the " +
                                      emu.backend + "); rebuild with blockvec_add_kernel_library");
    }
  } catch (const bv::library::load_error& e) {
    error = e.what();
    return false;
  }
  std::vector<bv::library::entry> entries;
  for (int i = 0; i < lib.count; ++i) entries.push_back(bv::library::to_entry(lib.entries[i]));
  // Every name is checked before any is added: a clash leaves the registry as it was.
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string& n = entries[i].name;
    const bool twice = std::any_of(entries.begin(), entries.begin() + static_cast<long>(i),
                                   [&](const auto& o) { return o.name == n; });
    if (find_kernel(n) || twice) {
      error = fmt::format(
          "{}: its kernel '{}' has the name of {} already loaded; rename it in the library (kernel "
          "names are unique across the built-in kernels and every --lib)",
          path, n, twice ? "another of its kernels" : "a kernel");
      return false;
    }
  }
  for (int i = 0; i < lib.count; ++i) {
    kernel_entry k = from_library(std::move(entries[static_cast<size_t>(i)]));
    const bv_kernel_entry* cpu = &lib.entries[i];
    const bv_kernel_entry* em = nullptr;
    for (int j = 0; j < emu.count; ++j)
      if (std::string(emu.entries[j].name) == k.name) em = &emu.entries[j];
    if (em) {
      k.run_amd_emu = [em, cpu](const bv::library::sizes& s, uint64_t seed, target t) {
        return run_both(*em, *cpu, s, seed, t);
      };
    } else {
      note_amd_emu_missing(
          k.name, emu.count ? "its library's AMD-emulator build " + emu.path + " has no such kernel"
                            : "its library has no AMD-emulator build " +
                                  bv::library::amd_emu_sibling(path) +
                                  " beside it: blockvec_add_kernel_library makes one in a build "
                                  "with the emulator");
    }
    registry().push_back(std::move(k));
  }
  return true;
}

}  // namespace bv::cli
