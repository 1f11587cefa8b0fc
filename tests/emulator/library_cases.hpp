// The library kernels' test problems, shared by the emulated test (test_library.cpp, compiled with
// BV_AMD_EMU) and the CPU side (library_cpu.cpp, compiled for the interpreter): the inputs, the
// interpreter's outputs and the double references cross between the two translation units as
// plain floats (each value exact in the kernel's element type), never as either backend's types.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bv/target.hpp"

namespace emu_lib {

// One tensor's values (integers for targets) and shape.
struct array {
  std::vector<int64_t> shape;
  std::vector<float> f;
  std::vector<int32_t> i;
};

// What the CPU side gives for a case: the inputs, then per output the interpreter's values and
// the double reference, and the interpreter's time for its launches with the checks off.
struct cpu_case {
  std::vector<array> inputs;
  std::vector<std::string> outputs;
  std::vector<std::vector<float>> interp;
  std::vector<std::vector<double>> ref;
  double interp_seconds = 0;
  // The kernels the interpreter's launchers (kernels/) launched, in order, each with its count of
  // programs ("name x programs"): the emulated recipes must launch the same ones, in the same
  // configurations and grids.
  std::vector<std::string> kernels;
};

// One launch as the cases record it: the kernel's name and its count of programs.
inline std::string launch_line(const std::string& kernel, int64_t programs) {
  return kernel + " x " + std::to_string(programs);
}

// The cases: a kernel (or a launcher's chain of kernels) at a small ragged size, by name.
// Element type: f32 unless the name ends in _f16 or _bf16. The norms' backward also runs on rows
// just short of 4096 (_4k) and 8192 (_wide) columns, which take the 8- and 16-wave
// configurations, the ones that are shortest of registers on AMD.
inline const std::vector<std::string>& case_names() {
  static const std::vector<std::string> names = {"add",
                                                 "copy",
                                                 "softmax",
                                                 "softmax_looped",
                                                 "rmsnorm_fwd",
                                                 "rmsnorm_bwd",
                                                 "rmsnorm_bwd_wide",
                                                 "layernorm_fwd",
                                                 "layernorm_bwd_lock",
                                                 "layernorm_bwd_lock_wide",
                                                 "layernorm_bwd_twostage",
                                                 "layernorm_bwd_twostage_4k",
                                                 "layernorm_bwd_twostage_wide",
                                                 "silu_mul_fwd",
                                                 "gelu_mul_bwd",
                                                 "dropout",
                                                 "cross_entropy_fwd",
                                                 "cross_entropy_bwd",
                                                 "matmul_f16",
                                                 "matmul_bf16",
                                                 "matmul_bias_gelu_f16",
                                                 "attention_fwd_f16",
                                                 "attention_fwd_causal_bf16",
                                                 "attention_bwd_f16",
                                                 "conv2d",
                                                 "col_sum",
                                                 "rope_split_f16"};
  return names;
}

// Runs case `name` on the interpreter for target t (seeded inputs), with its references.
cpu_case run_cpu(const std::string& name, bv::target t, uint64_t seed);

}  // namespace emu_lib
