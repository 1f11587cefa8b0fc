#include "commands.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "bv/gpu/host_api.hpp"
#include "bv/sarif.hpp"
#include "emu/emu_bench.hpp"
#include "junit.hpp"
#include "outcome.hpp"
#include "registry.hpp"
#include "table.hpp"

namespace bv::cli {

namespace {
using json = nlohmann::json;

std::string size_text(const std::vector<int64_t>& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

std::string ms(double seconds) { return fmt::format("{:.2f}", seconds * 1e3); }
std::string ratio(double a, double b) { return b > 0 ? fmt::format("{:.2f}x", a / b) : "-"; }

struct totals {
  int64_t programs = 0;
  int errors = 0, warnings = 0, notes = 0;
  bool deadlocked = false, quit = false;
  std::vector<const diagnostic*> diags;
};
totals sum_up(const outcome& o) {
  totals t;
  for (const auto& l : o.launches) {
    t.programs += l.programs;
    t.errors += l.errors;
    t.warnings += l.warnings;
    t.notes += l.notes;
    t.deadlocked |= l.deadlocked;
    t.quit |= l.quit;
    for (const auto& d : l.diagnostics) t.diags.push_back(&d);
  }
  return t;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}
}  // namespace

std::string checks_text(uint32_t bits) {
  if (bits == checks::all) return "all";
  if (bits == checks::none) return "none";
  if (bits == checks::defaults) return "default";
  std::string t;
  for (const check_name* c = check_names; c->name; ++c)
    if (bits & c->bit) t += (t.empty() ? "" : ",") + std::string(c->name);
  return t;
}

bool parse_size(const std::string& text, std::vector<int64_t>& out, std::string& error) {
  out.clear();
  std::string cur;
  auto flush = [&]() -> bool {
    if (cur.empty()) return false;
    char* end = nullptr;
    const long long v = std::strtoll(cur.c_str(), &end, 10);
    if (*end || v < 1 || v > (1LL << 31) - 1) return false;
    out.push_back(v);
    cur.clear();
    return true;
  };
  for (char c : text + ",") {
    if (c == ',' || c == 'x' || c == 'X') {
      if (!flush()) {
        error = "--size '" + text + "' is not a list of positive integers (like 1000 or 256,1024)";
        return false;
      }
    } else {
      cur += c;
    }
  }
  return true;
}

int size_arity(const std::string& size_help) {
  return 1 + static_cast<int>(std::count(size_help.begin(), size_help.end(), ','));
}

int list_command() {
  for (const auto& e : registry())
    fmt::print("{:<20} {}  (--size {}, default {})\n", e.name, e.description, e.size_help,
               size_text(e.default_size));
  return 0;
}

namespace {
// --sarif / --junit: what the run found, filled by whichever backend ran it.
case_report* g_case = nullptr;

std::string failure_of(bool match, const totals& t) {
  std::string why = match ? "" : "the result does not match the reference";
  auto add = [&](const std::string& w) { why += (why.empty() ? "" : "; ") + w; };
  if (t.errors) add(fmt::format("{} error diagnostic(s)", t.errors));
  if (t.deadlocked) add("deadlocked");
  if (t.quit) add("quit at a breakpoint");
  return why;
}
void record(const totals& t, bool ok, double secs, const std::string& why) {
  if (!g_case) return;
  g_case->passed = g_case->passed && ok;
  g_case->seconds += secs;
  if (!ok && g_case->failure.empty()) g_case->failure = why.empty() ? "failed" : why;
  for (const auto* d : t.diags) g_case->diags.push_back(*d);
}
void record_error(const std::string& what) {
  if (!g_case) return;
  g_case->passed = false;
  g_case->error = what;
}

void print_side(const char* name, const outcome& o) {
  fmt::print("{:<11} max abs error {:.3g}, rel L2 error {:.3g} (tolerance {:.0e}): {}\n", name,
             o.max_abs_err, o.rel_err, o.tolerance,
             o.match ? "matches the reference" : "DOES NOT MATCH");
}

// --backend gpu|both: the same inputs on the GPU (and the interpreter), each compared with the
// reference and with each other.
int run_gpu_command(const kernel_entry& k, const std::vector<int64_t>& size, uint64_t seed,
                    const run_request& r) {
  if (!k.run_gpu) {
    fmt::print(stderr,
               "blockvec run: kernel '{}' has no GPU entry yet; --backend gpu runs: ", k.name);
    for (const auto& e : registry())
      if (e.run_gpu) fmt::print(stderr, "{} ", e.name);
    fmt::print(stderr, "\n");
    return 2;
  }
  if (!gpu::available()) {
    fmt::print(stderr, "blockvec run: --backend {} needs a GPU: {}\n", r.backend, gpu::describe());
    return 1;
  }
  gpu_outcome g;
  try {
    g = k.run_gpu(size, seed, r.backend == "both");
  } catch (const std::exception& e) {
    fmt::print(stderr, "blockvec run: {} on the GPU failed: {}\n", k.name, e.what());
    record_error(e.what());
    return 1;
  }
  const totals t = g.cpu_ran ? sum_up(g.cpu) : totals{};
  const bool ok = g.gpu.match && (!g.cpu_ran || (g.cpu.match && g.agree && t.errors == 0));
  record(t, ok, g.gpu_ms * 1e-3,
         !g.gpu.match ? "the GPU's result does not match the reference"
         : !g.agree   ? "the GPU and the interpreter disagree"
                      : failure_of(g.cpu.match, t));
  if (r.json) {
    json j{{"kernel", k.name},
           {"size", size},
           {"seed", seed},
           {"backend", r.backend},
           {"device", gpu::describe()},
           {"gpu",
            {{"ms", g.gpu_ms},
             {"max_abs_error", g.gpu.max_abs_err},
             {"rel_error", g.gpu.rel_err},
             {"match", g.gpu.match}}},
           {"ok", ok}};
    if (g.cpu_ran) {
      j["cpu"] = {{"seconds", seconds(g.cpu)},
                  {"max_abs_error", g.cpu.max_abs_err},
                  {"rel_error", g.cpu.rel_err},
                  {"match", g.cpu.match},
                  {"errors", t.errors}};
      j["gpu_vs_cpu_max_abs_diff"] = g.max_abs_diff;
      j["agree"] = g.agree;
    }
    fmt::print("{}\n", j.dump(2));
    return ok ? 0 : 1;
  }
  fmt::print("kernel      {} ({})\n", k.name, k.description);
  fmt::print("size        {}   seed {} (rerun with --seed {})\n", size_text(size), seed, seed);
  fmt::print("device      {}\n", gpu::describe());
  fmt::print("gpu         {:.3f} ms\n", g.gpu_ms);
  print_side("gpu result", g.gpu);
  if (g.cpu_ran) {
    fmt::print("interpreter {} programs, {} ms, {} error diagnostic(s)\n", t.programs,
               ms(seconds(g.cpu)), t.errors);
    print_side("cpu result", g.cpu);
    fmt::print("gpu vs cpu  max abs difference {:.3g} (allowed {:.3g}): {}\n", g.max_abs_diff,
               g.diff_tolerance, g.agree ? "agree" : "DISAGREE");
    for (const auto* d : t.diags) fmt::print("\n{}", d->text());
  }
  return ok ? 0 : 1;
}
// --backend amd-emu: the kernel's AMD lowering in the emulator and the interpreter on the same
// inputs, each compared with the reference and with each other; the emulator's diagnostics and
// counters after.
int run_amd_emu_command(const kernel_entry& k, const std::vector<int64_t>& size, uint64_t seed,
                        const run_request& r) {
  const target t = config().tgt;
  if (t == target::sm_90) {
    fmt::print(stderr,
               "blockvec run: --backend amd-emu emulates AMD GPUs; target {} is not one (use "
               "--target gfx942 or gfx90a)\n",
               target_name(t));
    return 2;
  }
  if (!k.run_amd_emu) {
    const std::string why = amd_emu_excluded_reason(k.name);
    fmt::print(stderr,
               "blockvec run: no AMD emulator entry for {}{}; --backend amd-emu runs:", k.name,
               why.empty() ? "" : " (" + why + ")");
    for (const auto& e : registry())
      if (e.run_amd_emu) fmt::print(stderr, " {}", e.name);
    fmt::print(stderr, "\n");
    return 1;
  }
  emu_outcome e;
  try {
    e = k.run_amd_emu(size, seed, t);
  } catch (const std::exception& ex) {
    fmt::print(stderr, "blockvec run: {} in the AMD emulator failed: {}\n", k.name, ex.what());
    record_error(ex.what());
    return 1;
  }
  const totals te = sum_up(e.emu), tc = sum_up(e.cpu);
  const bool emu_clean = te.errors == 0 && !te.deadlocked;
  const bool ok = e.emu.match && e.cpu.match && e.agree && emu_clean && tc.errors == 0 &&
                  !tc.deadlocked && !tc.quit;
  record(te, emu_clean && e.emu.match, 0,
         "the emulator: " + failure_of(e.emu.match, te));
  record(tc, ok, seconds(e.cpu),
         !e.agree ? "the emulator and the interpreter disagree"
                  : "the interpreter: " + failure_of(e.cpu.match, tc));
  const auto& c = e.counts;
  if (r.json) {
    json diags = json::array();
    for (const auto* d : te.diags) diags.push_back(d->text());
    json j{{"kernel", k.name},
           {"size", size},
           {"seed", seed},
           {"backend", r.backend},
           {"target", target_name(t)},
           {"amd_emu",
            {{"seconds", e.emu_seconds},
             {"max_abs_error", e.emu.max_abs_err},
             {"rel_error", e.emu.rel_err},
             {"match", e.emu.match},
             {"errors", te.errors},
             {"warnings", te.warnings},
             {"deadlocked", te.deadlocked},
             {"diagnostics", diags},
             {"counters",
              {{"memory_checked", c.memory_checked},
               {"mfma", c.mfma},
               {"barriers", c.barriers},
               {"global_read_bytes", c.global_read_bytes},
               {"global_write_bytes", c.global_write_bytes},
               {"lds_read_bytes", c.lds_read_bytes},
               {"lds_write_bytes", c.lds_write_bytes},
               {"lds_bank_conflicts", c.lds_bank_conflicts},
               {"active_lane_fraction", c.active_lane_fraction()}}}}},
           {"cpu",
            {{"seconds", seconds(e.cpu)},
             {"max_abs_error", e.cpu.max_abs_err},
             {"rel_error", e.cpu.rel_err},
             {"match", e.cpu.match},
             {"errors", tc.errors}}},
           {"emu_vs_cpu_max_abs_diff", e.max_abs_diff},
           {"agree", e.agree},
           {"ok", ok}};
    fmt::print("{}\n", j.dump(2));
    return ok ? 0 : 1;
  }
  fmt::print("kernel      {} ({})\n", k.name, k.description);
  fmt::print("size        {}   seed {} (rerun with --seed {})\n", size_text(size), seed, seed);
  fmt::print("target      {} (AMD emulator, waves of 64 lanes)\n", target_name(t));
  fmt::print("emulator    {} launch(es), {} ms, {} error diagnostic(s), {} warning(s){}\n",
             e.emu.launches.size(), ms(e.emu_seconds), te.errors, te.warnings,
             te.deadlocked ? ", DEADLOCKED" : "");
  if (c.memory_checked)
    fmt::print(
        "counters    MFMA {}, barriers {}, global read {} B, global write {} B, LDS read {} B, "
        "LDS write {} B, LDS bank conflicts {}, active lanes {:.1f}%\n",
        c.mfma, c.barriers, c.global_read_bytes, c.global_write_bytes, c.lds_read_bytes,
        c.lds_write_bytes, c.lds_bank_conflicts, 100 * c.active_lane_fraction());
  else
    fmt::print("counters    MFMA {} (memory checks and counters off in this build)\n", c.mfma);
  print_side("emu result", e.emu);
  fmt::print("interpreter {} programs, {} ms, {} error diagnostic(s)\n", tc.programs,
             ms(seconds(e.cpu)), tc.errors);
  print_side("cpu result", e.cpu);
  fmt::print("emu vs cpu  max abs difference {:.3g} (allowed {:.3g}): {}\n", e.max_abs_diff,
             e.diff_tolerance, e.agree ? "agree" : "DISAGREE");
  for (const auto* d : te.diags) fmt::print("\n{}", d->text());
  for (const auto* d : tc.diags) fmt::print("\n{}", d->text());
  return ok ? 0 : 1;
}
}  // namespace

static int run_one(const run_request& r) {
  const kernel_entry* k = find_kernel(r.kernel);
  if (!k) {
    fmt::print(stderr, "blockvec run: unknown kernel '{}'. Known kernels:", r.kernel);
    for (const auto& e : registry()) fmt::print(stderr, " {}", e.name);
    fmt::print(stderr, "\n(blockvec list describes them)\n");
    return 2;
  }
  std::vector<int64_t> size = r.size.empty() ? k->default_size : r.size;
  if (static_cast<int>(size.size()) != size_arity(k->size_help)) {
    fmt::print(stderr, "blockvec run: kernel '{}' takes --size {} ({} number(s)), got '{}'\n",
               k->name, k->size_help, size_arity(k->size_help), size_text(size));
    return 2;
  }
  if (k->accepts)
    if (const std::string why = k->accepts(size); !why.empty()) {
      fmt::print(stderr, "blockvec run: kernel '{}' does not take --size {}: {}\n", k->name,
                 size_text(size), why);
      return 2;
    }
  uint64_t seed = r.seed;
  if (!r.seed_given) seed = std::random_device{}() % 1000000;
  if (g_case) g_case->size = size_text(size);
  if (r.backend == "amd-emu") {
    config().quiet = true;
    config().progress = false;
    return run_amd_emu_command(*k, size, seed, r);
  }
  if (r.backend != "cpu") return run_gpu_command(*k, size, seed, r);
  config().quiet = true;
  config().progress = !r.json;
  outcome o;
  try {
    o = k->run(size, seed);
  } catch (const std::exception& e) {
    fmt::print(stderr, "blockvec run: {} failed: {}\n", k->name, e.what());
    record_error(e.what());
    return 1;
  }
  const totals t = sum_up(o);
  const bool ok = o.match && t.errors == 0 && !t.deadlocked && !t.quit;
  const double secs = seconds(o);
  record(t, ok, secs, failure_of(o.match, t));
  if (r.json) {
    json j;
    j["kernel"] = k->name;
    j["size"] = size;
    j["seed"] = seed;
    j["backend"] = r.backend;
    j["target"] = target_name(config().tgt);
    j["wave_size"] = config().wave_size;
    j["schedule"] = schedule_name(config().sched);
    j["threads"] = config().threads;
    j["checks"] = checks_text(config().enabled);
    j["launches"] = o.launches.size();
    j["programs"] = t.programs;
    j["seconds"] = secs;
    j["max_abs_error"] = o.max_abs_err;
    j["rel_error"] = o.rel_err;
    j["tolerance"] = o.tolerance;
    j["match"] = o.match;
    j["errors"] = t.errors;
    j["warnings"] = t.warnings;
    j["notes"] = t.notes;
    j["deadlocked"] = t.deadlocked;
    j["diagnostics"] = json::array();
    for (const auto* d : t.diags) j["diagnostics"].push_back(json::parse(d->json()));
    if (!o.note.empty()) j["note"] = o.note;
    j["ok"] = ok;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("kernel      {} ({})\n", k->name, k->description);
    fmt::print("size        {}   seed {} (rerun with --seed {})\n", size_text(size), seed, seed);
    fmt::print("target      {} (waves of {} lanes)\n", target_name(config().tgt),
               config().wave_size);
    fmt::print(
        "schedule    {}{}   checks {}\n", schedule_name(config().sched),
        config().sched == schedule::parallel
            ? fmt::format(" on {} threads", config().threads ? config().threads : usable_cores())
            : "",
        checks_text(config().enabled));
    if (!o.note.empty()) fmt::print("note        {}\n", o.note);
    fmt::print("programs    {} in {} launch(es), {} ms\n", t.programs, o.launches.size(), ms(secs));
    fmt::print("result      max abs error {:.3g}, rel L2 error {:.3g} (tolerance {:.0e}): {}\n",
               o.max_abs_err, o.rel_err, o.tolerance,
               o.match ? "matches the reference" : "DOES NOT MATCH");
    if (t.diags.empty()) {
      fmt::print("diagnostics none\n");
    } else {
      fmt::print("diagnostics {} error(s), {} warning(s), {} note(s):\n\n", t.errors, t.warnings,
                 t.notes);
      for (const auto* d : t.diags) fmt::print("{}\n", d->text());
      fmt::print("ERROR SUMMARY: {} error(s), {} warning(s), {} note(s)\n", t.errors, t.warnings,
                 t.notes);
    }
  }
  return ok ? 0 : 1;
}

// --sarif FILE and --junit FILE: the run's findings for CI; a file that cannot be written is a
// usage error (exit 2), so a CI job does not pass without its report.
static int write_reports(const report_request& rq, const std::string& suite,
                  const std::vector<case_report>& cases, int status) {
  std::string err;
  if (!rq.sarif.empty()) {
    std::vector<diagnostic> all;
    for (const auto& c : cases) all.insert(all.end(), c.diags.begin(), c.diags.end());
    sarif_options o;
    o.command_line = rq.command_line;
    if (!write_sarif(rq.sarif, all, o, err)) {
      fmt::print(stderr, "{}: {}\n", suite, err);
      return 2;
    }
  }
  if (!rq.junit.empty() && !write_junit(rq.junit, suite, cases, err)) {
    fmt::print(stderr, "{}: {}\n", suite, err);
    return 2;
  }
  return status;
}

int run_command(const run_request& r) {
  case_report c;
  c.kernel = r.kernel;
  c.target = target_name(config().tgt);
  c.backend = r.backend;
  g_case = &c;
  const int status = run_one(r);
  g_case = nullptr;
  if (status == 2) return status;  // a usage error: nothing ran
  return write_reports(r.reports, "blockvec run", {c}, status);
}

int demo_command(bool json_out, const report_request& reports) {
  config().quiet = true;
  std::vector<case_report> cases;
  table tab({"kernel", "size", "programs", "ms", "rel error", "diagnostics", "result"});
  json rows = json::array();
  int failed = 0;
  for (const auto& k : registry()) {
    outcome o;
    std::string err;
    try {
      o = k.run(k.default_size, 1);
    } catch (const std::exception& e) {
      err = e.what();
    }
    const totals t = sum_up(o);
    const bool ok = err.empty() && o.match && t.errors == 0 && !t.deadlocked;
    failed += !ok;
    case_report c{k.name, size_text(k.default_size), target_name(config().tgt), "cpu",
                  seconds(o),   ok, err.empty() ? failure_of(o.match, t) : "", err, {}};
    for (const auto* d : t.diags) c.diags.push_back(*d);
    cases.push_back(std::move(c));
    tab.add({k.name, size_text(k.default_size), std::to_string(t.programs), ms(seconds(o)),
             fmt::format("{:.2e}", o.rel_err),
             t.diags.empty() ? "none"
                             : fmt::format("{} err, {} warn, {} note", t.errors, t.warnings, t.notes),
             ok ? "ok" : (err.empty() ? "FAILED" : "FAILED: " + err)});
    rows.push_back({{"kernel", k.name},
                    {"target", target_name(config().tgt)},
                    {"size", k.default_size},
                    {"programs", t.programs},
                    {"seconds", seconds(o)},
                    {"rel_error", o.rel_err},
                    {"errors", t.errors},
                    {"warnings", t.warnings},
                    {"notes", t.notes},
                    {"ok", ok}});
  }
  if (json_out) {
    fmt::print("{}\n", rows.dump(2));
  } else {
    fmt::print(
        "blockvec demo: every kernel on the CPU interpreter (target {}, {} schedule, checks {}), "
        "compared with its reference\n\n",
        target_name(config().tgt), schedule_name(config().sched), checks_text(config().enabled));
    tab.print();
    fmt::print("\n{} of {} kernels match their reference with no error diagnostics.\n",
               registry().size() - failed, registry().size());
  }
  return write_reports(reports, "blockvec demo", cases, failed ? 1 : 0);
}

namespace {
// Timed runs per measurement over the same tensors (bench_samples, outcome.hpp), inside each of
// the `repeat` rounds: enough for about k_round_budget_s of the kernel's checks-off time, between
// k_min_samples and k_max_samples. A sub-millisecond kernel needs many runs before its fastest
// stops moving on a shared machine (the parallel schedule most: both cores must be undisturbed
// at once); a long one needs few.
constexpr int k_min_samples = 3, k_max_samples = 12;
constexpr double k_round_budget_s = 4e-3;

}  // namespace

int bench_command(const std::vector<std::string>& names, bool json_out, int repeat,
                  bool per_check) {
  std::vector<const kernel_entry*> ks;
  for (const auto& n : names) {
    const kernel_entry* k = find_kernel(n);
    if (!k) {
      fmt::print(stderr, "blockvec bench: unknown kernel '{}' (blockvec list shows them)\n", n);
      return 2;
    }
    ks.push_back(k);
  }
  if (ks.empty())
    for (const auto& k : registry()) ks.push_back(&k);

  const options saved = config();
  config().quiet = true;
  config().progress = false;
  const int cores = usable_cores();
  std::vector<std::string> heads{
      "kernel",     "size",   "programs",   "native ms",  "off ms",
      "off/native", "all ms", "all/native", "parallel x"};
  if (per_check)
    for (const check_name* c = check_names; c->name; ++c) heads.push_back(c->name);
  table tab(heads);
  json rows = json::array();
  std::vector<std::string> mismatched;
  for (const kernel_entry* k : ks) {
    if (!k->native) continue;
    const auto& size = k->bench_size.empty() ? k->default_size : k->bench_size;
    int64_t programs = 0;
    bool match = true;
    auto interp = [&](uint32_t bits, schedule s) {
      config().enabled = bits;
      config().sched = s;
      config().threads = 0;
      outcome o = k->run(size, 3);
      programs = sum_up(o).programs;
      match = match && o.match;
      return seconds(o);
    };
    // The measurements take turns, round after round, each keeping its fastest: a slow spell of
    // the machine then falls on all of them alike instead of on whichever ran during it.
    struct measure {
      uint32_t bits;
      schedule sched;
      const char* check = nullptr;  // --per-check: the check measured alone
      double best = 1e30;
    };
    measure off_m{checks::none, schedule::sequential}, all_m{checks::all, schedule::sequential},
        par_m{checks::none, schedule::parallel};
    std::vector<measure> alone;
    if (per_check)
      for (const check_name* c = check_names; c->name; ++c)
        alone.push_back({c->bit, schedule::sequential, c->name});
    std::vector<measure*> turns{&off_m, &all_m};
    if (cores > 1) turns.push_back(&par_m);
    for (auto& m : alone) turns.push_back(&m);
    // How many runs per round: from one untimed-warm-up-and-run of the kernel, checks off.
    bench_samples() = 1;
    const double probe = interp(checks::none, schedule::sequential);
    const int samples = std::clamp(static_cast<int>(k_round_budget_s / std::max(probe, 1e-6)),
                                   k_min_samples, k_max_samples);
    bench_samples() = samples;
    double native = 1e30;
    for (int round = 0; round < repeat; ++round) {
      native = std::min(native, k->native(size, 3));
      for (measure* m : turns) m->best = std::min(m->best, interp(m->bits, m->sched));
    }
    const double off = off_m.best, all = all_m.best;
    const double par = cores > 1 ? par_m.best : off;
    const double off_r = off / native, all_r = all / native, speedup = off / par;
    const bool big_grid = programs >= 1000;
    if (!match) mismatched.push_back(k->name);
    std::vector<std::string> cells{
        k->name,
        size_text(size),
        std::to_string(programs),
        ms(native),
        ms(off),
        ratio(off, native),
        ms(all),
        ratio(all, native),
        big_grid ? ratio(off, par) : fmt::format("({})", ratio(off, par))};
    // Each check alone against checks off, both sequential: what one check costs.
    json check_cost = json::object();
    for (const measure& m : alone) {
      cells.push_back(ratio(m.best, off));
      check_cost[m.check] = m.best / off;
    }
    tab.add(cells);
    rows.push_back({{"kernel", k->name},
                    {"size", size},
                    {"programs", programs},
                    {"runs_per_round", samples},
                    {"native_s", native},
                    {"checks_off_s", off},
                    {"checks_all_s", all},
                    {"parallel_s", par},
                    {"off_over_native", off_r},
                    {"all_over_native", all_r},
                    {"parallel_speedup", speedup},
                    {"check_cost_over_off", check_cost},
                    {"match", match}});
  }
  config() = saved;
  bench_samples() = 0;
  if (json_out) {
    json j{{"date", today()},    {"target", target_name(config().tgt)},
           {"cpu", cpu_model()}, {"cores", cores},
           {"repeat", repeat},   {"results", rows}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("blockvec bench, {} on {} ({} cores), target {}, best of {} rounds; times in ms\n",
               today(), cpu_model(), cores, target_name(config().tgt), repeat);
    fmt::print(
        "native: single-threaded C++/Eigen; off/all: the interpreter, sequential, with no "
        "checks / every check;\neach round makes fresh tensors, runs once untimed, then times "
        "{}-{} "
        "runs over them (more for shorter kernels, about {:.0f} ms of each);\n"
        "parallel x: sequential over parallel time, checks off\n"
        "(in parentheses below 1000 programs){}\n\n",
        k_min_samples, k_max_samples, k_round_budget_s * 1e3,
        per_check ? ";\nper check (last columns): that check alone over checks off, sequential"
                  : "");
    tab.print();
  }
  // A timing of a wrong result means nothing: say so, and fail.
  if (!mismatched.empty()) {
    std::string names;
    for (const auto& n : mismatched) names += (names.empty() ? "" : ", ") + n;
    fmt::print(stderr, "blockvec bench: {} did not match the reference; their times are void\n",
               names);
    return 1;
  }
  return 0;
}

}  // namespace bv::cli
