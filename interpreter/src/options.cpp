#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>

#include "bv/cpu/runtime.hpp"

namespace bv {

int usable_cores() {
  // hardware_concurrency counts the machine's online cores; under taskset or a cpuset the threads
  // beyond the mask would only take turns on the cores it allows.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

const check_name check_names[] = {
    {"bounds", checks::bounds, "out-of-bounds and misaligned accesses"},
    {"uninit", checks::uninit, "reads of memory never written"},
    {"race", checks::race,
     "two programs of one launch on one element (atomics exempt); a store over a tile a pipelined "
     "loop may have read (stream-store)"},
    {"contiguity", checks::contiguity,
     "non-contiguous tensors, violated multiple_of/max_contiguous"},
    {"overflow", checks::overflow, "int32 overflow in index arithmetic"},
    {"nan", checks::nan, "the first op that produced NaN or Inf (opt-in)"},
    {"masked", checks::masked, "use of masked-off lanes of a load without `other`"},
    {"deadlock", checks::deadlock, "every program waiting; device_assert failures"},
    {"coalescing", checks::coalescing,
     "performance notes: uncoalesced wavefront accesses, low lane utilisation (opt-in, --notes)"},
    {nullptr, 0, nullptr},
};

bool parse_checks(const std::string& text, uint32_t& out, std::string& error) {
  if (text == "all") return out = checks::all, true;
  if (text == "none") return out = checks::none, true;
  if (text == "default" || text == "defaults") return out = checks::defaults, true;
  uint32_t bits = 0;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    bool found = false;
    for (const check_name* c = check_names; c->name; ++c)
      if (item == c->name) bits |= c->bit, found = true;
    if (!found) {
      error = "unknown check '" + item + "'; known checks: all, none, default";
      for (const check_name* c = check_names; c->name; ++c) error += std::string(", ") + c->name;
      return false;
    }
  }
  out = bits;
  return true;
}

bool parse_schedule(const std::string& text, schedule& out, std::string& error) {
  if (text == "sequential") return out = schedule::sequential, true;
  if (text == "shuffled") return out = schedule::shuffled, true;
  if (text == "parallel") return out = schedule::parallel, true;
  error = "unknown schedule '" + text + "'; use sequential, shuffled or parallel";
  return false;
}

const char* schedule_name(schedule s) {
  switch (s) {
    case schedule::sequential:
      return "sequential";
    case schedule::shuffled:
      return "shuffled";
    case schedule::parallel:
      return "parallel";
  }
  return "?";
}

namespace {
bool parse_int(const char* s, long long lo, long long hi, long long& out) {
  char* end = nullptr;
  long long v = std::strtoll(s, &end, 10);
  if (!end || *end || end == s || v < lo || v > hi) return false;
  out = v;
  return true;
}
void bad_env(const char* var, const char* value, const std::string& why) {
  std::fprintf(stderr, "blockvec: ignoring %s=%s: %s\n", var, value, why.c_str());
}

options read_env() {
  options o;
  std::string err;
  long long v = 0;
  if (const char* s = std::getenv("BV_SCHEDULE"); s && *s)
    if (!parse_schedule(s, o.sched, err)) bad_env("BV_SCHEDULE", s, err);
  if (const char* s = std::getenv("BV_THREADS"); s && *s) {
    if (parse_int(s, 0, 1024, v))
      o.threads = static_cast<int>(v);
    else
      bad_env("BV_THREADS", s, "expected a thread count from 0 (all cores) to 1024");
  }
  if (const char* s = std::getenv("BV_SEED"); s && *s) {
    if (parse_int(s, 0, (1LL << 62), v))
      o.seed = static_cast<uint64_t>(v);
    else
      bad_env("BV_SEED", s, "expected a non-negative integer");
  }
  if (const char* s = std::getenv("BV_CHECK"); s && *s)
    if (!parse_checks(s, o.enabled, err)) bad_env("BV_CHECK", s, err);
  if (const char* s = std::getenv("BV_NOTES"); s && *s) {
    const std::string v(s);
    if (v == "1" || v == "0") {
      o.notes = v == "1";
      if (o.notes) o.enabled |= checks::coalescing;
    } else {
      bad_env("BV_NOTES", s, "expected 1 (performance notes on) or 0");
    }
  }
  if (const char* s = std::getenv("BV_BREAK"); s && *s) o.break_cond = s;
  if (const char* s = std::getenv("BV_TRACE"); s && *s) o.trace_path = s;
  if (const char* s = std::getenv("BV_STACK"); s && *s) {
    if (parse_int(s, 64, 1 << 20, v))
      o.stack_bytes = static_cast<std::size_t>(v) << 10;
    else
      bad_env("BV_STACK", s, "expected a fiber stack size in KiB, 64 to 1048576");
  }
  // BV_TARGET picks the GPU; BV_WAVE_SIZE, older, picks one by its wave size (32: sm_90, 64: the
  // default AMD target) and must agree with BV_TARGET when both are set.
  const char* tgt_env = std::getenv("BV_TARGET");
  bool tgt_set = false;
  if (tgt_env && *tgt_env) {
    if (parse_target(tgt_env, o.tgt))
      tgt_set = true;
    else
      bad_env("BV_TARGET", tgt_env, std::string("expected ") + target_choices);
  }
  if (const char* s = std::getenv("BV_WAVE_SIZE"); s && *s) {
    const std::string w(s);
    if (w != "32" && w != "64")
      bad_env("BV_WAVE_SIZE", s, "expected 32 or 64");
    else if (tgt_set && std::atoi(s) != wave_size_of(o.tgt))
      bad_env("BV_WAVE_SIZE", s,
              std::string("BV_TARGET=") + target_name(o.tgt) + " has waves of " +
                  std::to_string(wave_size_of(o.tgt)) + " lanes; unset one of the two");
    else if (!tgt_set)
      o.tgt = w == "32" ? target::sm_90 : default_target;
  }
  o.wave_size = wave_size_of(o.tgt);
  o.interactive = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
  return o;
}
}  // namespace

options& config() {
  static options o = read_env();
  return o;
}

void set_target(target t) {
  config().tgt = t;
  config().wave_size = wave_size_of(t);
}

void set_notes(bool on) {
  config().notes = on;
  if (on) config().enabled |= checks::coalescing;
}

}  // namespace bv
