// A block or scalar as text (print_if, watch, the debugger's prompt): the dtype, then the values
// as rows.
#pragma once
#include <sstream>
#include <string>

#include "bv/cpu/block.hpp"

namespace bv::detail {

template <class X>
std::string render(const X& x) {
  std::ostringstream os;
  if constexpr (Block<X>) {
    using T = elem_of<X>;
    os << dtype_name<T>() << "[";
    for (int r = 0; r < X::rows; ++r) {
      if (X::rank == 2) os << (r ? ",\n  [" : "[");
      for (int c = 0; c < X::cols; ++c) {
        if (c) os << ", ";
        const T v = x.at(r, c);
        if constexpr (is_float<T>)
          os << static_cast<float>(v);
        else
          os << +v;
      }
      if (X::rank == 2) os << "]";
    }
    os << "]";
  } else if constexpr (Scalar<X>) {
    if constexpr (is_float<X>)
      os << static_cast<float>(x);
    else
      os << +x;
  } else {
    os << x;
  }
  return os.str();
}

// render(*static_cast<const X*>(p)): what the debugger keeps to show an op's value later.
template <class X>
std::string render_erased(const void* p) {
  return render(*static_cast<const X*>(p));
}

}  // namespace bv::detail
