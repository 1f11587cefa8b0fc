// print_if, breakpoint_if and the prompt a stopped program offers; BV_BREAK; device_assert.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "bv/cpu/check.hpp"
#include "bv/cpu/debug.hpp"
#include "bv/cpu/runtime.hpp"

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
const char* state_name(program_state::status st) {
  switch (st) {
    case program_state::status::pending:
      return "not started";
    case program_state::status::running:
      return "running";
    case program_state::status::waiting:
      return "waiting";
    case program_state::status::stopped:
      return "stopped";
    case program_state::status::done:
      return "done";
  }
  return "?";
}

void print_state(const program_state& s, const std::source_location* loc) {
  std::fprintf(stderr, "  program %s", pid_text(s).c_str());
  if (loc) std::fprintf(stderr, " at %s:%u", loc->file_name(), loc->line());
  std::fprintf(stderr, "\n");
  for (auto& [k, v] : s.watched) std::fprintf(stderr, "    %s = %s\n", k.c_str(), v.c_str());
}

void prompt(program_state& s, const std::source_location* loc, const char* why,
            const access* a = nullptr) {
  notify(s, debug_event::kind::stop, loc, why, {});
  std::lock_guard lk(g_io);
  s.state = program_state::status::stopped;
  if (g_stop_handler) {
    const stop_action act = g_stop_handler(s, loc, why, a);
    if (act == stop_action::step) {
      if (!s.stepping) g_stepping.fetch_add(1), hooks.fetch_add(1);
      s.stepping = true;
    } else if (s.stepping) {
      g_stepping.fetch_sub(1), hooks.fetch_sub(1);
      s.stepping = false;
    }
    s.state = program_state::status::running;
    if (act == stop_action::quit) throw quit_request{};
    return;
  }
  std::fprintf(stderr, "blockvec: %s\n", why);
  print_state(s, loc);
  if (!config().interactive) {
    std::fprintf(stderr, "  (stdin is not a terminal: continuing)\n");
    s.state = program_state::status::running;
    return;
  }
  std::fprintf(stderr,
               "  commands: p NAME (print a watched value), w (all watched), l (list "
               "programs), s (step to next op), c (continue), q (quit)\n");
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
    if (cmd == "s" || cmd == "step") {
      if (!s.stepping) g_stepping.fetch_add(1), hooks.fetch_add(1);
      s.stepping = true;
      s.state = program_state::status::running;
      return;
    }
    if (cmd == "q" || cmd == "quit") {
      s.state = program_state::status::running;
      throw quit_request{};
    }
    if (cmd == "w" || cmd == "watch") {
      if (s.watched.empty())
        std::fprintf(stderr,
                     "  nothing watched: add bv::watch(p, \"name\", value) to the kernel\n");
      for (auto& [k, v] : s.watched) std::fprintf(stderr, "  %s = %s\n", k.c_str(), v.c_str());
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
      int shown = 0;
      for (auto& q : s.launch->programs) {
        if (q.state == program_state::status::pending) continue;
        if (shown++ == 64) {
          std::fprintf(stderr, "  ...\n");
          break;
        }
        std::fprintf(stderr, "  %s %s%s\n", pid_text(q).c_str(), state_name(q.state),
                     &q == &s ? "  <- here" : "");
      }
      std::fprintf(stderr, "  %lld of %zu programs done\n",
                   static_cast<long long>(s.launch->done.load()), s.launch->programs.size());
      continue;
    }
    std::fprintf(stderr, "  unknown command '%s'\n", cmd.c_str());
  }
  if (s.stepping) g_stepping.fetch_sub(1), hooks.fetch_sub(1);
  s.stepping = false;
  s.state = program_state::status::running;
}
}  // namespace

bool debugger_wants_hooks() { return !config().break_cond.empty(); }
// Whether the debugger may stop a program at a memory access (stepping, or a break set by env).
bool debugger_may_stop() { return g_stepping.load() != 0 || g_env_break_set; }

void set_stop_handler(stop_handler h) {
  std::lock_guard lk(g_io);
  g_stop_handler = std::move(h);
}

void debugger_launch_begin(launch_state& L) {
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
  if (s->stepping) {
    prompt(*s, a.loc, "stepped to the next operation", &a);
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

void on_op(const std::source_location& loc) {
  program_state* s = current();
  if (s && s->stepping) prompt(*s, &loc, "stepped to the next operation");
}

void debug_print(const program_state& s, const pid_cond& c, const std::string& text) {
  std::lock_guard lk(g_io);
  std::fprintf(stdout, "[pid %s %s:%u] %s\n", pid_text(s).c_str(), c.loc.file_name(), c.loc.line(),
               text.c_str());
  std::fflush(stdout);
  notify(s, debug_event::kind::print, &c.loc, {}, text);
}

void debug_break(program_state& s, const pid_cond& c) { prompt(s, &c.loc, "breakpoint_if hit"); }

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

}  // namespace detail
}  // namespace bv
