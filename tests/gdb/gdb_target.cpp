// The program the gdb tests drive: a small kernel whose program 2 stops at a breakpoint_if, with
// blocks in each state (owned, a view of memory, lazy affine, fused) alive in its frame.
#include <string>

#include "bv/bv.hpp"

BV_KERNEL void scale_rows(bv::program<1> p, bv::ptr<const float> x, bv::ptr<float> out, int n) {
  auto offs = p.id(0) * 16 + bv::arange<16>(p);  // lazy: an affine form
  auto m = offs < n;
  auto v = bv::load(x + offs, m, 0.0f);  // a view of x's memory where every lane is in bounds
  auto w = v * 2.0f + 1.0f;              // fused: computed where it is consumed
  bv::breakpoint_if(p, "=2");            // @break
  bv::store(out + offs, w, m);
}

// Program 0 waits for the last program's flag, so it is parked at a wait when program 2 stops.
BV_KERNEL void handoff(bv::program<1> p, bv::ptr<int> flag, bv::ptr<float> out) {
  auto mine = p.id(0) * 10 + bv::arange<4>(p);  // a local block of each program
  if (p.id(0) == 0)
    while (bv::atomic_cas(flag, 1, 1) != 1) {  // @wait
    }
  bv::breakpoint_if(p, "=2");
  if (p.id(0) == 3) bv::atomic_xchg(flag, 1);
  bv::store(out + p.id(0), static_cast<float>(bv::sum(mine)));
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "handoff") {
    auto flag = bv::tensor<int>::zeros("flag", {1});
    auto out = bv::tensor<float>::zeros("out", {4});
    return bv::launch<handoff>(bv::grid(4), flag, out).ok() ? 0 : 1;
  }
  const int n = 60;  // four programs, the last one ragged
  auto x = bv::tensor<float>::zeros("x", {n});
  for (int i = 0; i < n; ++i) x(i) = static_cast<float>(i);
  auto out = bv::tensor<float>::zeros("out", {n});
  const auto r = bv::launch<scale_rows>(bv::grid(4), x, out, n);
  int wrong = 0;  // @after
  for (int i = 0; i < n; ++i) wrong += out(i) != 2.0f * i + 1.0f;
  return r.ok() && wrong == 0 ? 0 : 1;
}
