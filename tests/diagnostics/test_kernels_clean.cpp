// Corpus: the library's kernels are clean under every check, on ragged sizes.
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"
#include "corpus.hpp"

using namespace bv;

BV_DIAG_CASE_ALL(clean_kernel_add) {
  auto x = tensor<float>::randn("x", {3001}, 1), y = tensor<float>::randn("y", {3001}, 2);
  auto out = tensor<float>::empty("out", {3001});
  kernels::add(x, y, out);
  REQUIRE(out(3000) == x(3000) + y(3000));
}

BV_DIAG_CASE_ALL(clean_kernel_copy_into_empty) {
  auto x = tensor<float>::randn("x", {1500}, 3);
  auto out = tensor<float>::empty("out", {1500});
  kernels::copy(x, out);
  auto again = tensor<float>::empty("again", {1500});
  kernels::copy(out, again);  // reads what the first launch wrote
  REQUIRE(again(1499) == x(1499));
}

BV_DIAG_CASE_ALL(clean_kernel_softmax) {
  auto x = tensor<float>::randn("x", {37, 1000}, 4);
  auto out = tensor<float>::empty("out", {37, 1000});
  kernels::softmax(x, out);
}

BV_DIAG_CASE_ALL(clean_kernel_matmul) {
  auto a = tensor<float>::randn("a", {100, 70}, 5), b = tensor<float>::randn("b", {70, 90}, 6);
  auto c = tensor<float>::empty("c", {100, 90});
  kernels::matmul(a, b, c);
}
