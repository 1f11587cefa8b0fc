// The conformance cases' interpreter side (test_conformance*.cpp): tensors are bv::tensor, and a
// part of the cases runs under each schedule and each target.
#pragma once
#include <doctest/doctest.h>

#include <bv/testing.hpp>

#include "cases.hpp"

namespace conformance {

struct cpu_backend : tensor_backend {};

// part(seed, f) (run_ops<cpu_backend> or run_rings<cpu_backend>) on fresh inputs under every
// schedule and target, each case a CHECK.
template <class Part>
void check_everywhere(Part part) {
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
      part(seed, [](const char* name, const outcome& o) {
        CAPTURE(name);
        CHECK_MESSAGE(o.ok, o.what);
      });
    }
  bv::config().sched = saved_sched;
  bv::set_target(saved_target);
}

}  // namespace conformance
