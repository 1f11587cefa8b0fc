// Targets: the GPUs a kernel ships to. A target fixes the wave size, the layout maps that place
// block elements on lanes (bv/layout.hpp) and the launch configuration each kernel declares for it
// (bv/launch_config.hpp). The interpreter runs a target (BV_TARGET, `blockvec run --target`), so
// what it validates is the configuration the GPU build for that target launches.
#pragma once
#include "bv/config.hpp"

namespace bv {

enum class target : int {
  gfx942 = 0,  // AMD MI300X / MI325X (CDNA3): waves of 64, MFMA
  gfx90a = 1,  // AMD MI200 (CDNA2): waves of 64, MFMA
  sm_90 = 2,   // NVIDIA H100 / H200 (Hopper): warps of 32, mma.sync / wgmma
};

inline constexpr target all_targets[] = {target::gfx942, target::gfx90a, target::sm_90};
inline constexpr int target_count = 3;
// The mission's hardware: what the interpreter runs when nothing says otherwise.
inline constexpr target default_target = target::gfx942;

BV_HD constexpr bool is_amd(target t) { return t == target::gfx942 || t == target::gfx90a; }
BV_HD constexpr int wave_size_of(target t) { return is_amd(t) ? 64 : 32; }
// Bytes of LDS (shared memory) one workgroup may allocate.
BV_HD constexpr int lds_bytes_of(target t) { return is_amd(t) ? 65536 : 232448; }

constexpr const char* target_name(target t) {
  switch (t) {
    case target::gfx942:
      return "gfx942";
    case target::gfx90a:
      return "gfx90a";
    case target::sm_90:
      return "sm_90";
  }
  return "?";
}

// "gfx942", "gfx90a", "sm_90" (also "gfx940", the name Debian's hipcc gives the MI300 family,
// and "sm_90a", nvcc's name with wgmma); false for anything else.
constexpr bool parse_target(const char* s, target& out) {
  auto eq = [](const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
  };
  if (!s) return false;
  if (eq(s, "gfx942") || eq(s, "gfx940")) return out = target::gfx942, true;
  if (eq(s, "gfx90a")) return out = target::gfx90a, true;
  if (eq(s, "sm_90") || eq(s, "sm_90a")) return out = target::sm_90, true;
  return false;
}
inline constexpr const char* target_choices = "gfx942, gfx90a or sm_90";

// The target this translation unit's device code is compiled for, when it is a GPU pass; the
// host passes of a GPU build pick the target at run time from the device (bv/gpu/runtime.hpp).
#if defined(__gfx942__) || defined(__gfx940__) || defined(__gfx941__)
inline constexpr target device_target = target::gfx942;
#elif defined(__gfx90a__)
inline constexpr target device_target = target::gfx90a;
#elif defined(__CUDA_ARCH__)
inline constexpr target device_target = target::sm_90;
#endif

}  // namespace bv
