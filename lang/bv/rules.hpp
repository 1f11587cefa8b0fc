// The language's rules, each with the sentence a kernel author reads when a kernel breaks it.
// Written once for both backends: a backend checks static_assert(rules::name<...>()) where the rule
// applies. Each returns true, so only its own sentence fires; the static_assert around the call
// makes the compiler evaluate it there and then, so the sentence is the first error (a plain call
// is instantiated at the end of the translation unit, after the errors the mistake causes).
#pragma once
#include <type_traits>

#include "bv/dtype.hpp"

namespace bv::rules {

// Blocks and programs.
template <class T>
constexpr bool element() {
  static_assert(is_element<T>,
                "Block elements are f32, f16 (bv::half), bf16 (bv::bfloat16), i32, i64 or bool.");
  return true;
}
template <int W>
constexpr bool program_waves() {
  static_assert(W >= 1 && W <= 16 && (W & (W - 1)) == 0,
                "A program spans 1, 2, 4, 8 or 16 wavefronts: write program<4>, say.");
  return true;
}
template <bool ok>
constexpr bool broadcast_to() {
  static_assert(ok, "broadcast_to: the block's shape cannot be broadcast to the requested shape.");
  return true;
}
template <class M>
constexpr bool where_mask() {
  static_assert(std::is_same_v<M, bool>,
                "where() takes a bool block as its mask; compare first (x > 0).");
  return true;
}
template <class T>
constexpr bool bit_not() {
  static_assert(!is_float<T>, "~ needs an integer or bool block.");
  return true;
}
template <class C>
constexpr bool bitwise() {
  static_assert(!is_float<C>,
                "&, |, ^, << and >> need integer or bool blocks, not floating-point ones.");
  return true;
}
template <class T>
constexpr bool math_float() {
  static_assert(
      is_float<T>,
      "This math function takes a floating-point block; convert first with .to(bv::f32).");
  return true;
}

// Loops.
template <class Result, class Carried>
constexpr bool for_range_body() {
  static_assert(std::is_convertible_v<Result, Carried>,
                "for_range's body returns the carried value, of the type it is given (or one "
                "that converts to it): write it as [&](int k, auto acc) { ...; return acc; }.");
  return true;
}

// Reductions.
template <int Axis, int Rank>
constexpr bool reduction_axis() {
  static_assert(Axis >= 0 && Axis < Rank,
                "The reduction axis must be 0 for a 1-D block, or 0 (over rows) or 1 (over "
                "columns) for a 2-D block.");
  return true;
}
template <int Rank>
constexpr bool argmax_1d() {
  static_assert(Rank == 1, "argmax without an axis takes a 1-D block; use argmax<AXIS>.");
  return true;
}

// dot: a (M x K) times b (K2 x N), with or without an accumulator.
template <int K, int K2, bool Acc>
constexpr bool dot_inner() {
  if constexpr (Acc)
    static_assert(
        K == K2, "dot(a, b, acc) needs a's columns to equal b's rows: a is MxK and b must be KxN.");
  else
    static_assert(K == K2,
                  "dot(a, b) needs a's columns to equal b's rows: a is MxK and b must be KxN.");
  return true;
}
template <int M, int N, int K>
constexpr bool dot_min16() {
  static_assert(M >= 16 && N >= 16 && K >= 16,
                "dot needs every dimension to be at least 16, as tl.dot does (the matrix cores "
                "work on 16x16 tiles); pad the block and mask the extra rows.");
  return true;
}
template <class A, class B>
constexpr bool dot_numbers() {
  static_assert(!std::is_same_v<A, bool> && !std::is_same_v<B, bool>,
                "dot multiplies numbers, not bool blocks.");
  return true;
}
// Every rule of dot(a, b[, acc]) at once, in the order a reader checks them.
template <class A, int M, int K, class B, int K2, int N, bool Acc>
constexpr bool dot() {
  static_assert(dot_inner<K, K2, Acc>());
  static_assert(dot_min16<M, N, K>());
  return dot_numbers<A, B>();
}

// Masks, loads and stores.
template <class M>
constexpr bool mask_block() {
  static_assert(std::is_same_v<M, bool>,
                "A mask is a bool block: write offs < n, not an integer block.");
  return true;
}
template <bool ok>
constexpr bool mask_scalar() {
  static_assert(ok, "A mask is a bool block or a bool.");
  return true;
}
template <bool ok>
constexpr bool mask_shape() {
  static_assert(ok, "The mask's shape does not broadcast to the pointer block's shape.");
  return true;
}
template <bool ok>
constexpr bool other_needs_mask() {
  static_assert(ok, "load: other needs a mask.");
  return true;
}
// `other` (the value of masked-off lanes) must convert exactly to the loaded element type T, as a
// type: a floating load takes any number; an integer load an integer; a bool load a bool.
template <class T, class O>
constexpr bool load_other() {
  using U = std::remove_cv_t<T>;
  constexpr bool integral = std::is_integral_v<O> || is_int<O>;
  static_assert(std::is_same_v<U, O> || (is_float<U> && (integral || is_float<O>)) ||
                    (is_int<U> && integral && !std::is_same_v<O, bool>) ||
                    (std::is_same_v<U, bool> && std::is_same_v<O, bool>),
                "load: other (the value of masked-off lanes) must have a type that converts "
                "exactly to the loaded element type: an integer load takes an integer (0, "
                "INT32_MIN), not a floating-point value such as 0.0f or -INFINITY; a bool load "
                "takes true or false.");
  return true;
}
template <class T>
constexpr bool store_writable() {
  static_assert(!std::is_const_v<T>,
                "store: this pointer points to const data; declare the kernel parameter as "
                "bv::ptr<T>, not bv::ptr<const T>.");
  return true;
}
template <bool ok>
constexpr bool store_shape() {
  static_assert(ok, "store: the value's shape does not broadcast to the pointer block's shape.");
  return true;
}

// Atomics.
template <class T>
constexpr bool atomic_operand() {
  static_assert(!std::is_const_v<T>, "Atomics write memory: the pointer must not point to const.");
  static_assert(!std::is_same_v<std::remove_const_t<T>, bool>,
                "Atomics work on numbers, not bool.");
  return true;
}
template <class T>
constexpr bool cas_operand() {
  static_assert(!std::is_const_v<T>, "atomic_cas writes memory: the pointer must not be const.");
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomic_cas works on 4- and 8-byte elements.");
  return true;
}

// Block pointers.
template <int R, int C>
constexpr bool block_ptr_tile() {
  static_assert(R >= 1 && C >= 1,
                "make_block_ptr<R, C>: a block pointer addresses an R x C tile with R, C >= 1.");
  return true;
}
template <int N>
constexpr bool max_slots() {
  static_assert(N >= 1,
                "max_slots<N>: a block pointer's ring needs at least one slot; leave max_slots "
                "out to give it as many as the launch's stages.");
  return true;
}
template <int S>
constexpr bool loop_stages() {
  static_assert(S >= 0,
                "for_range<Stages>: a loop's stages are 0 (the target's default), 1 (one LDS image "
                "of its tiles) or more (two images in turn on AMD); not negative.");
  return true;
}

// Launches: the arguments after the grid meet the kernel's parameters after the program handle.
template <int Params, int Args>
constexpr bool launch_arity() {
  static_assert(Params == Args,
                "launch: pass exactly one argument for every kernel parameter after the program "
                "handle.");
  return true;
}
template <bool ok>
constexpr bool launch_tensor_param() {
  static_assert(ok,
                "launch: a tensor<T> argument must meet a bv::ptr<T> or bv::ptr<const T> kernel "
                "parameter of the same element type.");
  return true;
}
template <bool ok>
constexpr bool launch_param() {
  static_assert(ok, "launch: an argument does not convert to the kernel's parameter type.");
  return true;
}

}  // namespace bv::rules
