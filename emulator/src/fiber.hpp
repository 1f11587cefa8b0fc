// Lanes' stacks: Boost.Context fibers on pooled stacks, with every switch announced to the
// sanitizers (emulator/src/fiber.cpp). The scheduler sees only these functions.
#pragma once
#include <cstddef>

namespace bv::emu::detail {

struct fiber_slot;  // one lane's fiber

// A fiber that will run main(arg) on a stack of `stack_bytes` (pooled) when first resumed.
fiber_slot* fiber_create(std::size_t stack_bytes, void (*main)(void*), void* arg);
// From the scheduler: runs the fiber until it yields or main returns. True when main returned;
// the fiber is then freed.
bool fiber_resume(fiber_slot* f);
// From inside a fiber: back to the scheduler that resumed it, until it is resumed again.
void fiber_yield(fiber_slot* f);
// From the scheduler: unwinds a suspended fiber that will never finish, and frees it.
void fiber_discard(fiber_slot* f);

}  // namespace bv::emu::detail
