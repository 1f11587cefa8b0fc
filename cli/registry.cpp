#include "registry.hpp"

#include <algorithm>

namespace bv::cli {

std::vector<kernel_entry>& registry() {
  static std::vector<kernel_entry> r;
  return r;
}

const kernel_entry* find_kernel(const std::string& name) {
  for (const auto& e : registry())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace bv::cli
