// Launch configurations, declared once per kernel and launched from that declaration by both
// backends. A kernel's header holds a table, one launch_config a row:
//
//   struct rmsnorm_configs {
//     static constexpr const char* key = "row length";
//     static constexpr bv::launch_config table[] = {
//         // targets (default: all)   key up to      block           waves
//         {                           .up_to = 256,  .block = 256,   .waves = 2},
//         {.targets = bv::only(bv::target::sm_90), .up_to = 1024, .block = 1024, .waves = 4},
//         ...
//     };
//   };
//
// A launch picks the first row whose targets include the launch's target and whose `up_to` holds
// the problem's key (0: any key), as a switch would. The key is the kernel's to choose (a row
// length, a head dimension, the element size) and says so in `key`. Each kernel has one launcher
// (kernels/), which calls with_config and compiles for every backend, so the interpreter runs the
// configuration the GPU build for its target launches.
//
// with_config turns the runtime pick into compile-time template arguments: it instantiates its
// callback once per distinct configuration among the rows this build can run (every target on
// the CPU; sm_90 under nvcc; gfx942 and gfx90a under HIP), never per row or per target, so rows
// repeated for several targets cost nothing. With the key known at compile time
// (with_config_for<Decl, KEY>) only the rows that key can reach are instantiated.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bv/bv.hpp"
#include "bv/launch_tuning.hpp"
#include "bv/target.hpp"

namespace bv {

// A set of targets.
struct target_set {
  unsigned bits = 0;
  constexpr bool has(target t) const { return (bits >> static_cast<unsigned>(t)) & 1u; }
  constexpr bool meets(target_set o) const { return (bits & o.bits) != 0; }
};
template <class... T>
constexpr target_set only(T... ts) {
  return {(0u | ... | (1u << static_cast<unsigned>(ts)))};
}
inline constexpr target_set any_target{(1u << target_count) - 1};
inline constexpr target_set amd_targets = only(target::gfx942, target::gfx90a);

// One row of a kernel's table. Fields a kernel does not use stay 0. The interpreter has no LDS
// rings and no register file, so `stages` and `min_programs` only change how a GPU launches (the
// launcher hands them to launch in a gpu_tuning, bv/launch_tuning.hpp); everything else reaches
// the kernel's template arguments or its grid on every backend.
struct launch_config {
  target_set targets = any_target;  // the targets this row is for
  int64_t up_to = 0;                // the largest key this row takes; 0: any
  int variant = 0;                  // the launcher's choice among kernel variants (0: the first)
  int block = 0;                    // elements per program along the kernel's axis
  int waves = default_waves;        // waves (warps) per program
  int bm = 0, bn = 0, bk = 0;       // tile sizes
  int group_m = 0;                  // grouped program order (matmul's GROUP_M)
  int stages = 0;                   // GPU: block-pointer ring slots in LDS (0: none)
  int min_programs = 0;             // GPU: programs per SM (AMD: per CU) the registers must allow
                                    // (0: the backend's default)
  int programs = 0;                 // the grid's cap, for kernels whose programs walk rows
};

// Two rows launch the same thing when everything but their targets and key range agrees.
constexpr bool same_launch(const launch_config& a, const launch_config& b) {
  return a.variant == b.variant && a.block == b.block && a.waves == b.waves && a.bm == b.bm &&
         a.bn == b.bn && a.bk == b.bk && a.group_m == b.group_m && a.stages == b.stages &&
         a.min_programs == b.min_programs && a.programs == b.programs;
}

template <class Decl>
inline constexpr int config_count = static_cast<int>(sizeof(Decl::table) / sizeof(launch_config));

// The row a launch for target t with problem key `key` takes, or -1 when none holds it.
template <class Decl>
constexpr int find_config(target t, int64_t key) {
  for (int i = 0; i < config_count<Decl>; ++i) {
    const launch_config& c = Decl::table[i];
    if (c.targets.has(t) && (c.up_to == 0 || key <= c.up_to)) return i;
  }
  return -1;
}

namespace lang {
template <class Decl>
std::string no_config_message(target t, int64_t key, const char* kernel) {
  int64_t largest = 0;
  for (int i = 0; i < config_count<Decl>; ++i)
    if (Decl::table[i].targets.has(t) && Decl::table[i].up_to > largest)
      largest = Decl::table[i].up_to;
  std::string what = std::string(kernel) + ": ";
  if constexpr (requires { Decl::key; })
    what += std::string(Decl::key) + " ";
  else
    what += "problem size ";
  what +=
      std::to_string(key) + " is beyond every launch configuration declared for " + target_name(t);
  if (largest > 0) what += " (they take at most " + std::to_string(largest) + ")";
  return what;
}
}  // namespace lang

// The configuration a launch for target t with key `key` runs; a clear error when none holds it.
template <class Decl>
launch_config config_for(target t, int64_t key, const char* kernel = "kernel") {
  const int i = find_config<Decl>(t, key);
  if (i < 0) throw std::invalid_argument(lang::no_config_message<Decl>(t, key, kernel));
  return Decl::table[i];
}

// What with_config hands its callback: the chosen row as compile-time constants
// (decltype(c)::value.block, ...).
template <class Decl, int I>
struct chosen_config {
  static constexpr int index = I;
  static constexpr launch_config value = Decl::table[I];
};

// Any key (the key is known only at run time).
inline constexpr int64_t runtime_key = -1;

namespace lang {
// Rows the build can reach: for a runtime key, every row of a built target; for a compile-time
// key, the row that key picks on each built target.
template <class Decl, int64_t Key, unsigned Built>
constexpr bool reachable(int i) {
  if constexpr (Key == runtime_key) {
    return Decl::table[i].targets.meets(target_set{Built});
  } else {
    for (target t : all_targets)
      if (target_set{Built}.has(t) && find_config<Decl>(t, Key) == i) return true;
    return false;
  }
}
// The first reachable row that launches the same thing as row i (the one that is instantiated).
template <class Decl, int64_t Key, unsigned Built>
constexpr int canonical(int i) {
  for (int j = 0; j <= i; ++j)
    if (reachable<Decl, Key, Built>(j) && same_launch(Decl::table[j], Decl::table[i])) return j;
  return -1;
}
template <class Decl, int64_t Key, unsigned Built>
constexpr int first_canonical() {
  for (int i = 0; i < config_count<Decl>; ++i)
    if (canonical<Decl, Key, Built>(i) == i) return i;
  return -1;
}

template <class Decl, int64_t Key, unsigned Built, int I, class R, class F>
R dispatch_from(int idx, F& f) {
  if constexpr (I >= config_count<Decl>) {
    throw std::logic_error("blockvec: launch configuration row out of range");
  } else {
    if constexpr (canonical<Decl, Key, Built>(I) == I)
      if (idx == I) return f(chosen_config<Decl, I>{});
    return dispatch_from<Decl, Key, Built, I + 1, R>(idx, f);
  }
}
}  // namespace lang

// The backend-specific half: which targets this translation unit's build can launch, and the
// target a launch runs. In the GPU backend's inline namespace there, so that a program linking
// GPU- and CPU-compiled translation units keeps the two apart.
#if BV_GPU
inline namespace gpu_lang {
#if defined(__CUDACC__) && !defined(__HIP__)
inline constexpr unsigned built_targets = only(target::sm_90).bits;
#else
inline constexpr unsigned built_targets = amd_targets.bits;
#endif
// The device's target (bv/gpu/runtime.hpp: sm_90 under nvcc, gcnArchName under HIP).
inline target launch_target() { return gpu::device_target(); }
#else
inline constexpr unsigned built_targets = any_target.bits;
// The interpreter's target: BV_TARGET, `blockvec --target`, bv::set_target.
inline target launch_target() { return config().tgt; }
#endif

// f(chosen_config<Decl, I>{}) for the row a launch for target t with key `key` takes; Key, when
// given, is the key at compile time and limits the instantiations to the rows it can reach.
template <class Decl, int64_t Key = runtime_key, class F>
decltype(auto) with_config(target t, int64_t key, const char* kernel, F&& f) {
  static_assert(lang::first_canonical<Decl, Key, built_targets>() >= 0,
                "No row of this launch-configuration table is for a target this build runs (or "
                "takes the compile-time key).");
  const int i = find_config<Decl>(t, Key == runtime_key ? key : Key);
  if (i < 0) throw std::invalid_argument(lang::no_config_message<Decl>(t, key, kernel));
  if (!target_set{built_targets}.has(t))
    throw std::invalid_argument(std::string(kernel) + ": this build does not launch for " +
                                target_name(t));
  using R = decltype(f(chosen_config<Decl, lang::first_canonical<Decl, Key, built_targets>()>{}));
  return lang::dispatch_from<Decl, Key, built_targets, 0, R>(
      lang::canonical<Decl, Key, built_targets>(i), f);
}
// The same for the launch's own target (launch_target()).
template <class Decl, int64_t Key = runtime_key, class F>
decltype(auto) with_config(int64_t key, const char* kernel, F&& f) {
  return with_config<Decl, Key>(launch_target(), key, kernel, std::forward<F>(f));
}
// A key fixed at compile time (a head dimension, an element size).
template <class Decl, int64_t Key, class F>
decltype(auto) with_config_for(const char* kernel, F&& f) {
  return with_config<Decl, Key>(launch_target(), Key, kernel, std::forward<F>(f));
}

#if BV_GPU
}  // namespace gpu_lang
#endif

}  // namespace bv
