// How a GPU runs a launch beyond its grid and arguments: the launch_config fields that only a GPU
// has a use for (bv/launch_config.hpp), handed to launch as its first argument:
//
//   launch<kernel>(gpu_tuning<Stages, MinPrograms, unit_args<7, 9>>{lds_bytes}, grid, args...)
//
//  - Stages: block-pointer rings of that many slots in lds_bytes of dynamic LDS (NVIDIA;
//    block_ptr_lds_bytes<T, R, C, W>(Stages) per block pointer; 0: no rings);
//  - MinPrograms: programs per multiprocessor the compiler must leave registers for (0: the
//    runtime's default);
//  - unit_args<I...>: the arguments at positions I (counted after the program handle) compiled in
//    as the constant 1, as Triton specialises integer arguments equal to 1, so that unit strides
//    fold into the addresses. The caller passes 1 there; every backend checks that it does.
//
// The interpreter and the AMD emulator run the kernel as a plain launch with the same arguments:
// they have no LDS rings and no register file to budget, and the arguments fixed at 1 are 1.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace bv {

template <int... I>
struct unit_args {};

template <int Stages = 0, int MinPrograms = 0, class Units = unit_args<>>
struct gpu_tuning {
  static_assert(Stages >= 0 && MinPrograms >= 0, "gpu_tuning: Stages and MinPrograms are >= 0");
  static constexpr int stages = Stages;
  static constexpr int min_programs = MinPrograms;
  using units = Units;
  int lds_bytes = 0;  // dynamic LDS for the block pointers' rings (0 without Stages)
};

namespace lang {
// Throws unless every argument at a position of U is 1 (what the GPU compiles in there).
template <int... I, class... A>
void check_unit_args(unit_args<I...>, std::string_view kernel, const A&... args) {
  if constexpr (sizeof...(I) > 0) {
    static_assert(((I >= 0 && I < static_cast<int>(sizeof...(A))) && ...),
                  "unit_args: a position beyond the kernel's arguments");
    const auto t = std::forward_as_tuple(args...);
    auto one = [&](auto i) {
      const auto& v = std::get<decltype(i)::value>(t);
      static_assert(std::is_arithmetic_v<std::remove_cvref_t<decltype(v)>>,
                    "unit_args: only integer arguments can be fixed at 1");
      if (v != 1)
        throw std::invalid_argument(
            std::string(kernel) + ": argument " + std::to_string(decltype(i)::value) +
            " is compiled in as 1 for this launch but is " + std::to_string(v));
    };
    (one(std::integral_constant<std::size_t, static_cast<std::size_t>(I)>{}), ...);
  }
}
}  // namespace lang

}  // namespace bv
