// `blockvec bench --backend amd-emu`: each kernel's AMD lowering in the emulator next to the
// interpreter with checks off, on the same inputs in the same process, round after round: the
// emulator's counters, both times and their ratio. Nothing is stored or quoted from elsewhere.
#include <fmt/core.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "emu/emu_bench.hpp"
#include "outcome.hpp"
#include "registry.hpp"
#include "table.hpp"

namespace bv::cli {

namespace {
std::map<std::string, std::string>& library_reasons() {
  static std::map<std::string, std::string> m;
  return m;
}
}  // namespace

std::string amd_emu_excluded_reason(const std::string& kernel) {
  const auto it = library_reasons().find(kernel);
  return it == library_reasons().end() ? "" : it->second;
}

void note_amd_emu_missing(const std::string& kernel, const std::string& why) {
  library_reasons()[kernel] = why;
}

namespace {

std::string size_text(const std::vector<int64_t>& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

bool clean(const outcome& o) {
  for (const auto& l : o.launches)
    if (!l.ok()) return false;
  return true;
}

}  // namespace

int bench_amd_emu_command(const std::vector<std::string>& names, const std::vector<int64_t>& size,
                          bool json_out, int repeat) {
  const target t = config().tgt;
  if (t == target::sm_90) {
    fmt::print(stderr,
               "blockvec bench: --backend amd-emu emulates AMD GPUs; target {} is not one (use "
               "--target gfx942 or gfx90a)\n",
               target_name(t));
    return 2;
  }
  if (!size.empty() && names.size() != 1) {
    fmt::print(stderr, "blockvec bench: --size needs exactly one kernel named\n");
    return 2;
  }
  std::vector<const kernel_entry*> ks;
  std::vector<std::string> without;
  for (const auto& n : names) {
    const kernel_entry* k = find_kernel(n);
    if (!k) {
      fmt::print(stderr, "blockvec bench: unknown kernel '{}' (blockvec list shows them)\n", n);
      return 2;
    }
    if (!k->run_amd_emu) {
      const std::string why = amd_emu_excluded_reason(n);
      fmt::print(stderr, "blockvec bench: no AMD emulator entry for {}{}\n", n,
                 why.empty() ? "" : ": " + why);
      return 2;
    }
    ks.push_back(k);
  }
  if (ks.empty())
    for (const auto& k : registry()) {
      if (k.run_amd_emu)
        ks.push_back(&k);
      else
        without.push_back(k.name);
    }
  if (!size.empty()) {
    const kernel_entry& k = *ks.front();
    const std::string why = k.accepts ? k.accepts(size) : "";
    if (static_cast<int>(size.size()) != size_arity(k.size_help) || !why.empty()) {
      fmt::print(stderr, "blockvec bench: kernel '{}' does not take --size {} ({}{})\n", k.name,
                 size_text(size), k.size_help, why.empty() ? "" : "; " + why);
      return 2;
    }
  }

  const options saved = config();
  config().quiet = true;
  config().progress = false;
  config().enabled = checks::none;
  config().sched = schedule::sequential;
  config().threads = 0;
  // The interpreter's side takes the fastest of a few runs per round (launch_warm); the emulator,
  // 20 to 600 times slower, runs once per round.
  bench_samples() = 3;
  table tab({"kernel", "size", "launches", "MFMA", "barriers", "global R/W KiB", "LDS R/W KiB",
             "bank conflicts", "active lanes", "emu ms", "interp ms", "emu/interp", "result"});
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::string> failed;
  for (const kernel_entry* k : ks) {
    const auto& s = size.empty() ? k->default_size : size;
    if (!json_out) fmt::print(stderr, "  {} {} ...\n", k->name, size_text(s));
    emu_outcome best;
    double emu_s = 1e30, cpu_s = 1e30;
    bool ok = true;
    std::string error;
    for (int round = 0; round < repeat && error.empty(); ++round) {
      try {
        emu_outcome e = k->run_amd_emu(s, 3, t);
        ok = ok && e.emu.match && e.cpu.match && e.agree && clean(e.emu) && clean(e.cpu);
        emu_s = std::min(emu_s, e.emu_seconds);
        cpu_s = std::min(cpu_s, seconds(e.cpu));
        best = std::move(e);
      } catch (const std::exception& ex) {
        error = ex.what();
      }
    }
    if (!error.empty()) {
      failed.push_back(k->name);
      tab.add({k->name, size_text(s), "", "", "", "", "", "", "", "", "", "", "FAILED: " + error});
      rows.push_back({{"kernel", k->name}, {"size", s}, {"error", error}, {"ok", false}});
      continue;
    }
    if (!ok) failed.push_back(k->name);
    const auto& c = best.counts;
    auto kib = [](int64_t b) { return fmt::format("{:.1f}", b / 1024.0); };
    tab.add({k->name, size_text(s), std::to_string(best.emu.launches.size()),
             std::to_string(c.mfma), std::to_string(c.barriers),
             kib(c.global_read_bytes) + " / " + kib(c.global_write_bytes),
             kib(c.lds_read_bytes) + " / " + kib(c.lds_write_bytes),
             std::to_string(c.lds_bank_conflicts),
             fmt::format("{:.1f}%", 100 * c.active_lane_fraction()),
             fmt::format("{:.2f}", emu_s * 1e3), fmt::format("{:.2f}", cpu_s * 1e3),
             cpu_s > 0 ? fmt::format("{:.1f}x", emu_s / cpu_s) : "-", ok ? "ok" : "FAILED"});
    rows.push_back({{"kernel", k->name},
                    {"size", s},
                    {"launches", best.emu.launches.size()},
                    {"counters",
                     {{"memory_checked", c.memory_checked},
                      {"mfma", c.mfma},
                      {"barriers", c.barriers},
                      {"global_read_bytes", c.global_read_bytes},
                      {"global_write_bytes", c.global_write_bytes},
                      {"lds_read_bytes", c.lds_read_bytes},
                      {"lds_write_bytes", c.lds_write_bytes},
                      {"lds_bank_conflicts", c.lds_bank_conflicts},
                      {"active_lane_fraction", c.active_lane_fraction()}}},
                    {"emu_s", emu_s},
                    {"interp_checks_off_s", cpu_s},
                    {"emu_over_interp", cpu_s > 0 ? emu_s / cpu_s : 0.0},
                    {"match", best.emu.match && best.cpu.match && best.agree},
                    {"ok", ok}});
  }
  config() = saved;
  bench_samples() = 0;
  if (json_out) {
    nlohmann::json j{{"backend", "amd-emu"},
                     {"target", target_name(t)},
                     {"repeat", repeat},
                     {"results", rows},
                     {"no_amd_emu_entry", without}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print(
        "blockvec bench --backend amd-emu, target {}: the AMD lowering in the emulator (lane by "
        "lane, waves of 64) and the interpreter with checks off, on the same inputs; best of {} "
        "round(s), times in ms\n"
        "counters per run: MFMA instructions, workgroup barriers, global and LDS bytes read / "
        "written, LDS bank conflict cycles, active-lane fraction of memory instructions and wave "
        "operations\n\n",
        target_name(t), repeat);
    tab.print();
    for (const auto& n : without) {
      const std::string why = amd_emu_excluded_reason(n);
      fmt::print("\nnot emulated: {}{}", n, why.empty() ? "" : " (" + why + ")");
    }
    if (!without.empty()) fmt::print("\n");
  }
  if (!failed.empty()) {
    std::string list;
    for (const auto& n : failed) list += (list.empty() ? "" : ", ") + n;
    fmt::print(stderr,
               "blockvec bench: {} did not match in the emulator or the interpreter, or the "
               "emulator reported an error; their times are void\n",
               list);
    return 1;
  }
  return 0;
}

}  // namespace bv::cli
