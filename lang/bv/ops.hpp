// The operator set of the language, as lists each backend expands with its own definition of one
// operator (X-macros): adding an operator here makes every backend define it, or fail to build.
//   BV_ARITH_OPS(X)    X(op, 'c')             + - * /
//   BV_COMPARE_OPS(X)  X(op, 'c1', 'c2')      < <= > >= == !=   (the op's two characters)
//   BV_BITWISE_OPS(X)  X(op, "op")            & | ^ << >>
//   BV_ATOMIC_OPS(X)   X(name, rmw)           atomic_add/max/min/xchg (atomic_cas has its own form)
#pragma once

#define BV_ARITH_OPS(X) X(+, '+') X(-, '-') X(*, '*') X(/, '/')
#define BV_COMPARE_OPS(X) \
  X(<, '<', ' ') X(<=, '<', '=') X(>, '>', ' ') X(>=, '>', '=') X(==, '=', '=') X(!=, '!', '=')
#define BV_BITWISE_OPS(X) X(&, "&") X(|, "|") X(^, "^") X(<<, "<<") X(>>, ">>")
#define BV_ATOMIC_OPS(X) \
  X(atomic_add, add) X(atomic_max, max) X(atomic_min, min) X(atomic_xchg, xchg)
