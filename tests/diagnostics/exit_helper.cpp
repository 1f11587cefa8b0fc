// A user's program with a bug, for the exit-status tests. Default: an out-of-bounds store; it
// returns bv::exit_status() when asked to (argv[1] == "status"), else 0, so the tests can see both
// exit paths (and BV_EXIT_ON_ERROR=1). "big": a program whose blocks take about 1.5 MiB of its
// stack (a stack overflow under a small BV_STACK); it returns 0 when every element is right.
#include <cstring>

#include "bv/bv.hpp"

using namespace bv;

void store_past_end(program<1> p, ptr<float> out) {
  store(out + arange<64>(p), 1.0f);  // 64 lanes into 32 elements
}

constexpr int k_big = 1 << 16;
void big_blocks(program<1> p, ptr<const float> in, ptr<float> out) {
  auto i = arange<k_big>(p);
  auto x = load(in + i) * 2.0f + 1.0f;  // blocks of 256 KiB, their pointers 512 KiB
  store(out + i, x);
}

int main(int argc, char** argv) {
  config().quiet = true;
  if (argc > 1 && std::strcmp(argv[1], "big") == 0) {
    auto in = tensor<float>::zeros("in", {k_big});
    for (int i = 0; i < k_big; ++i) in.data()[i] = static_cast<float>(i);
    auto out = tensor<float>::full("out", {k_big}, -1.0f);
    launch<big_blocks>(grid(1), in, out);
    for (int i = 0; i < k_big; ++i)
      if (out.data()[i] != static_cast<float>(2 * i + 1)) return 3;
    return exit_status();
  }
  auto out = tensor<float>::zeros("out", {32});
  launch<store_past_end>(grid(1), out);
  if (argc > 1 && std::strcmp(argv[1], "status") == 0) return exit_status();
  return 0;
}
