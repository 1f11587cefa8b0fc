// What an operand of a block operation is, and what two operands make together: the element type
// (Triton's promotion), the shape (broadcasting) and the program's wave count. Written once for
// both backends; a backend only says which of its types are blocks, by specialising
// operand_traits for them (its basic_block, and the interpreter's fused values).
#pragma once
#include <type_traits>

#include "bv/dtype.hpp"
#include "bv/shape.hpp"

namespace bv {

// Anything that is not a block is a scalar operand: its own element type, no shape, no waves.
template <class X>
struct operand_traits {
  static constexpr bool block = false;
  using elem = X;
  using shape_type = void;
  static constexpr int waves = 0;
};

template <class X>
inline constexpr bool is_block = operand_traits<std::remove_cvref_t<X>>::block;

template <class X>
concept Block = is_block<X>;
template <class X>
concept Scalar =
    std::is_arithmetic_v<std::remove_cvref_t<X>> || std::is_same_v<std::remove_cvref_t<X>, half> ||
    std::is_same_v<std::remove_cvref_t<X>, bfloat16>;

// The traits both backends build on; each backend's detail namespace uses them (a namespace of
// their own: the GPU backend's detail lives in an inline namespace, where bv::detail is ambiguous).
namespace lang {
template <class X>
using elem_of = typename operand_traits<std::remove_cvref_t<X>>::elem;
template <class X>
using shape_of = typename operand_traits<std::remove_cvref_t<X>>::shape_type;
template <class X>
inline constexpr int waves_of = operand_traits<std::remove_cvref_t<X>>::waves;

// The shape of a result: the operands' shapes broadcast together; a scalar takes the other's.
template <class A, class B>
struct shape_join {
  using type = broadcast_t<A, B>;
};
template <class A>
struct shape_join<A, void> {
  using type = A;
};
template <class B>
struct shape_join<void, B> {
  using type = B;
};

// The element type of a result: Triton's promotion between blocks; a C++ scalar does not widen a
// float block (scalar_promote).
template <class X, class Y>
struct result_elem {
  using type = promote_t<elem_of<X>, elem_of<Y>>;
};
template <class X, class Y>
requires(Block<X>&& Scalar<Y>) struct result_elem<X, Y> {
  using type = scalar_promote_t<elem_of<X>, std::remove_cvref_t<Y>>;
};
template <class X, class Y>
requires(Scalar<X>&& Block<Y>) struct result_elem<X, Y> {
  using type = scalar_promote_t<elem_of<Y>, std::remove_cvref_t<X>>;
};

// The operands of a binary block operation: two blocks, or a block and a scalar.
template <class X, class Y>
concept BinaryOperands = (Block<X> && (Block<Y> || Scalar<Y>)) || (Scalar<X> && Block<Y>);
// Offsets added to pointers: integers (not bool), and integer blocks.
template <class I>
concept Index = std::is_integral_v<I> && !std::is_same_v<I, bool>;
template <class B>
concept IndexBlock = Block<B> && is_int<elem_of<B>>;

template <class X, class Y>
constexpr int join_waves() {
  constexpr int a = waves_of<X>, b = waves_of<Y>;
  static_assert(a == 0 || b == 0 || a == b,
                "These blocks come from programs with different wave counts; a kernel's blocks "
                "all share its program<W>.");
  return a ? a : b;
}
// where(mask, x, y): the element type (x's and y's promoted; a scalar takes the block's), the
// shape (all three broadcast) and the waves of the result.
template <class M, class X, class Y>
struct where_result {
  using elem = std::conditional_t<
      Block<X> && Block<Y>, promote_t<elem_of<X>, elem_of<Y>>,
      std::conditional_t<Block<X>, elem_of<X>,
                         std::conditional_t<Block<Y>, elem_of<Y>, promote_t<X, Y>>>>;
  using shape_type =
      typename shape_join<typename shape_join<shape_of<M>, shape_of<X>>::type, shape_of<Y>>::type;
  static constexpr int waves = join_waves<M, X>() ? join_waves<M, X>() : waves_of<Y>;
};
}  // namespace lang

}  // namespace bv
