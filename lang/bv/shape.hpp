// Compile-time block shapes (rank 1 or 2) and numpy-style broadcasting between them.
#pragma once
#include <cstdint>

namespace bv {

template <int... D>
struct shape {
  static_assert(sizeof...(D) == 1 || sizeof...(D) == 2,
                "A block has one or two dimensions: write block<T, N> or block<T, ROWS, COLS>.");
  static_assert(((D > 0) && ...), "Every block dimension must be positive.");
  static_assert(((D > 0 && (D & (D - 1)) == 0) && ...),
                "Block dimensions must be powers of two, as in Triton: round up with "
                "next_power_of_2 and mask the extra lanes.");
  static constexpr int rank = sizeof...(D);
  static constexpr int dims[rank] = {D...};
  static constexpr int size = (D * ...);
  // A rank-1 shape (N) broadcasts as a row (1, N), as in numpy.
  static constexpr int rows = rank == 2 ? dims[0] : 1;
  static constexpr int cols = dims[rank - 1];
};

template <class S>
inline constexpr bool is_shape = false;
template <int... D>
inline constexpr bool is_shape<shape<D...>> = true;

namespace detail {
constexpr int bdim(int a, int b) { return a == b ? a : (a == 1 ? b : a); }
constexpr bool bcompatible(int a, int b) { return a == b || a == 1 || b == 1; }

template <class A, class B>
struct broadcast;
template <int A, int B>
struct broadcast<shape<A>, shape<B>> {
  static constexpr bool ok = bcompatible(A, B);
  using type = shape<bdim(A, B)>;
};
template <int A0, int A1, int B0, int B1>
struct broadcast<shape<A0, A1>, shape<B0, B1>> {
  static constexpr bool ok = bcompatible(A0, B0) && bcompatible(A1, B1);
  using type = shape<bdim(A0, B0), bdim(A1, B1)>;
};
template <int A, int B0, int B1>
struct broadcast<shape<A>, shape<B0, B1>> : broadcast<shape<1, A>, shape<B0, B1>> {};
template <int A0, int A1, int B>
struct broadcast<shape<A0, A1>, shape<B>> : broadcast<shape<A0, A1>, shape<1, B>> {};
}  // namespace detail

// The shape two blocks broadcast to; a compile error with a sentence when they cannot.
template <class A, class B>
struct broadcast_shape {
  static_assert(detail::broadcast<A, B>::ok,
                "These block shapes cannot be broadcast together: each dimension must match or be "
                "1. Use .row() / .col() to add the missing dimension explicitly.");
  using type = typename detail::broadcast<A, B>::type;
};
template <class A, class B>
using broadcast_t = typename broadcast_shape<A, B>::type;

// Whether shape From can be broadcast to shape To without changing To.
template <class From, class To>
inline constexpr bool broadcasts_to =
    detail::broadcast<From, To>::ok &&
    detail::broadcast<From, To>::type::size == To::size &&
    detail::broadcast<From, To>::type::rank == To::rank;
// A scalar (no shape) broadcasts to every shape: lets `Scalar<V> || broadcasts_to<shape_of<V>, S>`
// compile for scalar stores such as store(rstd + row, r).
template <class To>
inline constexpr bool broadcasts_to<void, To> = true;

}  // namespace bv
