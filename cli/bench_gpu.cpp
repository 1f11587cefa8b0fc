// `blockvec bench --backend gpu`: each kernel's GPU entry timed on the device (median of N after
// warm-up, device events around each launch; and the mean of N launches back to back between two
// events, the kernel's own time, as the peers time theirs), at the Triton peers' shapes where a
// peer exists (add 2^28, softmax 8192x8192 f32, matmul f16 8192^3, RMSNorm and LayerNorm f16
// 8192x8192, attention 4x16x4096x64 f16). The benchmarks themselves live in libblockvec_gpu
// (gpu_backend/src/bench*.{hpp,cu}), next to the kernels they launch.
#include <fmt/core.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "bv/gpu/host_api.hpp"
#include "bv/gpu/host_bench.hpp"
#include "commands.hpp"
#include "registry.hpp"
#include "table.hpp"

namespace bv::cli {

namespace {
std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}
}  // namespace

int bench_gpu_command(const std::vector<std::string>& names, bool json_out, int reps, int warmup,
                      bool variants, int cooldown_ms) {
  if (!gpu::available()) {
    fmt::print(stderr, "blockvec bench: --backend gpu needs a GPU: {}\n", gpu::describe());
    fmt::print(
        stderr,
        "usage: blockvec bench [KERNEL...] --backend gpu [--repeat N] [--warmup N] "
        "[--cooldown MS] [--variants] [--json]   (in a build configured with -DBV_GPU_NVCC=ON or "
        "-DBV_GPU_HIP=ON, on a machine with a GPU)\n");
    return 1;
  }
  const std::vector<std::string> have = gpu::bench_names();
  const std::set<std::string> have_set(have.begin(), have.end());
  // What to run: the named kernels (each with its variants when --variants), else every kernel
  // of the registry, then (with --variants) the NAME@VARIANT benchmarks.
  std::vector<std::string> todo, missing;
  auto with_variants = [&](const std::string& n) {
    if (!variants) return;
    for (const auto& h : have)
      if (h.rfind(n + "@", 0) == 0) todo.push_back(h);
  };
  if (!names.empty()) {
    for (const auto& n : names) {
      if (!find_kernel(n) && !have_set.count(n)) {
        fmt::print(stderr, "blockvec bench: unknown kernel '{}' (blockvec list shows them)\n", n);
        return 2;
      }
      if (have_set.count(n))
        todo.push_back(n);
      else
        missing.push_back(n);
      with_variants(n);
    }
  } else {
    for (const auto& k : registry()) {
      if (have_set.count(k.name))
        todo.push_back(k.name);
      else
        missing.push_back(k.name);
    }
    if (variants)
      for (const auto& h : have)
        if (h.find('@') != std::string::npos) todo.push_back(h);
  }

  const std::string device = gpu::describe();
  table tab({"kernel", "dtype", "shape", "median ms", "min ms", "max ms", "back to back ms", "TB/s",
             "TFLOP/s", "what"});
  nlohmann::json rows = nlohmann::json::array();
  int failed = 0;
  for (const auto& n : todo) {
    if (!json_out) fmt::print(stderr, "  {} ...\n", n);
    // Under sustained tensor-core load a GPU lowers its clock at its power limit (an H200 ran
    // the f16 matmul 15% slower after a few hundred milliseconds of matmuls, and the attention
    // forward after them 25% slower): an idle pause first, so that a kernel's figure does not
    // depend on what the list ran before it. (The device is idle here: each bench synchronizes.)
    if (cooldown_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(cooldown_ms));
    gpu::bench_figure f;
    try {
      f = gpu::bench(n, warmup, reps, cooldown_ms);
    } catch (const std::exception& e) {
      ++failed;
      tab.add({n, "", "", "FAILED", "", "", "", "", "", e.what()});
      rows.push_back({{"kernel", n}, {"error", e.what()}});
      continue;
    }
    const double tbps = f.bytes > 0 ? f.bytes / (f.ms * 1e-3) / 1e12 : 0;
    const double tflops = f.flops > 0 ? f.flops / (f.ms * 1e-3) / 1e12 : 0;
    tab.add({f.kernel, f.dtype, f.shape, fmt::format("{:.4f}", f.ms),
             fmt::format("{:.4f}", f.min_ms), fmt::format("{:.4f}", f.max_ms),
             f.batch_ms > 0 ? fmt::format("{:.4f}", f.batch_ms) : "-",
             tbps > 0 ? fmt::format("{:.2f}", tbps) : "",
             tflops > 0 ? fmt::format("{:.1f}", tflops) : "", f.note});
    rows.push_back({{"kernel", f.kernel},
                    {"dtype", f.dtype},
                    {"shape", f.shape},
                    {"median_ms", f.ms},
                    {"min_ms", f.min_ms},
                    {"max_ms", f.max_ms},
                    {"batch_ms", f.batch_ms},
                    {"bytes", f.bytes},
                    {"flops", f.flops},
                    {"TBps", tbps},
                    {"TFLOPs", tflops},
                    {"reps", f.reps},
                    {"note", f.note}});
  }
  if (json_out) {
    nlohmann::json j{{"date", utc_now()}, {"device", device},       {"backend", "gpu"},
                     {"warmup", warmup},  {"reps", reps},           {"cooldown_ms", cooldown_ms},
                     {"results", rows},   {"no_gpu_bench", missing}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("blockvec bench --backend gpu, {} on {}\n", utc_now(), device);
    fmt::print(
        "median of {} launches after {} warm-up launch(es), device events around each; back to "
        "back: the mean of {} launches between two events (the kernel's own time: the host's "
        "launch work overlaps the launches before it), after the same pause and warm-up;\neach "
        "kernel after {} ms of an idle device; inputs random on the device; TB/s and TFLOP/s "
        "from the median; TB/s counts each input read once and each output written once\n\n",
        reps, warmup, reps, cooldown_ms);
    tab.print();
    if (!missing.empty()) {
      fmt::print("\nno GPU bench (no GPU entry):");
      for (const auto& m : missing) fmt::print(" {}", m);
      fmt::print("\n");
    }
  }
  return failed ? 1 : 0;
}

}  // namespace bv::cli
