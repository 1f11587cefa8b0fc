// Writes sample traces of library kernels and of small buggy kernels, for the viewer's tests, its
// screenshots and the docs: make_traces DIR [big]. Each trace is one SQLite file in DIR.
#include <cstdio>
#include <string>

#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace {

// The classic bug: no mask on the ragged last block, so its lanes run past the end.
template <int BLOCK>
BV_KERNEL void add_nomask(bv::program<4> p, bv::ptr<const float> x, bv::ptr<const float> y,
                          bv::ptr<float> out, int n) {
  auto offs = p.id(0) * BLOCK + bv::arange<BLOCK>(p);
  auto mask = offs < n;
  auto v = bv::load(x + offs, mask) + bv::load(y + offs, mask);
  bv::print_if(p, "=1", "first lanes of program 1:", v);
  bv::store(out + offs, v);  // BUG: no mask
}

// A 2-D tile copy whose column mask uses the wrong bound: the last tile column runs past each
// row's end (into the next row) and the last row of tiles past the tensor's end.
template <int BM, int BN>
BV_KERNEL void tile_copy_bad(bv::program<4> p, bv::ptr<const float> x, bv::ptr<float> out, int M,
                             int N) {
  auto rm = p.id(0) * BM + bv::arange<BM>(p);
  auto rn = p.id(1) * BN + bv::arange<BN>(p);
  auto mask = (rm.col() < M + 2) & (rn.row() < N + 3);  // BUG: should be < M and < N
  auto v = bv::load(x + rm.col() * N + rn.row(), mask, 0.0f);
  bv::watch(p, "tile", v);
  bv::breakpoint_if(p, "=0,=0");
  bv::store(out + rm.col() * N + rn.row(), v * 2.0f, mask);
}

bool trace_to(const std::string& path) {
  bv::config().trace_path = path;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_traces DIR [big]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const bool big = argc > 2 && std::string(argv[2]) == "big";
  bv::config().quiet = true;
  bv::config().interactive = false;

  if (big) {
    // At least 10^7 accesses: vector add of 4M elements reads two and writes one per element.
    trace_to(dir + "/big_add.bvtrace");
    const int n = 1 << 22;
    auto x = bv::tensor<float>::randn("x", {n}, 1), y = bv::tensor<float>::randn("y", {n}, 2);
    auto o = bv::tensor<float>::empty("out", {n});
    bv::kernels::add(x, y, o);
    std::printf("%s\n", (dir + "/big_add.bvtrace").c_str());
    return 0;
  }

  {
    trace_to(dir + "/add.bvtrace");
    const int n = 3000;
    auto x = bv::tensor<float>::randn("x", {n}, 1), y = bv::tensor<float>::randn("y", {n}, 2);
    auto o = bv::tensor<float>::empty("out", {n});
    bv::kernels::add(x, y, o);
  }
  {
    trace_to(dir + "/add_bug.bvtrace");
    const int n = 1000;
    auto x = bv::tensor<float>::randn("x", {n}, 1), y = bv::tensor<float>::randn("y", {n}, 2);
    auto o = bv::tensor<float>::empty("out", {n});
    bv::launch<add_nomask<256>>(bv::grid(bv::cdiv(n, 256)), x, y, o, n);
  }
  {
    trace_to(dir + "/tile_bug.bvtrace");
    const int M = 50, N = 40;
    auto x = bv::tensor<float>::randn("x", {M, N}, 3);
    auto o = bv::tensor<float>::empty("out", {M, N});
    bv::launch<tile_copy_bad<16, 16>>(bv::grid(bv::cdiv(M, 16), bv::cdiv(N, 16)), x, o, M, N);
  }
  {
    trace_to(dir + "/softmax.bvtrace");
    auto x = bv::tensor<float>::randn("x", {33, 300}, 5);
    auto o = bv::tensor<float>::empty("out", {33, 300});
    bv::kernels::softmax(x, o);
  }
  {
    trace_to(dir + "/matmul.bvtrace");
    auto a = bv::tensor<float>::randn("a", {100, 70}, 3);
    auto b = bv::tensor<float>::randn("b", {70, 90}, 4);
    auto c = bv::tensor<float>::empty("c", {100, 90});
    bv::kernels::matmul<32, 32, 16, 2>(a, b, c);
  }
  bv::config().trace_path.clear();
  std::printf("traces written to %s\n", dir.c_str());
  return 0;
}
