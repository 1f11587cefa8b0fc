// A kernel's name with its template arguments ("bv::kernels::add_kernel<float, 1024, 4>"), as
// launch results, diagnostics and traces show it: read from the compiler's spelling of the
// function that names the kernel pointer K.
#pragma once
#include <string_view>

namespace bv::lang {

template <auto K>
constexpr std::string_view kernel_name_of() {
  std::string_view f = __PRETTY_FUNCTION__;
  auto b = f.find("K = ");
  if (b == std::string_view::npos) return "kernel";
  b += 4;
  auto e = f.find_first_of(";]", b);
  return f.substr(b, e - b);
}

}  // namespace bv::lang
