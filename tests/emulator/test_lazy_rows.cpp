// The conformance suite's row_online (row reductions carried through a loop as 1-D blocks, then
// read every way a 1-D block is read) through the GPU backend's AMD lowering, run by the emulator
// against the suite's double references: on 1 and 2 waves each row lies in one wave and the
// reductions' results are lazy blocks (gpu_backend/bv/gpu/block.hpp) that settle where read; on 4
// waves rows span two waves and the results are whole from the start.
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>

#include "../lang/conformance/cases.hpp"

TEST_CASE("emulator: row reductions carried through a loop, lazy on 1 and 2 waves, whole on 4") {
  using namespace conformance;
  // Fresh inputs each run (the interpreter's tests' rule; BV_TEST_SEED pins them).
  const char* pinned = std::getenv("BV_TEST_SEED");
  const uint64_t seed = pinned ? std::strtoull(pinned, nullptr, 10) : std::random_device{}();
  INFO("seed " << seed);
  auto check = [](const char* name, const outcome& o) {
    CAPTURE(name);
    CHECK_MESSAGE(o.ok, o.what);
  };
  // 64-row blocks: the 1-D map's elements are other rows than a thread's own (on 1 wave lanes 32
  // to 63, on 2 every lane but the first wave's first 32), so an unsettled read shows.
  check("row_online 77x100 64-row w1", run_row_online<64, 1, tensor_backend>(77, 100, seed));
  check("row_online 77x100 64-row w2", run_row_online<64, 2, tensor_backend>(77, 100, seed + 1));
  check("row_online 40x65 32-row w2", run_row_online<32, 2, tensor_backend>(40, 65, seed + 2));
  check("row_online 100x33 64-row w4", run_row_online<64, 4, tensor_backend>(100, 33, seed + 3));
  check("row_online 5x1 64-row w1", run_row_online<64, 1, tensor_backend>(5, 1, seed + 4));
}
