// The conformance suite on the interpreter: every case of conformance/cases.hpp, on fresh random
// inputs at ragged sizes, under each schedule and each target (the ring and accumulator cases in
// test_conformance_rings.cpp). A GPU build runs the same cases from conformance_gpu.cu.
#include "conformance/cpu_backend.hpp"

TEST_CASE(
    "conformance: the element-wise, reduction and dot cases on the interpreter, every "
    "schedule and target") {
  conformance::check_everywhere(
      [](uint64_t seed, auto&& f) { conformance::run_ops<conformance::cpu_backend>(seed, f); });
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
