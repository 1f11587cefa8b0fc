// Comparing a GPU run with the interpreter's, element by element.
#pragma once
#include <algorithm>
#include <cmath>

#include "outcome.hpp"

namespace bv::cli {

template <class T>
double max_abs_diff(const tensor<T>& a, const tensor<T>& b) {
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = static_cast<float>(a.flat(i)), y = static_cast<float>(b.flat(i));
    if (std::isnan(x) != std::isnan(y)) return std::numeric_limits<double>::infinity();
    if (!std::isnan(x)) m = std::max(m, std::abs(x - y));
  }
  return m;
}

// Runs `cpu_run(out)` on the interpreter when asked, and fills the comparison fields.
template <class T, class Ref, class CpuRun>
gpu_outcome finish_gpu(tensor<T>& gpu_out, double gpu_ms, const Ref& ref, double tol, bool cpu,
                       double diff_tol, CpuRun cpu_run) {
  gpu_outcome g;
  g.gpu = compare_with(gpu_out, ref, tol, {});
  g.gpu_ms = gpu_ms;
  if (cpu) {
    auto cpu_out = tensor<T>::empty("out(cpu)", gpu_out.shape());
    poison(cpu_out);
    auto r = cpu_run(cpu_out);
    g.cpu = compare_with(cpu_out, ref, tol, {r});
    g.cpu_ran = true;
    g.max_abs_diff = max_abs_diff(gpu_out, cpu_out);
    g.diff_tolerance = diff_tol;
    g.agree = g.max_abs_diff <= diff_tol;
  }
  return g;
}

// Another output of a GPU run folded into its outcome, as bv::library::checker folds outputs: it
// matches while every output does, and the one furthest past its tolerance is reported.
template <class T, class R>
void fold_into(outcome& o, const tensor<T>& got, const R& ref, double tol) {
  const outcome c = compare_with(got, ref, tol);
  if (c.rel_err / c.tolerance > o.rel_err / o.tolerance) {
    o.rel_err = c.rel_err;
    o.tolerance = c.tolerance;
  }
  o.max_abs_err = std::max(o.max_abs_err, c.max_abs_err);
  o.match = o.match && c.match;
}

}  // namespace bv::cli
