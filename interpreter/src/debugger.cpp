// print_if, breakpoint_if and the prompt a stopped program offers; BV_BREAK; device_assert.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "bv/cpu/check.hpp"
#include "bv/cpu/debug.hpp"
#include "bv/cpu/debug_query.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/dtype.hpp"
#include "fiber.hpp"

// blockvec's gdb extension rides in the program that links the interpreter: gdb reads the
// script from this section (an inline Python script) when it loads the program, if the program's
// directory is a trusted auto-load path.
#ifdef BV_GDB_SCRIPT
// Kept as written: clang-format would split the .incbin line around the macro.
// clang-format off
asm(".pushsection \".debug_gdb_scripts\", \"MS\",@progbits,1\n"
    ".byte 4\n"
    ".ascii \"blockvec_gdb.py\\n\"\n"
    ".incbin \"" BV_GDB_SCRIPT "\"\n"
    ".byte 0\n"
    ".popsection\n");
// clang-format on
#endif

// What the gdb extension reads and calls (plain C, so gdb needs no debug information for them).
extern "C" {
// The running launch, or null.
__attribute__((used)) volatile void* bv_gdb_launch = nullptr;
// Set by the extension when it took a stop in bv_gdb_stop: the program then continues instead of
// offering the terminal prompt.
__attribute__((used)) volatile int bv_gdb_ack = 0;
// breakpoint_if and BV_BREAK under gdb stop here (the extension breaks on it and selects the
// kernel's frame at file:line).
__attribute__((noinline, used)) void bv_gdb_stop(const char* file, unsigned line, const char* why) {
  asm volatile("" : : "r"(file), "r"(line), "r"(why) : "memory");
}
__attribute__((used)) const void* bv_gdb_current() { return bv::detail::current(); }
__attribute__((used)) int bv_gdb_program_count() {
  auto* L = static_cast<bv::detail::launch_state*>(const_cast<void*>(bv_gdb_launch));
  return L ? static_cast<int>(L->programs.size()) : 0;
}
__attribute__((used)) void* bv_gdb_program(int i) {
  auto* L = static_cast<bv::detail::launch_state*>(const_cast<void*>(bv_gdb_launch));
  if (!L || i < 0 || i >= static_cast<int>(L->programs.size())) return nullptr;
  return &L->programs[static_cast<size_t>(i)];
}
// Where a parked program's registers are saved; null if it runs or has no stack.
__attribute__((used)) const void* bv_gdb_fiber_context(const void* program) {
  const auto* p = static_cast<const bv::detail::program_state*>(program);
  if (!p || !p->fiber) return nullptr;
  return bv::detail::fiber_saved_context(static_cast<const bv::detail::fiber_slot*>(p->fiber));
}
// 1 if the running program's id matches cond (breakpoint_if's grammar), 0 if not, -1 if cond
// is malformed or no program runs.
__attribute__((used)) int bv_gdb_pid_matches(const char* cond) {
  const bv::detail::program_state* s = bv::detail::current();
  bool r = false;
  std::string err;
  if (!s || !bv::parse_pid_cond(cond ? cond : "", s->pid, r, err)) return -1;
  return r ? 1 : 0;
}
__attribute__((used)) int bv_gdb_cond_ok(const char* cond) {
  bool r = false;
  std::string err;
  return bv::parse_pid_cond(cond ? cond : "", {0, 0, 0}, r, err) ? 1 : 0;
}
}

namespace bv {

namespace {
const char* const bad_condition_hint =
    "write one comparison per axis (=, ==, !=, <, <=, >, >= and a whole number), separated by "
    "commas: \"=0,>1\"; an empty part matches any id";
}  // namespace

std::string cond_error_message(std::string_view text, const parsed_cond& c) {
  const auto pos = std::min<std::size_t>(static_cast<std::size_t>(c.error_pos), text.size());
  const std::string_view bad = text.substr(pos, static_cast<std::size_t>(c.error_len));
  std::string m = "'" + std::string(text) + "' " + cond_error_text(c.error);
  m += ": ";
  m += bad.empty() ? "nothing" : "'" + std::string(bad) + "'";
  m += " at character " + std::to_string(pos + 1);
  return m;
}

bool parse_pid_cond(const std::string& text, const std::array<int, 3>& pid, bool& result,
                    std::string& error) {
  const pid_cond c(text);
  if (!c.parsed.ok()) {
    error = cond_error_message(text, c.parsed);
    return false;
  }
  result = c.parsed.matches(pid[0], pid[1], pid[2]);
  return true;
}

bool pid_cond::matches(const std::array<int, 3>& pid) const {
  if (pred) return pred(pid[0], pid[1], pid[2]);
  if (parsed.ok()) return parsed.matches(pid[0], pid[1], pid[2]);
  // Once per launch and condition, not once per program; but every launch that uses a bad
  // condition hears about it (a process-wide once would stay silent after the first).
  static std::mutex mu;
  static std::set<std::pair<uint64_t, std::string>> reported;
  const detail::launch_state* L = detail::current_launch();
  bool first = true;
  if (L) {
    std::lock_guard lk(mu);
    first = reported.insert({L->serial, text}).second;
  }
  if (first) {
    diagnostic d;
    d.kind = "bad-condition";
    d.sev = severity::error;
    d.headline = "the program-id condition " + cond_error_message(text, parsed);
    d.hint = bad_condition_hint;
    detail::complete(d, &loc);
    detail::report(d);
  }
  return false;
}

namespace detail {
namespace {
std::mutex g_io;
std::atomic<int> g_stepping{0};

struct break_spec {
  std::string cond;
  std::optional<pid_cond> parsed;  // cond, parsed once per launch
  std::string file;
  int line = 0;
};
break_spec g_env_break;
bool g_env_break_set = false;
stop_handler g_stop_handler;  // the viewer's live mode; empty: the terminal prompt

void notify(const program_state& s, debug_event::kind k, const std::source_location* loc,
            std::string_view name, std::string_view text) {
  if (!s.launch) return;
  const debug_event e{k, loc, name, text};
  for (auto& o : s.launch->observers) o->on_debug(s, e);
}

std::string pid_text(const program_state& s) {
  return "(" + std::to_string(s.pid[0]) + "," + std::to_string(s.pid[1]) + "," +
         std::to_string(s.pid[2]) + ")";
}

// What the ops of a program produced while the debugger could stop it, one entry per source line
// (the latest), for `p @LINE` and `w`. A memory op keeps where it read or wrote and shows memory
// as it is when printed; a reduction or dot keeps its result's text.
struct op_value {
  std::string file;
  unsigned line = 0;
  std::string op;
  std::string text;  // reductions and dots
  const alloc_info* alloc = nullptr;
  int64_t base = 0;
  std::vector<int64_t> off;
  std::vector<bool> mask;  // empty: every lane
  int rows = 1, cols = 1, waves = 1, rank = 1;
  bool store = false;
};
std::map<const program_state*, std::vector<op_value>> g_values;  // under g_io
uint64_t g_values_launch = 0;
// `n`: the line the program steps away from (it stops at the first op of another line).
struct line_step {
  std::string file;
  unsigned line = 0;
};
std::map<const program_state*, line_step> g_line_steps;  // under g_io
// A breakpoint_if ran in this process: from then on, on a terminal or in the viewer, programs
// keep their ops' values so that a program stopped later can print them.
std::atomic<bool> g_breakpoints_seen{false};

// What debug_query.hpp's setters asked for. Their own mutex: a front end sets them from its own
// thread while a stopped program holds g_io.
std::mutex g_live_mu;
struct live_break {
  debug::line_breakpoint bp;
  pid_cond parsed;
};
std::vector<live_break> g_line_bps;  // under g_live_mu
std::optional<std::array<int, 3>> g_run_to;
bool g_stop_on_diag = false, g_record = false;
std::function<void(const debug::launch_view&)> g_progress;
std::chrono::milliseconds g_progress_every{100};
// Whether any of them is on (every launch then takes the hooks and records op values), and
// whether one of them may stop a program (stores then wait for the checks, as when stepping).
std::atomic<bool> g_live{false}, g_live_stops{false};
void live_changed() {  // under g_live_mu
  g_live_stops = !g_line_bps.empty() || g_run_to || g_stop_on_diag;
  g_live = g_live_stops || g_record || static_cast<bool>(g_progress);
}

// The accesses of the current launch (debug::record_accesses), under g_rec_mu.
std::mutex g_rec_mu;
uint64_t g_rec_launch = 0;
struct element_counts {
  std::vector<uint32_t> reads, writes;
};
std::map<const alloc_info*, element_counts> g_rec_all;
// Per program, the elements each of its accesses touched, in order; capped so that a long run
// does not grow without bound (the per-tensor counts above go on).
std::map<const program_state*, std::map<const alloc_info*, std::vector<int64_t>>> g_rec_reads,
    g_rec_writes;
size_t g_rec_kept = 0;
constexpr size_t k_rec_cap = size_t(1) << 24;
// The line of each program's last op, for line breakpoints (under g_live_mu).
std::map<const program_state*, unsigned> g_prev_line;
uint64_t g_prev_launch = 0;
// Diagnostics of the current launch already looked at by stop-on-diagnostic (under the launch's
// mu).
uint64_t g_diag_launch = 0;
size_t g_diag_seen = 0;

bool recording(const program_state& s) {
  return s.stepping || g_env_break_set || g_live.load(std::memory_order_relaxed) ||
         (g_breakpoints_seen.load(std::memory_order_relaxed) &&
          (config().interactive || static_cast<bool>(g_stop_handler)));
}

std::vector<op_value>& values_of(const program_state& s) {
  if (s.launch && s.launch->serial != g_values_launch) {
    g_values.clear();
    g_line_steps.clear();
    g_values_launch = s.launch->serial;
  }
  return g_values[&s];
}

void keep(const program_state& s, op_value v) {
  std::lock_guard lk(g_io);
  auto& vs = values_of(s);
  for (auto& e : vs)
    if (e.line == v.line && e.file == v.file) {
      e = std::move(v);
      return;
    }
  vs.push_back(std::move(v));
}

// One element of a buffer as text, by the tensor's dtype.
// clang-format off
std::string element_text(const char* dtype, const char* p) {
  char buf[48];
  auto num = [&](double v) { return std::snprintf(buf, sizeof buf, "%g", v), std::string(buf); };
  const std::string d = dtype ? dtype : "";
  if (d == "f32") { float v; std::memcpy(&v, p, 4); return num(v); }
  if (d == "f64") { double v; std::memcpy(&v, p, 8); return num(v); }
  if (d == "f16") { half v; std::memcpy(&v, p, 2); return num(static_cast<float>(v)); }
  if (d == "bf16") { bfloat16 v; std::memcpy(&v, p, 2); return num(static_cast<float>(v)); }
  if (d == "i32") { int32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
  if (d == "i64") { int64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
  if (d == "i16") { int16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
  if (d == "i8") { int8_t v; std::memcpy(&v, p, 1); return std::to_string(v); }
  if (d == "u8") { uint8_t v; std::memcpy(&v, p, 1); return std::to_string(v); }
  if (d == "u32") { uint32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
  if (d == "bool") return *p ? "true" : "false";
  return "?";
}
// clang-format on

// A memory op's lanes as memory holds them now: masked-off lanes as '-', lanes outside the
// tensor as 'oob'.
debug::live_block to_live_block(const op_value& v) {
  debug::live_block b;
  b.file = v.file;
  b.line = v.line;
  b.op = v.op;
  b.text = v.text;
  b.store = v.store;
  if (!v.alloc) return b;
  b.tensor = v.alloc->name;
  b.dtype = v.alloc->dtype ? v.alloc->dtype : "?";
  b.numel = v.alloc->numel;
  b.rows = v.rows;
  b.cols = v.cols;
  b.waves = v.waves;
  b.rank = v.rank;
  const size_t n = v.off.size();
  b.element.resize(n);
  b.active.resize(n);
  b.value.resize(n);
  const char* buf = static_cast<const char*>(v.alloc->buffer);
  for (size_t i = 0; i < n; ++i) {
    const int64_t e = v.base + v.off[i];
    b.element[i] = e;
    b.active[i] = v.mask.empty() || v.mask[i];
    if (!b.active[i])
      b.value[i] = "-";
    else if (!buf || e < 0 || e >= v.alloc->numel)
      b.value[i] = "oob";
    else
      b.value[i] = element_text(v.alloc->dtype, buf + e * v.alloc->elem_bytes);
  }
  return b;
}

// Whether a step stop at loc is skipped: `n` steps over the rest of its line.
bool same_line_step(const program_state& s, const std::source_location* loc) {
  auto it = g_line_steps.find(&s);
  if (it == g_line_steps.end()) return false;
  if (loc && loc->line() == it->second.line && it->second.file == loc->file_name()) return true;
  g_line_steps.erase(it);
  return false;
}

// Whether a debugger traces this process (it then gets the stop, if blockvec's extension is in it).
bool under_debugger() {
  static const bool traced = [] {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return false;
    char line[256];
    long pid = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "TracerPid: %ld", &pid) == 1) break;
    std::fclose(f);
    return pid != 0;
  }();
  return traced;
}

std::string where(const std::source_location* loc) {
  return loc ? std::string(loc->file_name()) + ":" + std::to_string(loc->line()) : "?";
}

void print_state(const program_state& s, const std::source_location* loc) {
  std::fprintf(stderr, "  program %s", pid_text(s).c_str());
  if (loc) std::fprintf(stderr, " at %s:%u", loc->file_name(), loc->line());
  std::fprintf(stderr, "\n");
  for (auto& [k, v] : s.watched) std::fprintf(stderr, "    %s = %s\n", k.c_str(), v.c_str());
}

// Under g_io. `n` (by_line) steps over the rest of loc's line.
void start_step(program_state& s, const std::source_location* loc, bool by_line) {
  if (!s.stepping) g_stepping.fetch_add(1), hooks.fetch_add(1);
  s.stepping = true;
  values_of(s);  // a new launch forgets the last one's line steps first
  if (by_line && loc)
    g_line_steps[&s] = {loc->file_name(), loc->line()};
  else
    g_line_steps.erase(&s);
}
void end_step(program_state& s) {
  if (s.stepping) g_stepping.fetch_sub(1), hooks.fetch_sub(1);
  s.stepping = false;
}

void prompt(program_state& s, const std::source_location* loc, const char* why,
            const access* a = nullptr) {
  notify(s, debug_event::kind::stop, loc, why, {});
  std::lock_guard lk(g_io);
  s.state = program_state::status::stopped;
  if (loc) s.last_loc = loc;  // valid while it is stopped: what a debugger shows as its line
  if (g_stop_handler) {
    const stop_action act = g_stop_handler(s, loc, why, a);
    if (act == stop_action::step || act == stop_action::step_line)
      start_step(s, loc, act == stop_action::step_line);
    else
      end_step(s);
    s.state = program_state::status::running;
    if (act == stop_action::quit) throw quit_request{};
    return;
  }
  if (under_debugger()) {
    // gdb with blockvec's extension takes the stop (the kernel's frame selected there); this
    // program continues when gdb does.
    bv_gdb_ack = 0;
    bv_gdb_stop(loc ? loc->file_name() : "", loc ? loc->line() : 0, why);
    if (bv_gdb_ack) {
      bv_gdb_ack = 0;
      end_step(s);
      s.state = program_state::status::running;
      return;
    }
  }
  std::fprintf(stderr, "blockvec: %s\n", why);
  print_state(s, loc);
  if (!config().interactive) {
    std::fprintf(stderr, "  (stdin is not a terminal: continuing)\n");
    s.state = program_state::status::running;
    return;
  }
  std::fprintf(stderr,
               "  commands: p NAME (a watched value), p @LINE (what the op at LINE made), w (every "
               "value), l (list programs), s (step to the next op), n (step to the next line), "
               "c (continue), q (quit)\n");
  std::string line;
  for (;;) {
    std::fprintf(stderr, "(bv) ");
    std::fflush(stderr);
    if (!std::getline(std::cin, line)) {
      std::fprintf(stderr, "\n  end of input: continuing\n");
      break;
    }
    std::stringstream ss(line);
    std::string cmd, arg;
    ss >> cmd >> arg;
    if (cmd == "c" || cmd == "continue" || cmd.empty()) break;
    if (cmd == "s" || cmd == "step" || cmd == "n" || cmd == "next") {
      start_step(s, loc, cmd[0] == 'n');
      s.state = program_state::status::running;
      return;
    }
    if (cmd == "q" || cmd == "quit") {
      s.state = program_state::status::running;
      throw quit_request{};
    }
    if (cmd == "w" || cmd == "watch") {
      const auto vs = debug::live_blocks(s);
      if (s.watched.empty() && vs.empty())
        std::fprintf(stderr,
                     "  no values yet: add bv::watch(p, \"name\", value) to the kernel, or step "
                     "(s, n) to record what each op makes\n");
      for (auto& [k, v] : s.watched)
        if (k[0] != '#') std::fprintf(stderr, "  %s = %s\n", k.c_str(), v.c_str());
      for (const auto& v : vs)
        std::fprintf(stderr, "  @%u %s = %s\n", v.line, v.op.c_str(), debug::block_text(v).c_str());
      continue;
    }
    if ((cmd == "p" || cmd == "print") && !arg.empty() && arg[0] == '@') {
      const unsigned line = static_cast<unsigned>(std::atoi(arg.c_str() + 1));
      bool found = false;
      for (const auto& v : debug::live_blocks(s))
        if (v.line == line) {
          std::fprintf(stderr, "  @%u %s (%s) = %s\n", v.line, v.op.c_str(), v.file.c_str(),
                       debug::block_text(v).c_str());
          found = true;
        }
      if (!found)
        std::fprintf(stderr,
                     "  no op at line %u has run in this program since values were recorded "
                     "(after a breakpoint_if, on a terminal; or while stepping)\n",
                     line);
      continue;
    }
    if (cmd == "p" || cmd == "print") {
      bool found = false;
      for (auto& [k, v] : s.watched)
        if (k == arg) std::fprintf(stderr, "  %s = %s\n", k.c_str(), v.c_str()), found = true;
      if (!found)
        std::fprintf(stderr, "  '%s' is not watched; watched: %zu value(s) (w lists them)\n",
                     arg.c_str(), s.watched.size());
      continue;
    }
    if (cmd == "l" || cmd == "list") {
      const debug::launch_view lv = debug::program_states(s);
      int shown = 0;
      size_t done = 0;
      for (size_t i = 0; i < lv.programs.size(); ++i) {
        const debug::program_row& q = lv.programs[i];
        done += q.state == debug::program_status::done || q.state == debug::program_status::error;
        if (q.state == debug::program_status::not_started || shown > 64) continue;
        if (shown++ == 64) {
          std::fprintf(stderr, "  ...\n");
          continue;
        }
        std::fprintf(stderr, "  %s %s%s\n", pid_text(s.launch->programs[i]).c_str(),
                     debug::status_name(q.state), &s.launch->programs[i] == &s ? "  <- here" : "");
      }
      std::fprintf(stderr, "  %zu of %zu programs done\n", done, lv.programs.size());
      continue;
    }
    std::fprintf(stderr, "  unknown command '%s'\n", cmd.c_str());
  }
  end_step(s);
  s.state = program_state::status::running;
}

debug::launch_view view_of(launch_state& L, bool ended) {
  debug::launch_view v;
  v.serial = L.serial;
  v.ended = ended;
  v.programs.resize(L.programs.size());
  for (size_t i = 0; i < L.programs.size(); ++i) {
    const program_state& q = L.programs[i];
    if (i == 0) v.grid = q.grid;
    debug::program_row& r = v.programs[i];
    r.pid = q.pid;
    using st = program_state::status;
    // last_loc may point into the program's stack: read only while it has one.
    const bool live = q.state == st::running || q.state == st::waiting || q.state == st::stopped;
    r.line = live && q.last_loc ? q.last_loc->line() : 0;
    r.state = q.state == st::pending   ? debug::program_status::not_started
              : q.state == st::running ? debug::program_status::running
              : q.state == st::waiting ? debug::program_status::waiting
              : q.state == st::stopped ? debug::program_status::stopped
                                       : debug::program_status::done;
  }
  std::lock_guard lk(L.mu);
  v.kernel = !L.kernel.empty() ? L.kernel : L.desc ? L.desc->name : std::string();
  const auto& g = v.grid;
  for (const diagnostic& d : L.diags) {
    if (d.sev != severity::error) continue;
    ++v.errors;
    if (!d.has_pid) continue;
    const int64_t i = d.pid[0] + int64_t(g[0]) * (d.pid[1] + int64_t(g[1]) * d.pid[2]);
    if (i < 0 || i >= static_cast<int64_t>(v.programs.size())) continue;
    auto& st = v.programs[static_cast<size_t>(i)].state;
    if (st != debug::program_status::stopped) st = debug::program_status::error;
  }
  return v;
}

void record_access(const program_state& s, const access& a) {
  std::lock_guard lk(g_rec_mu);
  if (s.launch && s.launch->serial != g_rec_launch) {
    g_rec_all.clear();
    g_rec_reads.clear();
    g_rec_writes.clear();
    g_rec_kept = 0;
    g_rec_launch = s.launch->serial;
  }
  element_counts& c = g_rec_all[a.alloc];
  const auto n = static_cast<size_t>(a.alloc->numel);
  if (c.reads.size() != n) c.reads.assign(n, 0), c.writes.assign(n, 0);
  const bool read = a.kind != access_kind::store, write = a.kind != access_kind::load;
  std::vector<int64_t>* mine_r =
      g_rec_kept < k_rec_cap && read ? &g_rec_reads[&s][a.alloc] : nullptr;
  std::vector<int64_t>* mine_w =
      g_rec_kept < k_rec_cap && write ? &g_rec_writes[&s][a.alloc] : nullptr;
  for (int i = 0; i < a.lanes; ++i) {
    if (a.mask && !a.mask[i]) continue;
    const int64_t e = a.base + a.off[i];
    if (e < 0 || e >= a.alloc->numel) continue;
    if (read) ++c.reads[static_cast<size_t>(e)];
    if (write) ++c.writes[static_cast<size_t>(e)];
    if (mine_r) mine_r->push_back(e), ++g_rec_kept;
    if (mine_w) mine_w->push_back(e), ++g_rec_kept;
  }
}

// Where a front end asked to stop besides BV_BREAK: the stop's reason, or empty.
std::string live_stop_reason(program_state& s, const std::source_location* loc, bool memory_op) {
  if (!g_live_stops.load(std::memory_order_relaxed) || s.state == program_state::status::stopped)
    return {};
  if (memory_op && s.launch) {
    bool on = false;
    {
      std::lock_guard lk(g_live_mu);
      on = g_stop_on_diag;
    }
    if (on) {
      launch_state& L = *s.launch;
      std::lock_guard lk(L.mu);
      if (g_diag_launch != L.serial) g_diag_launch = L.serial, g_diag_seen = 0;
      std::string why;
      for (size_t i = g_diag_seen; i < L.diags.size(); ++i)
        if (why.empty() && (!L.diags[i].has_pid || L.diags[i].pid == s.pid))
          why = "diagnostic " + L.diags[i].kind + ": " + L.diags[i].headline;
      g_diag_seen = L.diags.size();
      if (!why.empty()) return why;
    }
  }
  std::lock_guard lk(g_live_mu);
  if (g_run_to && *g_run_to == s.pid) {
    g_run_to.reset();
    live_changed();
    return "run to this program";
  }
  if (!loc) return {};
  // A line breakpoint stops a program where it arrives at the line, not at each op on it.
  if (s.launch && g_prev_launch != s.launch->serial)
    g_prev_line.clear(), g_prev_launch = s.launch->serial;
  unsigned& prev = g_prev_line[&s];
  const bool arrived = prev != loc->line();
  prev = loc->line();
  if (!arrived) return {};
  const std::string_view f = loc->file_name();
  for (live_break& b : g_line_bps) {
    if (b.bp.line != static_cast<int>(loc->line())) continue;
    if (!b.bp.file.empty() && !f.ends_with(b.bp.file)) continue;
    if (!b.bp.cond.empty() && !b.parsed.matches(s.pid)) continue;
    return "breakpoint at line " + std::to_string(loc->line()) +
           (b.bp.cond.empty() ? std::string() : " (programs " + b.bp.cond + ")");
  }
  return {};
}

void maybe_progress(program_state& s) {
  static thread_local uint32_t calls = 0;
  static std::chrono::steady_clock::time_point last;
  if (!s.launch || (++calls & 255) != 0) return;
  std::function<void(const debug::launch_view&)> h;
  {
    std::lock_guard lk(g_live_mu);
    const auto now = std::chrono::steady_clock::now();
    if (!g_progress || now - last < g_progress_every) return;
    last = now;
    h = g_progress;
  }
  h(view_of(*s.launch, false));
}
}  // namespace

void debugger_launch_end(launch_state& L) {
  if (bv_gdb_launch == &L) bv_gdb_launch = nullptr;
  // A program that ended while stepping (its last line stepped over) steps no more. Only when
  // some program steps: walking every program's state at each launch's end missed the cache
  // once per program (a tenth of a short launch such as a row norm's).
  if (g_stepping.load(std::memory_order_relaxed) != 0) {
    std::lock_guard lk(g_io);
    for (auto& q : L.programs) end_step(q);
  }
  std::function<void(const debug::launch_view&)> h;
  {
    std::lock_guard lk(g_live_mu);
    h = g_progress;
  }
  if (h) h(view_of(L, true));
}

bool debugger_wants_hooks() { return !config().break_cond.empty() || g_live.load(); }
// Whether the debugger may stop a program at a memory access (stepping, a break set by env, or
// a front end's breakpoints).
bool debugger_may_stop() {
  return g_stepping.load() != 0 || g_env_break_set || g_live_stops.load();
}

void set_stop_handler(stop_handler h) {
  std::lock_guard lk(g_io);
  g_stop_handler = std::move(h);
}

void debugger_launch_begin(launch_state& L) {
  bv_gdb_launch = &L;
  const std::string& b = config().break_cond;
  g_env_break_set = !b.empty();
  if (!g_env_break_set) return;
  g_env_break = {};
  const auto at = b.find('@');
  g_env_break.cond = b.substr(0, at);
  g_env_break.parsed.emplace(g_env_break.cond);
  if (!g_env_break.parsed->parsed.ok()) {
    // Said once per launch, by the variable's name: no line of the kernel wrote it.
    diagnostic d;
    d.kind = "bad-condition";
    d.sev = severity::error;
    d.headline = "BV_BREAK=" + b + ": the program-id condition " +
                 cond_error_message(g_env_break.cond, g_env_break.parsed->parsed) +
                 "; no program stops";
    d.hint = bad_condition_hint;
    d.has_pid = false;
    {
      std::lock_guard lk(L.mu);
      d.kernel = L.kernel;
    }
    report_in(L, std::move(d));
    g_env_break_set = false;
    return;
  }
  if (at != std::string::npos) {
    const std::string where = b.substr(at + 1);
    const auto colon = where.rfind(':');
    g_env_break.file = where.substr(0, colon);
    if (colon != std::string::npos) g_env_break.line = std::atoi(where.c_str() + colon + 1);
  }
}

void debugger_on_access(const access& a) {
  program_state* s = current();
  if (!s) return;
  if (g_live.load(std::memory_order_relaxed)) {
    bool rec = false;
    {
      std::lock_guard lk(g_live_mu);
      rec = g_record;
    }
    if (rec && a.alloc) record_access(*s, a);
    maybe_progress(*s);
  }
  if (a.alloc && a.loc && recording(*s)) {
    op_value v;
    v.file = a.loc->file_name();
    v.line = a.loc->line();
    v.op = a.op;
    v.alloc = a.alloc;
    v.base = a.base;
    v.rows = a.lanes == 1 ? 1 : a.rows;
    v.cols = a.lanes == 1 ? 1 : a.cols;
    v.waves = a.waves;
    v.rank = a.rank;
    v.store = a.kind != access_kind::load;
    v.off.assign(a.off.get(), a.off.get() + a.lanes);
    if (a.mask && !a.all_active) v.mask.assign(a.mask, a.mask + a.lanes);
    keep(*s, std::move(v));
  }
  if (s->stepping) {
    {
      std::lock_guard lk(g_io);
      if (same_line_step(*s, a.loc)) return;
    }
    prompt(*s, a.loc, ("stepped to the " + std::string(a.op) + " at " + where(a.loc)).c_str(), &a);
    return;
  }
  // Tested here, not only inside: the call and its empty string cost every access of every run.
  if (g_live_stops.load(std::memory_order_relaxed))
    if (const std::string why = live_stop_reason(*s, a.loc, true); !why.empty()) {
      prompt(*s, a.loc, why.c_str(), &a);
      return;
    }
  if (!g_env_break_set || s->state == program_state::status::stopped) return;
  if (!g_env_break.cond.empty() && !g_env_break.parsed->matches(s->pid)) return;
  if (g_env_break.line && a.loc) {
    std::string f = a.loc->file_name();
    if (static_cast<int>(a.loc->line()) != g_env_break.line) return;
    if (!g_env_break.file.empty() && (f.size() < g_env_break.file.size() ||
                                      f.compare(f.size() - g_env_break.file.size(),
                                                g_env_break.file.size(), g_env_break.file) != 0))
      return;
  }
  // Without a line, BV_BREAK stops each matching program once, at its first memory operation.
  if (!g_env_break.line) {
    for (auto& [k, v] : s->watched)
      if (k == "#bv-break") return;
    s->watched.emplace_back("#bv-break", "hit");
  }
  prompt(*s, a.loc, ("breakpoint (BV_BREAK=" + config().break_cond + ")").c_str(), &a);
}

void on_op(const std::source_location& loc, const char* op, std::string (*render)(const void*),
           const void* value) {
  program_state* s = current();
  if (!s) return;
  if (render && recording(*s)) {
    op_value v;
    v.file = loc.file_name();
    v.line = loc.line();
    v.op = op;
    v.text = render(value);
    keep(*s, std::move(v));
  }
  if (!s->stepping) {
    if (g_live_stops.load(std::memory_order_relaxed))
      if (const std::string why = live_stop_reason(*s, &loc, false); !why.empty())
        prompt(*s, &loc, why.c_str());
    return;
  }
  {
    std::lock_guard lk(g_io);
    if (same_line_step(*s, &loc)) return;
  }
  prompt(*s, &loc, ("stepped to the " + std::string(op) + " at " + where(&loc)).c_str());
}

void debug_print(const program_state& s, const pid_cond& c, const std::string& text) {
  std::lock_guard lk(g_io);
  std::fprintf(stdout, "[pid %s %s:%u] %s\n", pid_text(s).c_str(), c.loc.file_name(), c.loc.line(),
               text.c_str());
  std::fflush(stdout);
  notify(s, debug_event::kind::print, &c.loc, {}, text);
}

void debug_break(program_state& s, const pid_cond& c) { prompt(s, &c.loc, "breakpoint_if hit"); }

void note_breakpoint() {
  if (!g_breakpoints_seen.load(std::memory_order_relaxed))
    g_breakpoints_seen.store(true, std::memory_order_relaxed);
}

void debug_watch(program_state& s, const char* name, std::string value) {
  notify(s, debug_event::kind::watch, s.last_loc, name, value);
  for (auto& [k, v] : s.watched)
    if (k == name) {
      v = std::move(value);
      return;
    }
  s.watched.emplace_back(name, std::move(value));
}

void debug_assert_failed(program_state& s, const std::source_location& loc, const char* msg,
                         int lanes_failed, int first_lane) {
  diagnostic d;
  d.kind = "device-assert";
  d.headline = std::string("device_assert failed: ") + msg + " (" + std::to_string(lanes_failed) +
               " lane(s), first lane " + std::to_string(first_lane) + ")";
  d.lanes = {first_lane};
  complete(d, &loc);
  d.pid = s.pid;
  report(std::move(d));
}

namespace {
// A for_range diagnostic of program s at loc: what the loops below report.
void report_loop(program_state& s, const std::source_location& loc, const char* kind, severity sev,
                 std::string headline, const char* hint) {
  diagnostic d;
  d.kind = kind;
  d.sev = sev;
  d.headline = std::move(headline);
  d.hint = hint;
  complete(d, &loc);
  d.pid = s.pid;
  report(std::move(d));
}
}  // namespace

void bad_loop_step(program_state& s, int lo, int hi, int step, const std::source_location& loc) {
  report_loop(s, loc, "loop-step", severity::error,
              "for_range(" + std::to_string(lo) + ", " + std::to_string(hi) + ") with step " +
                  std::to_string(step) + " never reaches its end",
              "the step must be positive; the loop did not run (on a GPU the kernel traps here)");
}

void streamed_load(program_state& s, const std::source_location& loc) {
  report_loop(s, loc, "stream-load", severity::error,
              "load of a block pointer that the enclosing for_range streams (along)",
              "read that tile through the body's argument for its stream; on a GPU the loop's "
              "pipeline owns the block pointer's tiles and the kernel traps at the loop's end");
}

void unpipelined_stream(program_state& s, const std::source_location& loc) {
  report_loop(s, loc, "stream-slots", severity::note,
              "a moving tile stream's block pointer has one ring slot (max_slots<1>)",
              "on a GPU each step then waits for its own tile's copy; leave max_slots out (or give "
              "it 2 or more) for a pipelined stream: one slot is for a tile held along {0, 0}");
}

}  // namespace detail

namespace debug {

const char* status_name(program_status s) {
  switch (s) {
    case program_status::not_started:
      return "not started";
    case program_status::running:
      return "running";
    case program_status::waiting:
      return "waiting";
    case program_status::stopped:
      return "stopped";
    case program_status::done:
      return "done";
    case program_status::error:
      return "error";
  }
  return "?";
}

launch_view program_states(const detail::program_state& s) {
  if (!s.launch) return {};
  return detail::view_of(*s.launch, false);
}

// The caller is the stopped program's thread inside its stop, which holds g_io.
std::vector<live_block> live_blocks(const detail::program_state& s) {
  std::vector<live_block> out;
  for (const auto& v : detail::values_of(s)) out.push_back(detail::to_live_block(v));
  return out;
}

std::string block_text(const live_block& b) {
  if (b.value.empty()) return b.text;
  std::string out = b.dtype + "[";
  for (int r = 0; r < b.rows; ++r) {
    if (b.rows > 1) out += r ? ",\n  [" : "[";
    for (int c = 0; c < b.cols; ++c) {
      const auto i = static_cast<size_t>(r * b.cols + c);
      if (c) out += ", ";
      if (i < b.value.size()) out += b.value[i];
    }
    if (b.rows > 1) out += "]";
  }
  return out + "]";
}

void record_accesses(bool on) {
  std::lock_guard lk(detail::g_live_mu);
  detail::g_record = on;
  detail::live_changed();
}

std::vector<tensor_accesses> accesses_so_far(const detail::program_state& s) {
  std::vector<tensor_accesses> out;
  std::lock_guard lk(detail::g_rec_mu);
  if (!s.launch || s.launch->serial != detail::g_rec_launch) return out;
  const auto mine_r = detail::g_rec_reads.find(&s), mine_w = detail::g_rec_writes.find(&s);
  for (const auto& [alloc, c] : detail::g_rec_all) {
    tensor_accesses t;
    t.name = alloc->name;
    t.dtype = alloc->dtype ? alloc->dtype : "?";
    t.numel = alloc->numel;
    t.reads = c.reads;
    t.writes = c.writes;
    t.program_reads.assign(c.reads.size(), 0);
    t.program_writes.assign(c.writes.size(), 0);
    auto add = [&](const auto& per_program, std::vector<uint32_t>& to) {
      if (auto it = per_program.find(alloc); it != per_program.end())
        for (int64_t e : it->second) ++to[static_cast<size_t>(e)];
    };
    if (mine_r != detail::g_rec_reads.end()) add(mine_r->second, t.program_reads);
    if (mine_w != detail::g_rec_writes.end()) add(mine_w->second, t.program_writes);
    out.push_back(std::move(t));
  }
  return out;
}

void set_line_breakpoints(std::vector<line_breakpoint> bps) {
  std::lock_guard lk(detail::g_live_mu);
  detail::g_line_bps.clear();
  for (auto& b : bps) {
    pid_cond parsed(b.cond);
    detail::g_line_bps.push_back({std::move(b), std::move(parsed)});
  }
  detail::live_changed();
}

void run_to_program(std::optional<std::array<int, 3>> pid) {
  std::lock_guard lk(detail::g_live_mu);
  detail::g_run_to = pid;
  detail::live_changed();
}

void stop_on_diagnostics(bool on) {
  std::lock_guard lk(detail::g_live_mu);
  detail::g_stop_on_diag = on;
  detail::live_changed();
}

void set_progress_handler(std::function<void(const launch_view&)> h,
                          std::chrono::milliseconds every) {
  std::lock_guard lk(detail::g_live_mu);
  detail::g_progress = std::move(h);
  detail::g_progress_every = every;
  detail::live_changed();
}

}  // namespace debug
}  // namespace bv
