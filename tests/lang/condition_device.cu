// The GPU side of the program-id condition table (condition_cases.hpp), checked while compiling:
// the GPU backend's cond_holds, for a string literal (parsed by the compiler) and for a string
// made at run time (parsed on the device), must give the table's answers, and every valid literal
// must compile through print_if and breakpoint_if in device code. condition_device.sh compiles it
// with nvcc, hipcc and clang-19 (device only) and also checks that malformed literals do not
// compile, on the GPU and on the interpreter.
#include <cstdio>

#include "bv/bv.hpp"
#include "condition_cases.hpp"

static_assert(BV_GPU,
              "condition_device.cu is compiled by a GPU compiler (nvcc, hipcc, clang -x hip)");

#define BV_DEVICE_ROW(text, a, b, c, want)                                                   \
  static_assert(bv::gpu_lang::detail::cond_holds(bv::cond_literal(text), a, b, c) == (want), \
                text);                                                                       \
  static_assert(                                                                             \
      bv::gpu_lang::detail::cond_holds(static_cast<const char*>(text), a, b, c) == (want), text);
BV_COND_VALID(BV_DEVICE_ROW)
#undef BV_DEVICE_ROW

// A malformed string made at run time matches no program on the device.
#define BV_DEVICE_BAD(text, err, pos)                                                             \
  static_assert(!bv::gpu_lang::detail::cond_holds(static_cast<const char*>(text), 0, 0, 0) &&     \
                    !bv::gpu_lang::detail::cond_holds(static_cast<const char*>(text), 3, 1, 2) && \
                    bv::parse_cond(text).error == bv::cond_error::err &&                          \
                    bv::parse_cond(text).error_pos == (pos),                                      \
                text);
BV_COND_MALFORMED(BV_DEVICE_BAD)
#undef BV_DEVICE_BAD

// A string literal takes the checked cond_literal overloads, never the template for predicates
// and pointers (where an array would bind without being checked).
static_assert(!bv::gpu_lang::detail::runtime_cond<char[4]>,
              "a literal must not bind to the unchecked path");
static_assert(!bv::gpu_lang::detail::runtime_cond<const char[4]>, "nor a const array");
static_assert(bv::gpu_lang::detail::runtime_cond<const char*>,
              "a pointer is a condition made at run time");

#define BV_DEVICE_USE(text, a, b, c, want) \
  bv::print_if(p, text, "x", a);           \
  bv::breakpoint_if(p, text);
// Kernels, so that a full compile generates their code. Every literal of the table in one kernel
// is left to front-end-only checks (BV_CONDITION_SYNTAX_ONLY): its hundred device printfs take
// HIP 5.2 a minute and a half to generate.
#if BV_CONDITION_SYNTAX_ONLY
__global__ void use_every_valid_literal() {
  const bv::program<4> p{};
  BV_COND_VALID(BV_DEVICE_USE)
}
#endif
__global__ void use_some_literals() {
  const bv::program<4> p{};
  bv::print_if(p, "= 3", "x", 1);
  bv::print_if(p, " != 1 , < 2", "y", 2);
  bv::breakpoint_if(p, ">=4");
}
#undef BV_DEVICE_USE

__global__ void use_runtime_condition(const char* cond) {
  const bv::program<4> p{};
  bv::print_if(p, cond, "x", 1);
  bv::breakpoint_if(p, cond);
}
