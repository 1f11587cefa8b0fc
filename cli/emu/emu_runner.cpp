// The emulated side of --backend amd-emu: each runner turns the command's inputs into emulated
// tensors, launches through the shared recipes (emulator/bv/emu/library.hpp) and hands back the
// outputs, the launches' diagnostics and the summed counters.
#include "emu_runner.hpp"

#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "bv/bv.hpp"
#include "bv/emu/library.hpp"

namespace bv::cli::amd_emu {
namespace {

device_tensor<float> input(const array& a) {
  int64_t n = 1;
  for (int64_t d : a.shape) n *= d;
  if (n != static_cast<int64_t>(a.values.size()))
    throw std::invalid_argument("amd-emu: an input's values do not fill its shape");
  return device_tensor<float>::from_host("in", a.shape, a.values.data());
}

array output(const device_tensor<float>& t) {
  array a{t.shape(), std::vector<float>(static_cast<size_t>(t.numel()))};
  for (int64_t i = 0; i < t.numel(); ++i) a.values[static_cast<size_t>(i)] = t.data()[i];
  return a;
}

void collect(run_result& r, emu::result e) {
  r.totals.mfma += e.counts.mfma;
  r.totals.global_read_bytes += e.counts.global_read_bytes;
  r.totals.global_write_bytes += e.counts.global_write_bytes;
  r.totals.lds_read_bytes += e.counts.lds_read_bytes;
  r.totals.lds_write_bytes += e.counts.lds_write_bytes;
  r.totals.lds_bank_conflicts += e.counts.lds_bank_conflicts;
  r.totals.wave_instructions += e.counts.wave_instructions;
  r.totals.active_lanes += e.counts.active_lanes;
  r.totals.memory_checked =
      r.launches.empty() ? e.memory_checked : r.totals.memory_checked && e.memory_checked;
  r.launches.push_back(static_cast<launch_result&&>(e));
}

struct runner {
  const char* name;
  size_t inputs;
  std::function<void(run_result&, const std::vector<array>&)> run;
};

// f32 entries, as the command's entries for these kernels make their inputs.
const std::vector<runner>& runners() {
  static const std::vector<runner> table = {
      {"add", 2,
       [](run_result& r, const std::vector<array>& in) {
         auto x = input(in[0]), y = input(in[1]);
         auto o = device_tensor<float>::empty("out", x.shape());
         collect(r, emu::lib::add(x, y, o));
         r.outputs.push_back(output(o));
       }},
      {"copy", 1,
       [](run_result& r, const std::vector<array>& in) {
         auto x = input(in[0]);
         auto o = device_tensor<float>::empty("out", x.shape());
         collect(r, emu::lib::copy(x, o));
         r.outputs.push_back(output(o));
       }},
  };
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

run_result run(const std::string& name, target t, const std::vector<array>& inputs) {
  const runner* e = find(name);
  if (!e) throw std::invalid_argument("no AMD emulator entry for " + name);
  if (t == target::sm_90) throw std::invalid_argument("amd-emu runs AMD targets only");
  if (inputs.size() != e->inputs)
    throw std::invalid_argument("amd-emu: " + name + " takes " + std::to_string(e->inputs) +
                                " inputs");
  // The command prints the diagnostics itself, with the comparison.
  setenv("BV_EMU_QUIET", "1", 1);
  const target before = emu::current_target();
  emu::set_target(t);
  run_result r;
  try {
    e->run(r, inputs);
  } catch (...) {
    emu::set_target(before);
    throw;
  }
  emu::set_target(before);
  return r;
}

}  // namespace bv::cli::amd_emu
