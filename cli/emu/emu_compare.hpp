// --backend amd-emu for an entry: its inputs to the emulator (cli/emu/emu_runner.hpp) and the
// interpreter, each result against the reference and the two against each other.
#pragma once
#include "emu/emu_runner.hpp"
#include "gpu_compare.hpp"
#include "outcome.hpp"

namespace bv::cli {

inline amd_emu::array to_emu(const tensor<float>& t) {
  return {t.shape(), std::vector<float>(t.data(), t.data() + t.numel())};
}

// Runs the emulated `name` on `inputs` (the entry's tensors, in its runner's order) and
// `cpu_run(out)` on the interpreter; `out_shape` is the first output's.
template <class Ref, class CpuRun>
emu_outcome finish_emu(const std::string& name, target t,
                       const std::vector<const tensor<float>*>& inputs,
                       const std::vector<int64_t>& out_shape, const Ref& ref, double tol,
                       double diff_tol, CpuRun cpu_run) {
  std::vector<amd_emu::array> in;
  for (const auto* x : inputs) in.push_back(to_emu(*x));
  amd_emu::run_result r = amd_emu::run(name, t, in);
  auto emu_out = tensor<float>::empty("out(amd-emu)", out_shape);
  const auto& got = r.outputs.at(0).values;
  if (static_cast<int64_t>(got.size()) != emu_out.numel())
    throw std::runtime_error("the emulated output's size differs from the interpreter's");
  std::copy(got.begin(), got.end(), emu_out.data());
  emu_outcome e;
  e.emu = compare_with(emu_out, ref, tol, std::move(r.launches));
  e.counts = r.totals;
  auto cpu_out = tensor<float>::empty("out(cpu)", out_shape);
  poison(cpu_out);
  auto c = cpu_run(cpu_out);
  e.cpu = compare_with(cpu_out, ref, tol, {c});
  e.max_abs_diff = max_abs_diff(emu_out, cpu_out);
  e.diff_tolerance = diff_tol;
  e.agree = e.max_abs_diff <= diff_tol;
  return e;
}

}  // namespace bv::cli
