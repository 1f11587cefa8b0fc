// bv::launch: run every program of a grid on the interpreter, with the kernel's arguments bound
// once. Tensors become pointers that remember their allocation.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "bv/cpu/program.hpp"
#include "bv/cpu/ptr.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/cpu/tensor.hpp"

namespace bv {

struct grid {
  int x = 1, y = 1, z = 1;
  grid(int x_, int y_ = 1, int z_ = 1) : x(x_), y(y_), z(z_) {}
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, int>) grid(I x_, I y_ = 1, I z_ = 1)
      : x(static_cast<int>(x_)), y(static_cast<int>(y_)), z(static_cast<int>(z_)) {}
  int64_t count() const { return int64_t(x) * y * z; }
};

struct launch_result {
  std::string kernel;
  int64_t programs = 0;
  double seconds = 0;
  int errors = 0, warnings = 0;
  bool deadlocked = false;
  bool quit = false;  // the user quit at a breakpoint
  std::vector<diagnostic> diagnostics;
  bool ok() const { return errors == 0 && !deadlocked && !quit; }
};

namespace detail {
struct launch_desc {
  std::string name;
  int waves = default_waves;
  grid g{1};
  std::function<void(program_state*)> body;
  std::vector<const alloc_info*> tensors;  // tensor arguments, in order
  std::vector<bool> writable;              // whether each is bound to a ptr<T> (not ptr<const T>)
};
launch_result run_launch(launch_desc& d);

template <class P, class A>
P to_param(const A& a, launch_desc& d) {
  if constexpr (is_tensor<std::remove_cvref_t<A>>) {
    using V = typename std::remove_cvref_t<A>::value_type;
    static_assert(std::is_same_v<P, ptr<V>> || std::is_same_v<P, ptr<const V>>,
                  "launch: a tensor<T> argument must meet a bv::ptr<T> or bv::ptr<const T> "
                  "kernel parameter of the same element type.");
    d.tensors.push_back(a.info().get());
    d.writable.push_back(std::is_same_v<P, ptr<V>>);
    return static_cast<P>(a);
  } else if constexpr (std::is_arithmetic_v<P> && std::is_arithmetic_v<std::remove_cvref_t<A>>) {
    return static_cast<P>(a);
  } else {
    static_assert(std::is_convertible_v<const A&, P>,
                  "launch: an argument does not convert to the kernel's parameter type.");
    return P(a);
  }
}

template <auto K>
constexpr std::string_view kernel_name_of() {
  std::string_view f = __PRETTY_FUNCTION__;
  auto b = f.find("K = ");
  if (b == std::string_view::npos) return "kernel";
  b += 4;
  auto e = f.find_first_of(";]", b);
  return f.substr(b, e - b);
}

template <int W, class... P, class... A>
launch_result launch_named(std::string name, void (*k)(program<W>, P...), grid g, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A),
                "launch: pass exactly one argument for every kernel parameter after the program "
                "handle.");
  launch_desc d;
  d.name = std::move(name);
  d.waves = W;
  d.g = g;
  std::tuple<P...> bound{to_param<P>(args, d)...};
  d.body = [k, &bound](program_state* s) {
    std::apply([&](const auto&... a) { k(program<W>{s}, a...); }, bound);
  };
  return run_launch(d);
}
}  // namespace detail

// launch(kernel, grid, args...): the kernel is a function `void(bv::program<W>, params...)`.
template <int W, class... P, class... A>
launch_result launch(void (*k)(program<W>, P...), grid g, A&&... args) {
  return detail::launch_named({}, k, g, std::forward<A>(args)...);
}
// launch<kernel>(grid, args...): the same, and the spelling the GPU backend also accepts.
template <auto K, class... A>
launch_result launch(grid g, A&&... args) {
  return detail::launch_named(std::string(detail::kernel_name_of<K>()), K, g,
                              std::forward<A>(args)...);
}

}  // namespace bv
