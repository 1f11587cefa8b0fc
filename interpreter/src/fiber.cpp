// Programs as Boost.Context fibers on pooled stacks, with sanitizer annotations on every switch.
//
// Debian's Boost.Context is built with fcontext, which tells no sanitizer about stack switches
// (its ucontext variant, which would, needs symbols that library lacks), so this file does:
//  - AddressSanitizer: __sanitizer_start_switch_fiber before each switch and
//    __sanitizer_finish_switch_fiber after it, on both sides, or ASan takes the fiber's frames for
//    a stack overflow and leaves unwound frames poisoned on reused stacks.
//  - ThreadSanitizer: one TSan fiber per program, __tsan_switch_to_fiber right before each jump.
//    TSan also keeps a shadow call stack per fiber, pushed and popped by every instrumented
//    function: the frames between the announcement and the jump (Boost's fiber::resume, the
//    fiber's entry) would be pushed on one fiber's shadow stack and popped from the other's, and
//    the imbalance corrupts the shadow stacks. Under -fsanitize=thread this file is therefore
//    compiled without TSan instrumentation (interpreter/CMakeLists.txt): it is the only user of
//    Boost.Context, so the Boost templates it instantiates are uninstrumented too, and every
//    instrumented frame (the scheduler's, the program's) begins and ends on one fiber.
#include "fiber.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define BV_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BV_ASAN_FIBERS 1
#endif
#endif
// The build defines BV_TSAN_FIBERS for this file under -fsanitize=thread: the file itself is not
// instrumented, so __SANITIZE_THREAD__ is not set here.
#ifdef BV_ASAN_FIBERS
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                     size_t* size_old);
}
#endif
#ifdef BV_TSAN_FIBERS
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

namespace ctx = boost::context;

namespace bv::detail {
namespace {

// A program's stack with a large guard region below it. A kernel's frame holds its blocks and can
// be far larger than a page: with Boost's one guard page, such a frame's stack pointer steps over
// the guard into whatever is mapped below (another program's stack), and its writes land there
// unnoticed. 16 MiB of inaccessible address space (never backed by memory) puts any frame that
// could plausibly exist into the guard, where the fault is reported (fiber_guard_overflow, below).
// Probing large frames instead (-fstack-clash-protection) costs the interpreter's small kernels
// up to 30% of their time.
constexpr std::size_t k_guard_bytes = std::size_t{16} << 20;
class guarded_stack {
 public:
  explicit guarded_stack(std::size_t bytes) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    bytes_ = (bytes + page - 1) / page * page;
  }
  ctx::stack_context allocate() {
    void* base = mmap(nullptr, k_guard_bytes + bytes_, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    char* usable = static_cast<char*>(base) + k_guard_bytes;
    if (mprotect(usable, bytes_, PROT_READ | PROT_WRITE) != 0) {
      munmap(base, k_guard_bytes + bytes_);
      throw std::bad_alloc();
    }
    ctx::stack_context sc;
    sc.size = bytes_;
    sc.sp = usable + bytes_;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    munmap(static_cast<char*>(sc.sp) - sc.size - k_guard_bytes, k_guard_bytes + sc.size);
  }

 private:
  std::size_t bytes_;
};

// Stacks are reused across programs and launches: allocating a guarded stack per program would
// cost more than most programs run.
class stack_pool {
 public:
  explicit stack_pool(std::size_t bytes) : alloc_(bytes) {}
  ~stack_pool() {
    for (auto& sc : free_) alloc_.deallocate(sc);
  }
  // Each thread keeps a few stacks of its own, so that the parallel schedule's threads do not
  // take the pool's lock (and bounce its cache line) for every program they start and end.
  ctx::stack_context get() {
    if (!t_cache_gone) {
      cache& c = local();
      if (!c.stacks.empty()) {
        auto sc = c.stacks.back();
        c.stacks.pop_back();
        return sc;
      }
    }
    {
      std::lock_guard lk(mu_);
      if (!free_.empty()) {
        auto sc = free_.back();
        free_.pop_back();
        return sc;
      }
    }
    return alloc_.allocate();
  }
  void put(ctx::stack_context& sc) {
    // A thread's parked fibers may end after its cache did (thread-local destructors run in
    // reverse order of construction): their stacks then go straight back to the pool.
    if (t_cache_gone) return put_shared(sc);
    cache& c = local();
    if (c.stacks.size() < k_cached) {
      c.stacks.push_back(sc);
      return;
    }
    put_shared(sc);
  }

 private:
  static constexpr size_t k_cached = 8;
  struct cache {
    stack_pool* owner = nullptr;
    std::vector<ctx::stack_context> stacks;
    void flush() {
      for (auto& sc : stacks) owner->put_shared(sc);
      stacks.clear();
    }
    // Thread-local objects end before the static pools: the stacks go back to their pool.
    ~cache() {
      if (owner) flush();
      t_cache_gone = true;
    }
  };
  // Trivially destructible, so still readable while the thread's other thread-locals end.
  static inline thread_local bool t_cache_gone = false;
  cache& local() {
    thread_local cache c;
    if (c.owner != this) {
      if (c.owner) c.flush();
      c.owner = this;
    }
    return c;
  }
  void put_shared(ctx::stack_context& sc) {
    std::lock_guard lk(mu_);
    free_.push_back(sc);
  }

  std::mutex mu_;
  guarded_stack alloc_;
  std::vector<ctx::stack_context> free_;
};

stack_pool& pool_for(std::size_t bytes) {
  thread_local std::size_t last_bytes = 0;  // one size per process in practice: no lock per fiber
  thread_local stack_pool* last = nullptr;
  if (last && last_bytes == bytes) return *last;
  static std::mutex mu;
  static std::map<std::size_t, std::unique_ptr<stack_pool>> pools;
  std::lock_guard lk(mu);
  auto& p = pools[bytes];
  if (!p) p = std::make_unique<stack_pool>(bytes);
  last = p.get(), last_bytes = bytes;
  return *p;
}

thread_local ctx::stack_context t_last_stack;  // the stack the allocator just gave a fiber

struct pooled_stack {
  stack_pool* pool;
  ctx::stack_context allocate() { return t_last_stack = pool->get(); }
  void deallocate(ctx::stack_context& sc) noexcept { pool->put(sc); }
};

}  // namespace

struct fiber_slot {
  ctx::fiber self;  // the program
  ctx::fiber sink;  // the scheduler, while the program runs
  void (*main)(void*) = nullptr;
  void* arg = nullptr;
  bool finished = false;
  std::size_t stack_bytes = 0;
  fiber_use use{};
  ctx::stack_context stack{};  // [sp - size, sp), the guard region right below
#ifdef BV_ASAN_FIBERS
  const void* caller_bottom = nullptr;  // the scheduler's stack, to switch back to
  size_t caller_size = 0;
  void* caller_fake = nullptr;  // the scheduler's fake stack while the program runs
  void* self_fake = nullptr;    // the program's fake stack while it is switched out
#endif
#ifdef BV_TSAN_FIBERS
  void* tsan_self = __tsan_create_fiber(0);
  void* tsan_caller = nullptr;
  ~fiber_slot() { __tsan_destroy_fiber(tsan_self); }
#endif
};

namespace {

thread_local fiber_slot* t_running = nullptr;  // the fiber this thread runs now (overflow guard)

// The scheduler's side of a switch into the fiber, and back.
inline void to_fiber(fiber_slot* f) {
  t_running = f;
#ifdef BV_TSAN_FIBERS
  f->tsan_caller = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(f->tsan_self, 0);
#endif
#ifdef BV_ASAN_FIBERS
  __sanitizer_start_switch_fiber(&f->caller_fake, static_cast<char*>(f->stack.sp) - f->stack.size,
                                 f->stack.size);
#endif
  (void)f;
}
inline void back_in_scheduler(fiber_slot* f) {
  t_running = nullptr;
#ifdef BV_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(f->caller_fake, nullptr, nullptr);
#endif
  (void)f;
}
// The fiber's side: arrived (learning the scheduler's stack, which differs per thread), leaving.
inline void in_fiber(fiber_slot* f) {
#ifdef BV_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(f->self_fake, &f->caller_bottom, &f->caller_size);
  f->self_fake = nullptr;
#endif
  (void)f;
}
inline void out_of_fiber(fiber_slot* f, bool exiting) {
#ifdef BV_ASAN_FIBERS
  // Exiting: a null save tells ASan to drop the program's fake stack, which is never resumed.
  __sanitizer_start_switch_fiber(exiting ? nullptr : &f->self_fake, f->caller_bottom,
                                 f->caller_size);
#endif
#ifdef BV_TSAN_FIBERS
  __tsan_switch_to_fiber(f->tsan_caller, 0);
#endif
  (void)f, (void)exiting;
}

}  // namespace

namespace {
// Destroying a suspended fiber unwinds its stack, running on it; the unwinding leaves through
// the handler in fiber_create, which announces the switch back.
void destroy(fiber_slot* f) {
  to_fiber(f);
  f->self = {};
  back_in_scheduler(f);
  delete f;
}

// Fibers whose program finished stay parked on their stack and take the thread's next program:
// a launch of a thousand short programs would otherwise build and tear down a thousand fibers
// (an allocation, a stack from the pool, two extra jumps each). How many a thread keeps is the
// use's `park`: a few for programs (one that waits keeps its own fiber, and only finished ones
// park here), a workgroup's worth for the emulator's lanes.
struct parked_fibers {
  std::vector<fiber_slot*> idle;
  ~parked_fibers() {
    for (auto* f : idle) destroy(f);
  }
};
parked_fibers& parked() {
  thread_local parked_fibers p;
  return p;
}
}  // namespace

fiber_slot* fiber_create(std::size_t stack_bytes, void (*main)(void*), void* arg,
                         const fiber_use& use) {
  auto& idle = parked().idle;
  for (size_t i = idle.size(); i-- > 0;)
    if (idle[i]->stack_bytes == stack_bytes) {
      fiber_slot* f = idle[i];
      idle.erase(idle.begin() + static_cast<long>(i));
      f->main = main;
      f->arg = arg;
      f->use = use;
      f->finished = false;
      return f;
    }
  auto* f = new fiber_slot;
  f->main = main;
  f->arg = arg;
  f->use = use;
  f->stack_bytes = stack_bytes;
  // Creating a fiber already jumps onto its stack and back (Boost's entry takes its record);
  // that runs only this file's code, with no instrumented locals: no sanitizer needs to know.
  f->self = ctx::fiber(std::allocator_arg, pooled_stack{&pool_for(stack_bytes)},
                       [f](ctx::fiber&& sink) -> ctx::fiber {
                         in_fiber(f);
                         f->sink = std::move(sink);
                         try {
                           for (;;) {
                             f->main(f->arg);  // catches everything but Boost's forced unwind
                             // Parked until the scheduler hands this fiber its next program.
                             f->finished = true;
                             out_of_fiber(f, false);
                             f->sink = std::move(f->sink).resume();
                             in_fiber(f);
                           }
                         } catch (const ctx::detail::forced_unwind&) {
                           // Discarded or retired: leaving for good, through Boost's entry. The
                           // scheduler announced the switch in; announce the one out.
                           in_fiber(f);
                           out_of_fiber(f, true);
                           throw;
                         }
                       });
  f->stack = t_last_stack;
  return f;
}

bool fiber_resume(fiber_slot* f) {
  to_fiber(f);
  f->self = std::move(f->self).resume();
  back_in_scheduler(f);
  if (!f->finished) return false;
  auto& idle = parked().idle;
  if (idle.size() < f->use.park)
    idle.push_back(f);
  else
    destroy(f);
  return true;
}

void fiber_yield(fiber_slot* f) {
  out_of_fiber(f, false);
  f->sink = std::move(f->sink).resume();
  in_fiber(f);
}

void fiber_discard(fiber_slot* f) { destroy(f); }

const void* fiber_saved_context(const fiber_slot* f) {
  // A ctx::fiber is its context pointer alone (null when moved from, as while it runs).
  static_assert(sizeof(ctx::fiber) == sizeof(void*));
  void* p = nullptr;
  std::memcpy(&p, static_cast<const void*>(&f->self), sizeof p);
  return p;
}

// ---- Stack overflow --------------------------------------------------------------------------
// A program whose frames outgrow its stack faults in the guard region below it (guarded_stack).
// Without a handler that is a bare "Segmentation fault"; this one says which program overflowed
// and what to set, then lets the fault take its course (the previous action: a core dump, or a
// debugger's handler). Sanitizer builds keep their own handlers, which report it themselves.
namespace {

struct sigaction g_old_segv, g_old_bus;
std::atomic<bool> g_overflow_reported{false};

bool in_guard(const fiber_slot* f, uintptr_t a) {
  const uintptr_t bottom = reinterpret_cast<uintptr_t>(f->stack.sp) - f->stack.size;
  return a < bottom && a >= bottom - k_guard_bytes;
}
bool is_overflow(const fiber_slot* f, const void* addr, const void* uctx) {
  if (in_guard(f, reinterpret_cast<uintptr_t>(addr))) return true;
    // Or the stack pointer is already in the guard (a fault on some other address).
#if defined(__x86_64__)
  return in_guard(
      f, static_cast<uintptr_t>(static_cast<const ucontext_t*>(uctx)->uc_mcontext.gregs[REG_RSP]));
#elif defined(__aarch64__)
  return in_guard(f, static_cast<uintptr_t>(static_cast<const ucontext_t*>(uctx)->uc_mcontext.sp));
#else
  (void)uctx;
  return false;
#endif
}

void on_fault(int sig, siginfo_t* info, void* uctx) {
  const fiber_slot* f = t_running;
  if (f && f->use.overflow && is_overflow(f, info->si_addr, uctx) &&
      !g_overflow_reported.exchange(true))
    f->use.overflow(f->stack.size);
  // Returning runs the faulting instruction again, under the action there was before.
  sigaction(sig, sig == SIGSEGV ? &g_old_segv : &g_old_bus, nullptr);
}

// The handler runs on a stack of its own: the faulting one has no room left.
struct alt_stack {
  static constexpr std::size_t k_bytes = 64 * 1024;
  char* mem = nullptr;
  alt_stack() {
    mem = new char[k_bytes];
    stack_t ss{};
    ss.ss_sp = mem;
    ss.ss_size = k_bytes;
    if (sigaltstack(&ss, nullptr) != 0) {
      delete[] mem;
      mem = nullptr;
    }
  }
  ~alt_stack() {
    if (!mem) return;
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    delete[] mem;
  }
};

}  // namespace

void fiber_guard_overflow() {
#if !defined(BV_ASAN_FIBERS) && !defined(BV_TSAN_FIBERS)
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
    sigaction(SIGBUS, &sa, &g_old_bus);
  });
  thread_local alt_stack alt;
  (void)alt;
#endif
}

signal_text& signal_text::operator<<(const char* s) {
  while (*s && n_ < sizeof buf_) buf_[n_++] = *s++;
  return *this;
}
signal_text& signal_text::operator<<(unsigned long long v) {
  char d[24];
  int k = 0;
  do d[k++] = static_cast<char>('0' + v % 10);
  while ((v /= 10) && k < 24);
  while (k && n_ < sizeof buf_) buf_[n_++] = d[--k];
  return *this;
}
signal_text& signal_text::larger_stack(const char* var, unsigned long long kib,
                                       unsigned long long most) {
  return *this << " and this one's do not fit. Run it again with a larger stack: " << var << "="
               << (kib * 4 < most ? kib * 4 : most) << " (KiB; at most " << most << ").\n";
}
void signal_text::write_stderr() const {
  for (std::size_t off = 0; off < n_;) {
    const ssize_t w = ::write(STDERR_FILENO, buf_ + off, n_ - off);
    if (w <= 0) break;
    off += static_cast<std::size_t>(w);
  }
}

}  // namespace bv::detail
