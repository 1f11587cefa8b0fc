// Programs' stacks: Boost.Context fibers on pooled stacks, with every switch announced to the
// sanitizers (interpreter/src/fiber.cpp). The scheduler sees only these functions; the AMD
// emulator's lanes run on them too.
#pragma once
#include <cstddef>

namespace bv::detail {

struct fiber_slot;  // one program's fiber

// Who runs on fibers (the interpreter's programs, the AMD emulator's lanes): how many finished
// fibers of a stack size a thread keeps parked for the next ones, and what to say when one
// overflows its stack: overflow(its usable stack size), called from the overflow guard's signal
// handler on the overflowing thread, so async-signal-safe code only (signal_text, below).
struct fiber_use {
  std::size_t park;
  void (*overflow)(std::size_t stack_bytes);
};

// A fiber that will run main(arg) on a stack of `stack_bytes` (pooled) when first resumed.
fiber_slot* fiber_create(std::size_t stack_bytes, void (*main)(void*), void* arg,
                         const fiber_use& use);
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
// From each thread that runs fibers, before the first: a fiber that overflows its stack calls
// its use's overflow() before the fault ends the process (the first overflow only).
void fiber_guard_overflow();

// A stack overflow's report, built without allocating and written to stderr with write(2): what
// a signal handler may do.
class signal_text {
 public:
  signal_text& operator<<(const char* s);
  signal_text& operator<<(unsigned long long v);
  // The advice both reports end with: "and this one's do not fit", then `var` (KiB) to run with,
  // four times `kib` up to `most`.
  signal_text& larger_stack(const char* var, unsigned long long kib, unsigned long long most);
  void write_stderr() const;

 private:
  char buf_[768];
  std::size_t n_ = 0;
};

}  // namespace bv::detail
