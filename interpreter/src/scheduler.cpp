// Programs as fibers (src/fiber.cpp), run sequentially, shuffled (seeded) or on N OS threads. A
// program that waits yields; when every program is waiting, that is a deadlock.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "bv/cpu/check.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/cpu/views.hpp"
#include "fiber.hpp"

namespace bv::detail {

void publish(std::vector<diagnostic> ds);
bool first_note(const std::string& key);
void debugger_launch_begin(launch_state& L);
void debugger_launch_end(launch_state& L);

namespace {

thread_local program_state* t_current = nullptr;
thread_local std::atomic<uint64_t>* t_epoch = nullptr;  // this worker's store count (epoch())

// The parallel schedule's helper threads, kept between launches: starting OS threads per launch
// cost more than a small launch itself (a transformer block is dozens of launches), and a kept
// thread keeps its warm fiber stacks. Never destroyed: its threads wait for work until the
// process ends (joining them from a static destructor would race with the stack pools' own).
// One launch uses it at a time; a launch from another host thread meanwhile starts its own.
class helper_pool {
 public:
  static helper_pool& get() {
    static helper_pool* p = new helper_pool;
    return *p;
  }
  // Runs job(1), ..., job(helpers) on pool threads while the caller runs main_part; returns when
  // all are done. Pool thread k always runs job(k + 1), so a share of a launch's programs goes to
  // the same thread launch after launch. false: the pool is busy with another launch (nothing
  // ran).
  bool run(int helpers, const std::function<void(int)>& job,
           const std::function<void()>& main_part) {
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard lk(mu_);
      for (; started_ < helpers; ++started_)
        std::thread([this, id = started_] { loop(id); }).detach();
      job_ = &job;
      wanted_ = helpers;
      finished_ = 0;
      ++generation_;
    }
    work_cv_.notify_all();
    main_part();
    spin_until([&] { return finished_ == helpers; });
    std::unique_lock lk(mu_);
    done_cv_.wait(lk, [&] { return finished_ == wanted_; });
    job_ = nullptr;
    return true;
  }

 private:
  // A thread that sleeps on a condition variable takes tens of microseconds to wake on this kind
  // of VM, and a launch's helpers start that late; the launches of a kernel sequence (a test, the
  // bench, a model's layers) follow each other closely. So a helper that finished, and the caller
  // waiting for helpers, first watch for the next event for a moment without sleeping.
  template <class F>
  static void spin_until(F done) {
    // One core: spinning would only keep the thread it waits for off it.
    static const bool spin = usable_cores() >= 2;
    if (!spin || done()) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(500);
    for (int i = 0;; ++i) {
      if (done()) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if ((i & 255) == 255 && std::chrono::steady_clock::now() > until) return;
    }
  }
  void loop(int id) {
    uint64_t seen = 0;
    std::unique_lock lk(mu_);
    for (;;) {
      if (generation_ == seen) {
        lk.unlock();
        spin_until([&] { return generation_ != seen; });
        lk.lock();
      }
      work_cv_.wait(lk, [&] { return generation_ != seen; });
      seen = generation_;
      if (id >= wanted_) continue;
      const std::function<void(int)>* job = job_;
      lk.unlock();
      (*job)(id + 1);
      lk.lock();
      if (++finished_ == wanted_) done_cv_.notify_all();
    }
  }
  std::mutex busy_, mu_;
  std::condition_variable work_cv_, done_cv_;
  int started_ = 0;  // threads started (detached: they live as long as the process)
  const std::function<void(int)>* job_ = nullptr;
  int wanted_ = 0;
  // Changed under mu_; atomic so that spin_until can watch them without it.
  std::atomic<int> finished_ = 0;
  std::atomic<uint64_t> generation_ = 0;
};

// A program's fiber runs this: the kernel body, with what escapes it turned into a report.
// Boost's forced unwind (fiber_discard) is no std::exception and passes through.
void program_main(void* arg) {
  auto& s = *static_cast<program_state*>(arg);
  launch_state& L = *s.launch;
  try {
    L.desc->body(&s);
  } catch (const quit_request&) {
    L.quit = true;
    L.aborted = true;
  } catch (const std::exception& e) {
    diagnostic d;
    d.kind = "exception";
    d.headline = std::string("the kernel threw: ") + e.what();
    complete(d, s.last_loc);
    report(d);
  }
}

void report_stack_overflow(std::size_t stack_bytes);
// Programs' fibers: a few finished ones parked per thread (a program that waits keeps its own);
// an overflow names the program and BV_STACK.
constexpr fiber_use program_fibers{.park = 4, .overflow = report_stack_overflow};

void start(program_state& s, std::size_t stack_bytes) {
  s.fiber = fiber_create(stack_bytes, program_main, &s, program_fibers);
}

// Runs the program until it finishes or yields; true when it finished.
bool resume(program_state& s) {
  program_state* prev = t_current;
  t_current = &s;
  s.state = program_state::status::running;
  const bool finished = fiber_resume(static_cast<fiber_slot*>(s.fiber));
  t_current = prev;
  if (finished) {
    s.state = program_state::status::done;
    s.fiber = nullptr;
  }
  return finished;
}

// Unwinds a program that will never finish (deadlock, quit).
void discard(program_state& s) {
  if (auto* f = static_cast<fiber_slot*>(s.fiber)) {
    fiber_discard(f);
    s.fiber = nullptr;
  }
}

void progress_line(launch_state& L, bool final) {
  const int64_t total = static_cast<int64_t>(L.programs.size());
  std::fprintf(stderr, "\r  programs %lld / %lld%s", static_cast<long long>(L.done.load()),
               static_cast<long long>(total), final ? "\n" : "");
}

void report_deadlock(launch_state& L, const std::vector<program_state*>& waiting) {
  // Two threads can find the deadlock at once; the one that does not report must not unwind its
  // waiting programs (their stacks hold the source locations read below) until the report is
  // written, so it waits here for the other to finish.
  static std::mutex reporting;
  std::lock_guard lk(reporting);
  if (L.deadlocked.exchange(true)) return;
  diagnostic d;
  d.kind = "deadlock";
  d.headline = "every remaining program is waiting and none can make progress (" +
               std::to_string(waiting.size()) + " waiting)";
  std::string where;
  int shown = 0;
  for (auto* w : waiting) {
    if (shown++ == 6) {
      where += ", ...";
      break;
    }
    where += (where.empty() ? "" : ", ") + std::string("(") + std::to_string(w->pid[0]) + "," +
             std::to_string(w->pid[1]) + "," + std::to_string(w->pid[2]) + ")";
    if (w->last_loc) where += " at line " + std::to_string(w->last_loc->line());
  }
  d.detail = "waiting programs: " + where;
  d.hint =
      "a lock taken with atomic_cas is never released, or programs wait for each other in a "
      "cycle; release with atomic_xchg(lock, 0) on every path";
  complete(d, waiting.empty() ? nullptr : waiting.front()->last_loc);
  if (!waiting.empty()) d.pid = waiting.front()->pid;
  // On the scheduler's stack there is no current program: report() would miss this launch.
  report_in(L, std::move(d));
}

// Called from the overflow guard's signal handler (src/fiber.cpp) on the overflowing thread:
// writes with write(2) from a buffer of its own, no allocation, no stdio.
void report_stack_overflow(std::size_t stack_bytes) {
  signal_text t;
  const program_state* s = t_current;
  t << "\nblockvec: ";
  if (s) {
    t << "program (" << s->pid[0] << "," << s->pid[1] << "," << s->pid[2] << ")";
    if (s->launch && s->launch->desc) t << " of " << s->launch->desc->name.c_str();
  } else {
    t << "a program";
  }
  t << " overflowed its stack of " << (stack_bytes >> 10) << " KiB";
  if (s && s->last_loc)
    t << " (its last access: " << s->last_loc->file_name() << ":" << s->last_loc->line() << ")";
  t << ".\n  A program's blocks live on its fiber stack,";
  t.larger_stack("BV_STACK", stack_bytes >> 10, 1ull << 20).write_stderr();  // BV_STACK's bound
}

// One worker: starts programs in L.order, keeps those that wait, and resumes them once memory
// changed. Fibers stay on the thread that started them.
void worker(launch_state& L, int home, std::size_t stack_bytes, bool show_progress,
            bool preemptive) {
  fiber_guard_overflow();
  std::atomic<uint64_t>* const outer_epoch = t_epoch;
  launch_state::epoch_slot& slot = L.epochs[static_cast<size_t>(L.epoch_slots_taken.fetch_add(1))];
  t_epoch = &slot.v;
  const read_only_set* const outer_read_only = t_read_only;
  t_read_only = &L.read_only;
  std::deque<program_state*> waiting;
  const int64_t total = static_cast<int64_t>(L.order.size());
  const size_t max_live = preemptive ? 4 : SIZE_MAX;
  // Programs are claimed a few at a time from a share's counter (one counter bumped per program
  // would bounce its cache line between the cores at every program): this thread's own share
  // first, then, once it is used up, the others' in turn (launch_state::shares says why).
  const int threads = std::max(1, L.active_threads.load());
  const int64_t chunk =
      threads > 1 ? std::clamp<int64_t>(total / (int64_t(threads) * 32), 1, 16) : 1;
  int64_t claim = 0, claim_end = 0;
  int from = home;  // the share claimed from now
  auto claim_more = [&] {
    for (int tried = 0; tried < L.n_shares; ++tried) {
      auto& sh = L.shares[static_cast<size_t>(from)];
      if (sh.next.load(std::memory_order_relaxed) < sh.end) {
        claim = std::min(sh.next.fetch_add(chunk), sh.end);
        claim_end = std::min(claim + chunk, sh.end);
        if (claim < claim_end) return;
      }
      from = (from + 1) % L.n_shares;
    }
  };
  int64_t done_here = 0;  // finished programs not yet added to L.done
  bool stalled = false;
  uint64_t stalled_epoch = 0;
  auto unstall = [&] {
    if (!stalled) return;
    slot.stalled_at.store(0);
    L.stalled_threads.fetch_sub(1);
    stalled = false;
  };
  auto flush_done = [&] {
    if (!done_here) return;
    L.done.fetch_add(done_here);
    done_here = 0;
    if (show_progress) progress_line(L, false);
  };
  auto finish = [&](program_state* s) {
    for (auto& o : L.observers) o->on_program_end(*s);
    if (++done_here == (show_progress ? 64 : 256)) flush_done();
  };
  while (!L.aborted.load(std::memory_order_relaxed)) {
    // A waiting program whose condition may have changed (memory moved on, or it was preempted).
    program_state* pick = nullptr;
    // Read only when something waits: every store bumps the epoch, on any core.
    const uint64_t now = waiting.empty() ? 0 : L.epoch();
    if (preemptive && !waiting.empty()) {
      // A random one of those that can go on. (Drawing one of all of them and stalling when it
      // could not go on took a program that was ready for deadlocked.)
      size_t ready = 0;
      for (auto* w : waiting) ready += w->waited_epoch != now || w->waited_epoch == 0;
      if (ready) {
        size_t k = std::uniform_int_distribution<size_t>(0, ready - 1)(L.rng);
        for (size_t i = 0; i < waiting.size(); ++i) {
          if (waiting[i]->waited_epoch == now && waiting[i]->waited_epoch != 0) continue;
          if (k-- == 0) {
            pick = waiting[i];
            waiting.erase(waiting.begin() + static_cast<long>(i));
            break;
          }
        }
      }
    } else {
      for (size_t i = 0; i < waiting.size(); ++i)
        if (waiting[i]->waited_epoch != now) {
          pick = waiting[i];
          waiting.erase(waiting.begin() + static_cast<long>(i));
          break;
        }
    }
    const bool may_start = waiting.size() < max_live ||
                           (preemptive && std::uniform_int_distribution<int>(0, 3)(L.rng) == 0);
    if (!pick && may_start) {
      if (claim == claim_end) claim_more();
      if (claim < claim_end) {
        pick = &L.programs[static_cast<size_t>(L.order[static_cast<size_t>(claim++)])];
        start(*pick, stack_bytes);
      }
    }
    if (pick) {
      unstall();
      if (resume(*pick))
        finish(pick);
      else
        waiting.push_back(pick);
      continue;
    }
    if (waiting.empty()) {
      if (claim == claim_end && L.all_claimed()) break;
      continue;
    }
    // Everything here waits and nothing changed since: stalled. When every live thread is
    // stalled at the same epoch, no program anywhere can make progress.
    if (!stalled) {
      stalled = true;
      stalled_epoch = now;
      slot.stalled_at.store(now);
      L.stalled_threads.fetch_add(1);
    } else if (stalled_epoch != now) {
      unstall();
      continue;
    }
    if (claim == claim_end && L.all_claimed() &&
        L.stalled_threads.load() == L.active_threads.load() && L.epoch() == stalled_epoch &&
        L.all_stalled_at(stalled_epoch)) {
      std::vector<program_state*> all;
      for (auto& p : L.programs)
        if (p.state == program_state::status::waiting) all.push_back(&p);
      report_deadlock(
          L, all.empty() ? std::vector<program_state*>(waiting.begin(), waiting.end()) : all);
      L.aborted = true;
      break;
    }
    std::this_thread::yield();
  }
  unstall();
  slot.stalled_at.store(launch_state::k_gone);
  flush_done();
  L.active_threads.fetch_sub(1);
  for (auto* s : waiting) discard(*s);
  t_epoch = outer_epoch;
  t_read_only = outer_read_only;
}

std::string kernel_from(const std::source_location& loc) {
  std::string f = loc.function_name();
  auto paren = f.find('(');
  std::string head = f.substr(0, paren);
  auto sp = head.rfind(' ');
  std::string name = sp == std::string::npos ? head : head.substr(sp + 1);
  auto with = f.find("[with ");
  if (with != std::string::npos) {
    std::string args = f.substr(with + 6);
    if (!args.empty() && args.back() == ']') args.pop_back();
    name += "<" + args + ">";
  }
  return name;
}

}  // namespace

program_state* current() { return t_current; }

launch_state* current_launch() { return t_current ? t_current->launch : nullptr; }

void record_kernel_name(const std::source_location& loc) {
  launch_state* L = current_launch();
  if (!L || L->kernel_named.load(std::memory_order_acquire)) return;  // every access comes here
  std::lock_guard lk(L->mu);
  if (L->kernel.empty()) L->kernel = kernel_from(loc);
  L->kernel_named.store(true, std::memory_order_release);
}

void note_progress() {
  if (t_epoch && current_launch()) t_epoch->fetch_add(1);
}

uint64_t progress_epoch() {
  program_state* s = t_current;
  return s && s->launch ? s->launch->epoch() : 0;
}

// Before the running program switches out (it waits, or is preempted): other programs run before
// it resumes, so the views whose memory they may write settle, and the checks' watches on the
// views that stay run while this program is still the current one (views.hpp).
static void before_switch() { settle_all_views(); }

void wait_for_progress(const std::source_location& loc, uint64_t seen) {
  program_state* s = t_current;
  if (!s) return;
  before_switch();
  s->last_loc = &loc;
  s->waited_epoch = seen ? seen : s->launch->epoch();
  s->state = program_state::status::waiting;
  fiber_yield(static_cast<fiber_slot*>(s->fiber));
  t_current = s;
  s->state = program_state::status::running;
}

// The shuffled schedule preempts programs at memory operations, so that their operations
// interleave differently for every seed.
void maybe_preempt() {
  program_state* s = t_current;
  if (!s || s->launch->sched != schedule::shuffled) return;
  if (std::uniform_int_distribution<int>(0, 3)(s->launch->rng) != 0) return;
  before_switch();
  s->waited_epoch = 0;
  s->state = program_state::status::waiting;
  fiber_yield(static_cast<fiber_slot*>(s->fiber));
  t_current = s;
  s->state = program_state::status::running;
}

void complete(diagnostic& d, const std::source_location* loc) {
  program_state* s = t_current;
  launch_state* L = current_launch();
  if (loc && d.file.empty()) {
    d.file = loc->file_name();
    d.line = static_cast<int>(loc->line());
    d.function = loc->function_name();
  }
  if (d.kernel.empty()) {
    if (L) {
      std::lock_guard lk(L->mu);
      d.kernel = L->kernel;
    }
    if (d.kernel.empty() && loc) d.kernel = kernel_from(*loc);
  }
  if (s) d.pid = s->pid;
}

void report(diagnostic d) {
  launch_state* L = current_launch();
  if (!L) {
    publish({std::move(d)});
    return;
  }
  report_in(*L, std::move(d));
}

void report_in(launch_state& launch, diagnostic d) {
  launch_state* L = &launch;
  std::lock_guard lk(L->mu);
  if (d.sev == severity::note) {
    // Notes are opt-in, and said once per kernel, source line and tensor for the whole process
    // (until clear_diagnostics): a kernel launched a thousand times says it once.
    if (!config().notes) return;
    const std::string& kernel = !L->kernel.empty() ? L->kernel : L->desc ? L->desc->name : d.kernel;
    if (!first_note(kernel + '\n' + d.kind + '\n' + d.file + ':' + std::to_string(d.line) + '\n' +
                    (d.has_tensor ? d.tensor.name : std::string())))
      return;
  }
  int& n = L->per_kind[d.kind];
  if (++n > config().max_reports_per_kind) {
    ++L->suppressed;
    // Not stored, but counted, so the error count stays exact.
    L->per_kind["#errors-suppressed"] += d.sev == severity::error;
    L->per_kind["#warnings-suppressed"] += d.sev == severity::warning;
    return;
  }
  L->diags.push_back(std::move(d));
}

// The buffers of the launch's tensor arguments that no argument lets a program write.
void find_read_only(const launch_desc& d, uint64_t serial, read_only_set& out) {
  out.serial = serial;
  auto range = [](const alloc_info* a) {
    const char* lo = static_cast<const char*>(a->buffer);
    return std::pair{lo, lo + a->numel * a->elem_bytes};
  };
  // An argument with no say (a descriptor made by hand) counts as writable.
  auto writable = [&](size_t i) { return i >= d.writable.size() || d.writable[i]; };
  for (size_t i = 0; i < d.tensors.size(); ++i) {
    const alloc_info* a = d.tensors[i];
    if (writable(i) || !a || !a->buffer || a->elem_bytes <= 0) continue;
    const auto [lo, hi] = range(a);
    bool written = false;
    for (size_t j = 0; j < d.tensors.size(); ++j) {
      const alloc_info* b = d.tensors[j];
      if (!writable(j) || !b || !b->buffer) continue;
      const auto [blo, bhi] = range(b);
      written |= blo < hi && lo < bhi;
    }
    if (!written && out.n < read_only_set::k_max) {
      out.lo[out.n] = lo;
      out.hi[out.n++] = hi;
    }
  }
}

launch_result run_launch(launch_desc& desc) {
  const options& opt = config();
  launch_result res;
  res.waves = desc.waves;
  res.tgt = opt.tgt;
  res.threads_per_program = desc.waves * opt.wave_size;
  launch_state L;
  L.desc = &desc;
  L.kernel = desc.name;
  static std::atomic<uint64_t> serials{0};
  L.serial = ++serials;
  find_read_only(desc, L.serial, L.read_only);
  L.enabled = opt.enabled;
  L.sched = opt.sched;
  L.rng.seed(opt.seed * 0x9E3779B97F4A7C15ull + 1);
  const int64_t n = desc.g.count();
  if (desc.g.x < 1 || desc.g.y < 1 || desc.g.z < 1) {
    diagnostic d;
    d.kind = "launch";
    d.kernel = desc.name;
    d.has_pid = false;
    d.headline = "the grid (" + std::to_string(desc.g.x) + "," + std::to_string(desc.g.y) + "," +
                 std::to_string(desc.g.z) + ") has a dimension below 1: nothing was run";
    d.hint = "compute the grid with cdiv(n, BLOCK) and check that n > 0 before launching";
    res.diagnostics.push_back(d);
    res.errors = 1;
    publish(res.diagnostics);
    if (!opt.quiet) std::fprintf(stderr, "%s", d.text().c_str());
    return res;
  }
  L.programs.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    auto& p = L.programs[static_cast<size_t>(i)];
    p.linear = i;
    p.pid = {static_cast<int>(i % desc.g.x), static_cast<int>((i / desc.g.x) % desc.g.y),
             static_cast<int>(i / (int64_t(desc.g.x) * desc.g.y))};
    p.grid = {desc.g.x, desc.g.y, desc.g.z};
    p.launch = &L;
  }
  L.order.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) L.order[static_cast<size_t>(i)] = i;
  if (opt.sched == schedule::shuffled) std::shuffle(L.order.begin(), L.order.end(), L.rng);

  extern std::vector<observer_factory>& observer_registry();
  static const bool builtin = (register_builtin_checks(), true);
  (void)builtin;
  for (auto f : observer_registry()) {
    auto o = f();
    if (o->bit() == 0 || (o->bit() & opt.enabled)) L.observers.push_back(std::move(o));
  }
  // The trace writer joins only while tracing: an idle observer would turn hooks on for every run.
  if (!opt.trace_path.empty())
    if (auto t = make_trace_observer()) L.observers.push_back(std::move(t));
  // Which hooks the memory fast path must call: checks with observers, the shuffled schedule's
  // preemption, breakpoints from BV_BREAK.
  extern void set_hooks_for(launch_state & L);
  set_hooks_for(L);
  debugger_launch_begin(L);
  struct launch_end {
    launch_state& L;
    ~launch_end() { debugger_launch_end(L); }
  } end_of_launch{L};
  for (auto& o : L.observers) o->begin(L);

  const bool show_progress = opt.progress && isatty(STDERR_FILENO) && n >= 256;
  const auto t0 = std::chrono::steady_clock::now();
  if (opt.sched == schedule::parallel) {
    int threads = opt.threads > 0 ? opt.threads : usable_cores();
    threads = std::max(1, std::min<int>(threads, static_cast<int>(std::min<int64_t>(n, 1024))));
    L.active_threads = threads;
    L.n_epochs = threads;
    L.epochs = std::make_unique<launch_state::epoch_slot[]>(static_cast<size_t>(threads));
    L.n_shares = threads;
    L.shares = std::make_unique<launch_state::share[]>(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      L.shares[static_cast<size_t>(t)].next = n * t / threads;
      L.shares[static_cast<size_t>(t)].end = n * (t + 1) / threads;
    }
    const std::function<void(int)> helper = [&](int home) {
      worker(L, home, opt.stack_bytes, false, false);
    };
    const std::function<void()> main_part = [&] {
      worker(L, 0, opt.stack_bytes, show_progress, false);
    };
    if (!helper_pool::get().run(threads - 1, helper, main_part)) {
      std::vector<std::thread> own;
      for (int t = 1; t < threads; ++t) own.emplace_back(helper, t);
      main_part();
      for (auto& t : own) t.join();
    }
  } else {
    L.active_threads = 1;
    L.n_epochs = 1;
    L.epochs = std::make_unique<launch_state::epoch_slot[]>(1);
    L.n_shares = 1;
    L.shares = std::make_unique<launch_state::share[]>(1);
    L.shares[0].end = n;
    worker(L, 0, opt.stack_bytes, show_progress, opt.sched == schedule::shuffled);
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (show_progress) progress_line(L, true);
  for (auto& o : L.observers) o->end(L);
  extern void clear_hooks_for(launch_state & L);
  clear_hooks_for(L);

  res.kernel = L.kernel.empty() ? desc.name : L.kernel;
  res.programs = L.done.load();
  res.seconds = std::chrono::duration<double>(t1 - t0).count();
  res.deadlocked = L.deadlocked.load();
  res.quit = L.quit.load();
  for (auto& d : L.diags) {
    if (d.kernel.empty()) d.kernel = res.kernel;
    res.errors += d.sev == severity::error;
    res.warnings += d.sev == severity::warning;
    res.notes += d.sev == severity::note;
  }
  res.errors += L.per_kind["#errors-suppressed"];
  res.warnings += L.per_kind["#warnings-suppressed"];
  res.diagnostics = L.diags;
  if (!opt.quiet && (!L.diags.empty())) {
    for (auto& d : L.diags) std::fprintf(stderr, "%s\n", d.text().c_str());
    std::fprintf(stderr, "ERROR SUMMARY: %d error(s), %d warning(s)", res.errors, res.warnings);
    if (res.notes) std::fprintf(stderr, ", %d note(s)", res.notes);
    std::fprintf(stderr, " in %s", res.kernel.c_str());
    if (L.suppressed) std::fprintf(stderr, " (%d more not printed)", L.suppressed);
    std::fprintf(stderr, "\n");
  }
  publish(L.diags);
  return res;
}

}  // namespace bv::detail
