// --lib PATH: a user's kernel library (bv/kernel_library.hpp) in the command's registry.
#include <fmt/core.h>

#include <algorithm>

#include "bv/library/load.hpp"
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

bool load_library(const std::string& path, std::string& error) {
  std::vector<bv::library::entry> entries;
  try {
    entries = bv::library::load(path);
  } catch (const bv::library::load_error& e) {
    error = e.what();
    return false;
  }
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
  for (auto& e : entries) registry().push_back(from_library(std::move(e)));
  return true;
}

}  // namespace bv::cli
