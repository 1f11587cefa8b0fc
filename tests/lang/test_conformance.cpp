// The conformance suite on the interpreter: every case of conformance/cases.hpp, on fresh random
// inputs at ragged sizes, under each schedule and each target. A GPU build runs the same cases
// from conformance_gpu.cu.
#include <doctest/doctest.h>

#include <bv/testing.hpp>

#include "conformance/cases.hpp"

namespace {

struct cpu_backend {
  template <class T>
  using tensor = bv::tensor<T>;
  template <class T>
  static bv::tensor<T> make(const char* name, std::vector<int64_t> shape, const std::vector<T>& v) {
    auto t = bv::tensor<T>::zeros(name, std::move(shape));
    for (int64_t i = 0; i < t.numel(); ++i) t.flat(i) = v[static_cast<size_t>(i)];
    return t;
  }
  template <class T>
  static std::vector<T> read(const bv::tensor<T>& t) {
    return t.values();
  }
  // (grid, args...) or (gpu_tuning, grid, args...), as bv::launch takes them.
  template <auto K, class... A>
  static bv::launch_result launch(A&&... args) {
    return bv::launch<K>(std::forward<A>(args)...);
  }
};

}  // namespace

TEST_CASE("conformance: every case on the interpreter, every schedule and target") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  const auto saved_sched = bv::config().sched;
  const auto saved_target = bv::config().tgt;
  for (bv::schedule s : {bv::schedule::sequential, bv::schedule::shuffled, bv::schedule::parallel})
    for (bv::target t : bv::all_targets) {
      bv::config().sched = s;
      bv::set_target(t);
      CAPTURE(bv::schedule_name(s));
      CAPTURE(bv::target_name(t));
      conformance::run_all<cpu_backend>(seed, [](const char* name, const conformance::outcome& o) {
        CAPTURE(name);
        CHECK_MESSAGE(o.ok, o.what);
      });
    }
  bv::config().sched = saved_sched;
  bv::set_target(saved_target);
}

TEST_CASE("conformance: a launch reports its configuration and target") {
  const auto saved_target = bv::config().tgt;
  for (bv::target t : bv::all_targets) {
    bv::set_target(t);
    auto x = bv::tensor<float>::randn("x", {300}, 1), y = bv::tensor<float>::randn("y", {300}, 2);
    auto out = bv::tensor<float>::empty("out", {300});
    auto sums = bv::tensor<float>::empty("sums", {2});
    const auto r = bv::launch<conformance::masked_add<256, 4>>(bv::grid(2), x, y, out, sums, 300);
    CHECK(r.ok());
    CHECK(r.programs == 2);
    CHECK(r.waves == 4);
    CHECK(r.tgt == t);
    CHECK(r.threads_per_program == 4 * bv::wave_size_of(t));
    CHECK(r.kernel.find("masked_add<256, 4>") != std::string::npos);
  }
  bv::set_target(saved_target);
}
