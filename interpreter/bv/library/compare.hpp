// A kernel entry's result: its outputs compared with the reference (relative L2 error against a
// tolerance, the worst output deciding), and the launches it made. The blockvec command and the
// viewer print it the same for built-in kernels and for a user's library.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bv/bv.hpp"

namespace bv::library {

// One compared output's values, kept when a host asks for them (keep_outputs()): the blockvec
// command compares a kernel's outputs on two backends element by element.
struct output_values {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> values;  // row-major
  double tolerance = 0;        // its tolerance against the reference
};

struct outcome {
  double max_abs_err = 0;
  double rel_err = 0;    // relative L2 error against the reference
  double tolerance = 0;  // what rel_err must stay within
  bool match = false;
  std::vector<launch_result> launches;
  std::string note;                    // e.g. "f16 inputs"
  std::vector<output_values> outputs;  // in the order compared, when keep_outputs() was on
};

// Whether checkers keep the outputs they compare (off unless a host asks through the ABI). One per
// shared object (hidden), as timed_samples(). A host that asks sets its own as well: a library's
// calls to this header's functions may bind to the host's copies, which read the host's.
__attribute__((visibility("hidden"))) inline bool& keep_outputs() {
  static bool on = false;
  return on;
}

// An output: uninitialised memory to the checks until the kernel writes it, and a value no
// kernel writes (NaN, or a loud integer) to the comparison, so an element it forgot fails.
template <class T>
tensor<T> output(std::string name, std::vector<int64_t> shape) {
  auto t = tensor<T>::empty(std::move(name), std::move(shape));
  if constexpr (is_float<T>)
    t.fill(static_cast<T>(std::numeric_limits<float>::quiet_NaN()));
  else if constexpr (std::is_same_v<T, bool>)
    t.fill(true);
  else
    t.fill(static_cast<T>(-0x2a2a2a2a));
  return t;
}

namespace detail {
template <class R>
double ref_at(const R& r, int64_t i) {
  if constexpr (is_tensor<R>)
    return static_cast<double>(static_cast<float>(r.flat(i)));
  else
    return static_cast<double>(r[static_cast<size_t>(i)]);
}
template <class R>
int64_t ref_count(const R& r) {
  if constexpr (is_tensor<R>)
    return r.numel();
  else
    return static_cast<int64_t>(r.size());
}
}  // namespace detail

// One output against its reference (row-major over the output's view): a reference is a tensor
// or anything with size() and operator[] (std::vector<double> is the usual one).
template <class T, class R>
outcome compare_with(const tensor<T>& got, const R& ref, double tol,
                     std::vector<launch_result> launches = {}) {
  if (detail::ref_count(ref) != got.numel())
    throw std::invalid_argument("output '" + got.name() + "' has " + std::to_string(got.numel()) +
                                " elements, its reference " +
                                std::to_string(detail::ref_count(ref)));
  outcome o;
  double num = 0, den = 0;
  bool finite = true;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = static_cast<double>(static_cast<float>(got.flat(i)));
    const double r = detail::ref_at(ref, i);
    if (!std::isfinite(g) && std::isfinite(r)) finite = false;
    if (!std::isfinite(g) || !std::isfinite(r)) continue;
    const double e = std::abs(g - r);
    o.max_abs_err = std::max(o.max_abs_err, e);
    num += e * e;
    den += r * r;
  }
  o.rel_err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!finite) o.rel_err = std::numeric_limits<double>::infinity();
  o.tolerance = tol;
  o.match = finite && o.rel_err <= tol;
  o.launches = std::move(launches);
  return o;
}

// Several outputs of one run, each against its reference: the run matches when every one does,
// and reports the one furthest past (or closest to) its tolerance.
class checker {
 public:
  template <class T, class R>
  void expect(const tensor<T>& got, const R& ref, double tol) {
    const outcome c = compare_with(got, ref, tol);
    const bool worse = !any_ || c.rel_err / c.tolerance > o_.rel_err / o_.tolerance;
    o_.max_abs_err = std::max(o_.max_abs_err, c.max_abs_err);
    if (worse) {
      o_.rel_err = c.rel_err;
      o_.tolerance = c.tolerance;
      worst_ = got.name();
    }
    o_.match = (any_ ? o_.match : true) && c.match;
    any_ = true;
    if (keep_outputs()) {
      output_values v{got.name(), {got.shape().begin(), got.shape().end()}, {}, tol};
      v.values.reserve(static_cast<size_t>(got.numel()));
      for (int64_t i = 0; i < got.numel(); ++i)
        v.values.push_back(static_cast<double>(static_cast<float>(got.flat(i))));
      o_.outputs.push_back(std::move(v));
    }
  }
  bool any() const { return any_; }
  outcome result() const { return o_; }
  // The name of the output reported, the one furthest past (or closest to) its tolerance.
  const std::string& worst() const { return worst_; }
  // A note for this run in place of the kernel's own (one that names worst(), say).
  void note(std::string n) { note_ = std::move(n); }
  const std::string& note() const { return note_; }

 private:
  outcome o_;
  bool any_ = false;
  std::string worst_, note_;
};

}  // namespace bv::library
