// A kernel whose lanes need more stack than BV_EMU_STACK gives them (ctest runs it with 64 KiB):
// the emulator must name the lane, the workgroup, the kernel and the BV_EMU_STACK that would do
// before the fault ends the process. ctest matches that text.
#include <cstdio>

#include "bv/bv.hpp"

namespace {
// Out of the emulator's access instrumentation: these frames are the lane's stack, not memory the
// kernel was given. noipa keeps each call a real frame (no inlining, no recursion turned into a
// loop): 256 of them, a KiB each, are 4 times the stack.
__attribute__((noipa, no_sanitize_address)) int touch(volatile char* frame, int n) {
  frame[n & 1023] = 1;
  return frame[0];
}
__attribute__((noipa, no_sanitize_address)) int deep(int n) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(n);
  const int below = n > 0 ? deep(n - 1) : 0;
  return below + touch(frame, n);
}

BV_KERNEL void deep_kernel(bv::program<1>, bv::ptr<int> out) {
  out.p[bv::gpu::prim::lane_id()] = deep(256);
}
}  // namespace

int main() {
  auto out = bv::tensor<int>::empty("out", {64});
  const auto r = bv::launch<deep_kernel>(bv::grid(1), out);
  std::printf("the kernel finished without overflowing its stack (%s)\n", r.ok() ? "ok" : "not ok");
  return 0;
}
