// The conformance suite's block-pointer ring and accumulator cases on the interpreter (a file of
// their own, so that the two halves of the suite compile in parallel).
#include "conformance/cpu_backend.hpp"

TEST_CASE(
    "conformance: the block-pointer ring and accumulator cases on the interpreter, every "
    "schedule and target") {
  conformance::check_everywhere(
      [](uint64_t seed, auto&& f) { conformance::run_rings<conformance::cpu_backend>(seed, f); });
}
