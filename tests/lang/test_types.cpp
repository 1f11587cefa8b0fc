// Shapes broadcast like numpy and dtypes promote like Triton; integer helpers.
#include <doctest/doctest.h>

#include <type_traits>

#include "bv/bv.hpp"

namespace {
template <class A, class B, class Want>
constexpr bool bcast_is = std::is_same_v<bv::broadcast_t<A, B>, Want>;
template <class A, class B, class Want>
constexpr bool promotes_to = std::is_same_v<bv::promote_t<A, B>, Want>;
}  // namespace

TEST_CASE("shapes broadcast as in numpy") {
  using bv::shape;
  static_assert(bcast_is<shape<16>, shape<16>, shape<16>>);
  static_assert(bcast_is<shape<1>, shape<16>, shape<16>>);
  static_assert(bcast_is<shape<16>, shape<1>, shape<16>>);
  static_assert(bcast_is<shape<8, 1>, shape<1, 16>, shape<8, 16>>);
  static_assert(bcast_is<shape<1, 16>, shape<8, 1>, shape<8, 16>>);
  static_assert(bcast_is<shape<8, 16>, shape<8, 1>, shape<8, 16>>);
  // A 1-D block meets a 2-D one as a row.
  static_assert(bcast_is<shape<16>, shape<8, 16>, shape<8, 16>>);
  static_assert(bcast_is<shape<8, 16>, shape<16>, shape<8, 16>>);
  static_assert(!bv::detail::broadcast<shape<8>, shape<16>>::ok);
  static_assert(!bv::detail::broadcast<shape<8, 16>, shape<16, 8>>::ok);
  static_assert(!bv::detail::broadcast<shape<8>, shape<16, 16>>::ok);
  static_assert(bv::broadcasts_to<shape<1, 16>, shape<8, 16>>);
  static_assert(bv::broadcasts_to<shape<16>, shape<8, 16>>);
  static_assert(!bv::broadcasts_to<shape<8, 16>, shape<1, 16>>);
  static_assert(!bv::broadcasts_to<shape<8, 16>, shape<16>>);
  static_assert(shape<8, 16>::size == 128 && shape<8, 16>::rows == 8 && shape<8, 16>::cols == 16);
  static_assert(shape<32>::rank == 1 && shape<32>::rows == 1 && shape<32>::cols == 32);
  CHECK(bv::shape<4, 8>::dims[1] == 8);
}

TEST_CASE("dtypes promote as in Triton") {
  using bv::bfloat16;
  using bv::half;
  static_assert(promotes_to<float, float, float>);
  static_assert(promotes_to<half, float, float>);
  static_assert(promotes_to<float, half, float>);
  static_assert(promotes_to<bfloat16, float, float>);
  static_assert(promotes_to<half, bfloat16, float>);  // no common 16-bit type
  static_assert(promotes_to<half, half, half>);
  static_assert(promotes_to<int32_t, int64_t, int64_t>);
  static_assert(promotes_to<int32_t, float, float>);
  static_assert(promotes_to<int64_t, half, half>);
  static_assert(promotes_to<bool, int32_t, int32_t>);
  static_assert(promotes_to<float, bool, float>);
  // A C++ scalar does not widen a float block, but widens integer blocks to its width.
  static_assert(std::is_same_v<bv::scalar_promote_t<half, double>, half>);
  static_assert(std::is_same_v<bv::scalar_promote_t<float, int>, float>);
  static_assert(std::is_same_v<bv::scalar_promote_t<int32_t, float>, float>);
  static_assert(std::is_same_v<bv::scalar_promote_t<int32_t, int>, int32_t>);
  static_assert(std::is_same_v<bv::scalar_promote_t<int32_t, int64_t>, int64_t>);
  static_assert(std::is_same_v<bv::scalar_promote_t<int64_t, int>, int64_t>);
  static_assert(std::is_same_v<bv::scalar_promote_t<bool, int>, int32_t>);
  static_assert(std::is_same_v<bv::compute_t<half>, float>);
  static_assert(std::is_same_v<bv::compute_t<bfloat16>, float>);
  static_assert(std::is_same_v<bv::compute_t<int32_t>, int32_t>);
  CHECK(std::string(bv::dtype_name<bfloat16>()) == "bf16");
  CHECK(std::string(bv::dtype_name<int64_t>()) == "i64");
  CHECK(std::string(bv::dtype_name<bool>()) == "bool");
}

TEST_CASE("block expressions take the promoted type and the broadcast shape") {
  using X = bv::block<float, 8, 16>;
  using H = bv::block<bv::half, 16>;
  using I = bv::block<int32_t, 8>;
  static_assert(std::is_same_v<decltype(X{} + H{}), bv::block<float, 8, 16>>);
  static_assert(std::is_same_v<decltype(H{} * 2.0), H>);
  static_assert(std::is_same_v<decltype(I{}.col() * int64_t{3}), bv::block<int64_t, 8, 1>>);
  static_assert(std::is_same_v<decltype(I{}.col() + H{}.row()), bv::block<bv::half, 8, 16>>);
  static_assert(std::is_same_v<decltype(X{} < 0), bv::block<bool, 8, 16>>);
  static_assert(std::is_same_v<decltype(bv::sum(H{})), float>);
  static_assert(std::is_same_v<decltype(bv::sum<1>(X{})), bv::block<float, 8>>);
  static_assert(std::is_same_v<decltype(bv::argmax<0>(X{})), bv::block<int32_t, 16>>);
  static_assert(std::is_same_v<decltype(bv::exp(H{})), H>);
  CHECK(X::size == 128);
}

TEST_CASE("cdiv and next_power_of_2") {
  static_assert(bv::cdiv(10, 4) == 3);
  static_assert(bv::cdiv(8, 4) == 2);
  static_assert(bv::cdiv(int64_t{1} << 40, int64_t{1024}) == int64_t{1} << 30);
  static_assert(bv::next_power_of_2(1) == 1);
  static_assert(bv::next_power_of_2(1000) == 1024);
  for (int n = 1; n < 5000; ++n) {
    CAPTURE(n);
    const int c = bv::cdiv(n, 64);
    CHECK(c * 64 >= n);
    CHECK((c - 1) * 64 < n);
    const int p = bv::next_power_of_2(n);
    CHECK(bv::is_power_of_2(p));
    CHECK(p >= n);
    CHECK(p / 2 < n);
  }
}
