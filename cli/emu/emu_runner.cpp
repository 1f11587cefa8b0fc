// The emulated side of --backend amd-emu: finds a kernel's runner (cli/emu/run_*.cpp, one
// translation unit per kernel family), checks its inputs, and runs it for the requested target
// with the emulator's own printing off (the command prints the diagnostics with its comparison).
#include "emu_runner.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "runner_table.hpp"

namespace bv::cli::amd_emu {
namespace {

const std::vector<runner>& runners() {
  static const std::vector<runner> table = [] {
    std::vector<runner> all;
    for (auto family : {elementwise_runners, row_runners, norm_runners, matmul_runners,
                        conv2d_runners, attention_runners, attention_bwd_runners, block_runners})
      for (const runner& r : family()) all.push_back(r);
    return all;
  }();
  return table;
}

const runner* find(const std::string& name) {
  for (const auto& e : runners())
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace

bool has(const std::string& name) { return find(name) != nullptr; }

std::vector<std::string> names() {
  std::vector<std::string> v;
  for (const auto& e : runners()) v.emplace_back(e.name);
  return v;
}

run_result run(const std::string& name, target t, const std::vector<array>& inputs,
               const std::vector<int64_t>& params) {
  const runner* e = find(name);
  if (!e) throw std::invalid_argument("no AMD emulator entry for " + name);
  if (t == target::sm_90) throw std::invalid_argument("amd-emu runs AMD targets only");
  if (inputs.size() != e->inputs || params.size() != e->params)
    throw std::invalid_argument("amd-emu: " + name + " takes " + std::to_string(e->inputs) +
                                " input(s) and " + std::to_string(e->params) +
                                " parameter(s), got " + std::to_string(inputs.size()) + " and " +
                                std::to_string(params.size()));
  setenv("BV_EMU_QUIET", "1", 1);
  const target before = emu::current_target();
  emu::set_target(t);
  run_result r;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    e->run(r, inputs, params);
  } catch (...) {
    emu::set_target(before);
    throw;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  emu::set_target(before);
  return r;
}

namespace {
target g_library_before = target::gfx942;
}

void begin_library_run(target t) {
  if (!is_amd(t)) throw std::invalid_argument("amd-emu runs AMD targets only");
  setenv("BV_EMU_QUIET", "1", 1);
  g_library_before = emu::current_target();
  emu::set_target(t);
  emu::record_launches(true);
}

counts end_library_run(size_t launches) {
  const std::vector<emu::launch_counts> all = emu::recorded_launches();
  emu::record_launches(false);
  emu::set_target(g_library_before);
  counts c;
  const size_t first = all.size() > launches ? all.size() - launches : 0;
  for (size_t i = first; i < all.size(); ++i) c.add(all[i].counts, all[i].memory_checked);
  return c;
}

}  // namespace bv::cli::amd_emu
