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
#include "bv/grid.hpp"
#include "bv/kernel_name.hpp"
#include "bv/launch_result.hpp"
#include "bv/launch_tuning.hpp"

namespace bv {

namespace detail {
struct launch_desc {
  std::string name;
  int waves = default_waves;
  grid g{1};
  std::function<void(program_state*)> body;
  std::vector<const alloc_info*> tensors;  // tensor arguments, in order
  std::vector<bool> writable;              // whether each is bound to a ptr<T> (not ptr<const T>)
  // A GPU launch's stages and dynamic LDS (gpu_tuning): what the target's block-pointer rings
  // may take (bv/rings.hpp; block_ptr.hpp checks it, ring-lds). 0 and 0 for a plain launch.
  int ring_stages = 0, ring_lds = 0;
};
launch_result run_launch(launch_desc& d);

template <class P, class A>
P to_param(const A& a, launch_desc& d) {
  if constexpr (is_tensor<std::remove_cvref_t<A>>) {
    using V = typename std::remove_cvref_t<A>::value_type;
    static_assert(rules::launch_tensor_param<(std::is_same_v<P, ptr<V>> ||
                                              std::is_same_v<P, ptr<const V>>)>());
    d.tensors.push_back(a.info().get());
    d.writable.push_back(std::is_same_v<P, ptr<V>>);
    return static_cast<P>(a);
  } else if constexpr (std::is_arithmetic_v<P> && std::is_arithmetic_v<std::remove_cvref_t<A>>) {
    return static_cast<P>(a);
  } else {
    static_assert(rules::launch_param<(std::is_convertible_v<const A&, P>)>());
    return P(a);
  }
}

template <int W, class... P, class... A>
launch_result launch_named(std::string name, int ring_stages, int ring_lds,
                           void (*k)(program<W>, P...), grid g, A&&... args) {
  static_assert(rules::launch_arity<sizeof...(P), sizeof...(A)>());
  launch_desc d;
  d.name = std::move(name);
  d.waves = W;
  d.g = g;
  d.ring_stages = ring_stages;
  d.ring_lds = ring_lds;
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
  return detail::launch_named({}, 0, 0, k, g, std::forward<A>(args)...);
}
// launch<kernel>(grid, args...): the same, and the spelling the GPU backend also accepts.
template <auto K, class... A>
launch_result launch(grid g, A&&... args) {
  return detail::launch_named(std::string(lang::kernel_name_of<K>()), 0, 0, K, g,
                              std::forward<A>(args)...);
}
// launch<kernel>(gpu_tuning<...>{lds_bytes}, grid, args...): how a GPU would run it
// (bv/launch_tuning.hpp); here a plain launch, once the arguments it fixes at 1 are checked, and
// with the block pointers' rings held to the dynamic LDS it gives (ring-lds).
template <auto K, int Stages, int MinPrograms, class Units, class... A>
launch_result launch(gpu_tuning<Stages, MinPrograms, Units> t, grid g, A&&... args) {
  lang::check_unit_args(Units{}, lang::kernel_name_of<K>(), args...);
  return detail::launch_named(std::string(lang::kernel_name_of<K>()), Stages, t.lds_bytes, K, g,
                              std::forward<A>(args)...);
}

}  // namespace bv
