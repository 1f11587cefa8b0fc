// Shared by the kernel-library entries (cli/kernels/*.cpp): outputs made empty and
// poisoned, several outputs checked into one outcome (the worst one decides), Eigen maps for the
// native implementations.
#pragma once
#include <Eigen/Core>
#include <algorithm>
#include <string>
#include <vector>

#include "outcome.hpp"

namespace bv::cli::lib {

using fmat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using fmap = Eigen::Map<fmat>;
using farr = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using famap = Eigen::Map<farr>;

// An output: uninitialised memory to the checks, NaN to the comparison.
template <class T>
tensor<T> output(std::string name, std::vector<int64_t> shape) {
  auto t = tensor<T>::empty(std::move(name), std::move(shape));
  poison(t);
  return t;
}

// Every output of a run compared with its reference; the outcome reports the worst.
struct checker {
  outcome o;
  bool any = false;
  template <class T, class R>
  void add(const tensor<T>& got, const R& ref, double tol) {
    const outcome c = compare_with(got, ref, tol, {});
    const bool worse = !any || c.rel_err / c.tolerance > o.rel_err / o.tolerance;
    o.max_abs_err = std::max(o.max_abs_err, c.max_abs_err);
    if (worse) {
      o.rel_err = c.rel_err;
      o.tolerance = c.tolerance;
    }
    o.match = (any ? o.match : true) && c.match;
    any = true;
  }
  void launched(const launch_result& r) { o.launches.push_back(r); }
  void launched(const std::vector<launch_result>& rs) {
    o.launches.insert(o.launches.end(), rs.begin(), rs.end());
  }
  outcome done(std::string note = {}) {
    o.note = std::move(note);
    return o;
  }
};

}  // namespace bv::cli::lib
