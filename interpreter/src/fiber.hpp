// Programs' stacks: Boost.Context fibers on pooled stacks, with every switch announced to the
// sanitizers (interpreter/src/fiber.cpp). The scheduler sees only these functions.
#pragma once
#include <cstddef>

namespace bv::detail {

struct fiber_slot;  // one program's fiber

// A fiber that will run main(arg) on a stack of `stack_bytes` (pooled) when first resumed.
fiber_slot* fiber_create(std::size_t stack_bytes, void (*main)(void*), void* arg);
// From the scheduler: runs the fiber until it yields or main returns. True when main returned;
// the fiber is then freed.
bool fiber_resume(fiber_slot* f);
// From inside a fiber: back to the scheduler that resumed it, until it is resumed again.
void fiber_yield(fiber_slot* f);
// From the scheduler: unwinds a suspended fiber that will never finish, and frees it.
void fiber_discard(fiber_slot* f);
// Where a suspended fiber's registers are saved (Boost.Context's context pointer), or null while
// it runs: what a debugger reads to show a parked program's stack.
const void* fiber_saved_context(const fiber_slot* f);
// From each thread that runs fibers, before the first: a program that overflows its stack calls
// report(its usable stack size) from a signal handler (async-signal-safe code only) before the
// fault ends the process. The first call's report is kept.
void fiber_guard_overflow(void (*report)(std::size_t stack_bytes));

}  // namespace bv::detail
