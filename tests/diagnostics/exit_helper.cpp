// A user's program with an out-of-bounds store: it returns bv::exit_status() when asked to
// (argv[1] == "status"), else 0, so the tests can see both exit paths (and BV_EXIT_ON_ERROR=1).
#include <cstring>

#include "bv/bv.hpp"

using namespace bv;

void store_past_end(program<1> p, ptr<float> out) {
  store(out + arange<64>(p), 1.0f);  // 64 lanes into 32 elements
}

int main(int argc, char** argv) {
  config().quiet = true;
  auto out = tensor<float>::zeros("out", {32});
  launch<store_past_end>(grid(1), out);
  if (argc > 1 && std::strcmp(argv[1], "status") == 0) return exit_status();
  return 0;
}
