// --backend amd-emu for an entry (cli/kernels/*.cpp): the entry's inputs to its emulated runner
// (cli/emu/emu_runner.hpp) and the same inputs to the interpreter, each output against the
// reference and the two against each other, element by element.
//
//   return emu_compare("rmsnorm", t).in(x).in(w)
//       .cpu([&] { return kernels::rmsnorm_fwd(x, w, y, rstd); })
//       .out(0, y, ref.y, 1e-5, 1e-5).out(1, rstd, ref.rstd, 1e-5, 1e-5).done();
//
// The emulator runs first, when cpu() is called; out(i, ...) compares the runner's i-th output.
#pragma once
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bv/library/compare.hpp"
#include "emu/emu_runner.hpp"
#include "gpu_compare.hpp"
#include "outcome.hpp"

namespace bv::cli {

template <class T>
amd_emu::array to_emu(const tensor<T>& t) {
  amd_emu::array a{t.shape(), {}, {}};
  if constexpr (std::is_same_v<T, int32_t>) {
    a.ints.assign(t.data(), t.data() + t.numel());
  } else {
    a.values.resize(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i)
      a.values[static_cast<size_t>(i)] = static_cast<float>(t.data()[i]);
  }
  return a;
}

class emu_compare {
 public:
  emu_compare(std::string runner, target t) : name_(std::move(runner)), tgt_(t) {}

  // The runner's next input, in the order its comment in cli/emu/run_*.cpp gives.
  template <class T>
  emu_compare& in(const tensor<T>& x) {
    if (!x.is_contiguous())
      throw std::invalid_argument("amd-emu: input '" + x.name() + "' must be contiguous");
    inputs_.push_back(to_emu(x));
    return *this;
  }
  // The runner's next integer parameter.
  emu_compare& param(int64_t v) {
    params_.push_back(v);
    return *this;
  }
  // The emulated run, then `launch()` on the interpreter (a launch_result or several) with the
  // entry's own outputs, through launch_warm so that bench times it as it times `run`.
  template <class Launch>
  emu_compare& cpu(Launch&& launch) {
    emu_ = amd_emu::run(name_, tgt_, inputs_, params_);
    auto r = launch_warm(launch);
    if constexpr (std::is_same_v<std::decay_t<decltype(r)>, launch_result>)
      cpu_launches_.push_back(std::move(r));
    else
      cpu_launches_.insert(cpu_launches_.end(), r.begin(), r.end());
    return *this;
  }
  // Output i of the runner against `ref` (within tol, relative L2) and against the interpreter's
  // `cpu_out` (every element within diff_tol).
  template <class T, class R>
  emu_compare& out(size_t i, const tensor<T>& cpu_out, const R& ref, double tol, double diff_tol) {
    if (i >= emu_.outputs.size())
      throw std::logic_error("amd-emu: " + name_ + " gave " + std::to_string(emu_.outputs.size()) +
                             " output(s), output " + std::to_string(i) + " asked for");
    const auto& got = emu_.outputs[i].values;
    auto emu_out = tensor<T>::empty(cpu_out.name() + "(amd-emu)", cpu_out.shape());
    if (static_cast<int64_t>(got.size()) != emu_out.numel())
      throw std::runtime_error("amd-emu: " + name_ + "'s output " + std::to_string(i) + " has " +
                               std::to_string(got.size()) + " elements, the interpreter's " +
                               std::to_string(emu_out.numel()));
    for (int64_t j = 0; j < emu_out.numel(); ++j)
      emu_out.data()[j] = static_cast<T>(got[static_cast<size_t>(j)]);
    emu_check_.expect(emu_out, ref, tol);
    cpu_check_.expect(cpu_out, ref, tol);
    const double d = max_abs_diff(emu_out, cpu_out);
    // The output furthest past (or closest to) its allowed difference is the one reported.
    const double r = diff_tol > 0 ? d / diff_tol : (d > 0 ? INFINITY : 0);
    if (!any_ || r > worst_) {
      worst_ = r;
      e_.max_abs_diff = d;
      e_.diff_tolerance = diff_tol;
    }
    e_.agree = e_.agree && d <= diff_tol;
    any_ = true;
    return *this;
  }
  emu_outcome done(std::string note = {}) {
    if (!any_) throw std::logic_error("amd-emu: " + name_ + " compared no output");
    e_.emu = emu_check_.result();
    e_.emu.launches = std::move(emu_.launches);
    e_.emu.note = note;
    e_.cpu = cpu_check_.result();
    e_.cpu.launches = std::move(cpu_launches_);
    e_.cpu.note = std::move(note);
    e_.counts = emu_.totals;
    e_.emu_seconds = emu_.seconds;
    return std::move(e_);
  }

 private:
  std::string name_;
  target tgt_;
  std::vector<amd_emu::array> inputs_;
  std::vector<int64_t> params_;
  amd_emu::run_result emu_;
  std::vector<launch_result> cpu_launches_;
  bv::library::checker emu_check_, cpu_check_;
  emu_outcome e_;
  bool any_ = false;
  double worst_ = 0;
};

}  // namespace bv::cli
