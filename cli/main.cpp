// blockvec: run, check, benchmark and demonstrate the kernel library on the CPU interpreter.
#include <fmt/core.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "emu/emu_bench.hpp"
#include "registry.hpp"

namespace {
// CLI11 validators that report with the project's own words.
std::string check_list(const std::string& v) {
  uint32_t bits;
  std::string err;
  return bv::parse_checks(v, bits, err) ? std::string() : err;
}
std::string schedule_value(const std::string& v) {
  bv::schedule s;
  std::string err;
  return bv::parse_schedule(v, s, err) ? std::string() : err;
}
std::string target_value(const std::string& v) {
  bv::target t;
  return bv::parse_target(v.c_str(), t) ? std::string()
                                        : "'" + v + "' is not a target: " + bv::target_choices;
}
// --target on run, bench and demo: the GPU whose launch configurations and wave size the
// interpreter runs (default gfx942, or BV_TARGET).
void add_target_option(CLI::App* sub, std::string& arg) {
  sub->add_option("--target", arg,
                  "gfx942 | gfx90a | sm_90: the GPU whose launch configurations the interpreter "
                  "runs (default: BV_TARGET, else gfx942)")
      ->check(CLI::Validator(target_value, "TARGET"));
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"blockvec: block-level GPU kernels, run and checked on the CPU interpreter"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");

  auto* list = app.add_subcommand("list", "Print the kernels it knows, one per line, name first");
  // --lib PATH (repeatable): a kernel library's entries next to the built-in kernels.
  std::vector<std::string> libs;
  auto add_lib_option = [&](CLI::App* sub) {
    sub->add_option("--lib", libs,
                    "Also load the kernels of this kernel library (a .so built with "
                    "blockvec_add_kernel_library; repeatable)")
        ->allow_extra_args(false);  // `bench --lib L.so K`: K is a kernel, not a second library
  };
  add_lib_option(list);

  bv::cli::run_request req;
  std::string size_arg, schedule_arg, check_arg, trace_arg, target_arg;
  int threads = -1;
  auto* run =
      app.add_subcommand("run", "Run a kernel on random inputs and compare with its reference");
  run->add_option("kernel", req.kernel, "Kernel name (blockvec list)")->required();
  run->add_option("--size", size_arg, "Problem size, e.g. 1000 or 256,1024");
  run->add_option("--seed", req.seed, "Seed of the random inputs (default: fresh, printed)");
  run->add_option("--schedule", schedule_arg, "sequential | shuffled | parallel")
      ->check(CLI::Validator(schedule_value, "SCHEDULE"));
  run->add_option("--threads", threads,
                  "OS threads for the parallel schedule (0: all cores this process may use)")
      ->check(CLI::Range(0, 1024));
  run->add_option("--check", check_arg, "all | none | default | a list such as bounds,race")
      ->check(CLI::Validator(check_list, "CHECKS"));
  run->add_option("--backend", req.backend,
                  "cpu (the interpreter), gpu, both (compared with each other), or amd-emu "
                  "(the AMD lowering in the emulator, compared with the interpreter; "
                  "--target gfx942 or gfx90a)")
      ->check(CLI::IsMember({"cpu", "gpu", "both", "amd-emu"}));
  run->add_option("--trace", trace_arg, "Record a trace (SQLite) for blockvec-viewer");
  add_target_option(run, target_arg);
  add_lib_option(run);
  run->add_flag("--json", req.json, "Print one JSON object");
  run->add_option("--sarif", req.reports.sarif,
                  "Write the diagnostics as a SARIF 2.1.0 log (for code-scanning services)");
  run->add_option("--junit", req.reports.junit, "Write the result as JUnit XML");
  bool notes = false;
  run->add_flag("--notes", notes,
                "Also report performance notes (uncoalesced accesses, low lane utilisation, "
                "strided tensors), each once per kernel and line (BV_NOTES=1 does the same)");

  std::vector<std::string> bench_kernels;
  bool bench_json = false;
  int repeat = 5;
  auto* bench = app.add_subcommand("bench", "Interpreter vs native C++ for each kernel, as ratios");
  bench->add_option("kernels", bench_kernels, "Kernels to benchmark (default: all)");
  bench->add_option("--repeat", repeat, "Runs per measurement; the best counts")
      ->check(CLI::Range(1, 100));
  bench->add_flag("--json", bench_json, "Print JSON");
  bool bench_per_check = false;
  bench->add_flag("--per-check", bench_per_check,
                  "CPU: also each check alone, as a ratio to checks off (one column per check)");
  std::string bench_backend = "cpu";
  int warmup = 3;
  bool bench_variants = false;
  bench
      ->add_option("--backend", bench_backend,
                   "cpu (interpreter vs native C++), gpu (each kernel's GPU entry, median of "
                   "--repeat device-timed launches, default 20, and their mean back to back) or "
                   "amd-emu (the AMD lowering in "
                   "the emulator: its counters, and its time over the interpreter's with checks "
                   "off; best of --repeat rounds, default 2)")
      ->check(CLI::IsMember({"cpu", "gpu", "amd-emu"}));
  std::string bench_size_arg;
  bench->add_option("--size", bench_size_arg,
                    "amd-emu: the problem size, with one kernel named (default: each kernel's "
                    "run size)");
  bench->add_option("--warmup", warmup, "GPU: untimed launches first")->check(CLI::Range(0, 100));
  bench->add_flag("--variants", bench_variants, "GPU: also the launch-configuration variants");
  int cooldown_ms = 1000;
  bench
      ->add_option("--cooldown", cooldown_ms,
                   "GPU: milliseconds the device stays idle before each kernel's measurement, so "
                   "that the heavy kernels before it (which bring the clock down at the power "
                   "limit) do not slow it (default 1000; 0: none)")
      ->check(CLI::Range(0, 60000));
  add_target_option(bench, target_arg);
  add_lib_option(bench);

  bool demo_json = false;
  auto* demo = app.add_subcommand("demo", "Run every kernel and print a table");
  demo->add_flag("--json", demo_json, "Print JSON");
  demo->add_flag("--notes", notes, "Also report performance notes, once per kernel and line");
  bv::cli::report_request demo_reports;
  demo->add_option("--sarif", demo_reports.sarif, "Write every kernel's diagnostics as SARIF 2.1.0");
  demo->add_option("--junit", demo_reports.junit, "Write a JUnit XML test case per kernel");
  add_target_option(demo, target_arg);
  add_lib_option(demo);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "blockvec: {}\n", e.what());
    fmt::print(stderr,
               "usage: blockvec list | run KERNEL [--size N[,M]] [--seed N] "
               "[--schedule sequential|shuffled|parallel] [--threads N] "
               "[--check all|none|LIST] [--trace FILE] [--backend cpu|gpu|both|amd-emu] "
               "[--target gfx942|gfx90a|sm_90] [--notes] [--sarif FILE] [--junit FILE] [--json]\n"
               "       | bench [KERNEL...] [--backend cpu|gpu|amd-emu] [--repeat N] [--per-check] "
               "[--size S] "
               "[--target T] [--json] | demo [--target T] [--notes] [--sarif FILE] [--junit FILE] "
               "[--json]\n"
               "       list, run, bench and demo also take --lib LIB.so (repeatable)\n"
               "       blockvec --help and blockvec SUBCOMMAND --help say more\n");
    return 2;
  }

  auto& cfg = bv::config();
  std::string err;
  if (!schedule_arg.empty()) bv::parse_schedule(schedule_arg, cfg.sched, err);
  if (!check_arg.empty()) bv::parse_checks(check_arg, cfg.enabled, err);
  if (threads >= 0) cfg.threads = threads;
  if (!target_arg.empty()) {
    bv::target t = bv::default_target;
    bv::parse_target(target_arg.c_str(), t);
    bv::set_target(t);
  }
  if (!trace_arg.empty()) cfg.trace_path = trace_arg;
  if (notes) bv::set_notes(true);
  if (!size_arg.empty() && !bv::cli::parse_size(size_arg, req.size, err)) {
    fmt::print(stderr, "blockvec run: {}\n", err);
    return 2;
  }
  req.seed_given = run->count("--seed") > 0;
  for (const auto& path : libs)
    if (!bv::cli::load_library(path, err)) {
      fmt::print(stderr, "blockvec: --lib {}\n", err);
      return 2;
    }

  if (*list) return bv::cli::list_command();
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  req.reports.command_line = demo_reports.command_line = command_line;
  if (*run) return bv::cli::run_command(req);
  if (*bench && bench_backend == "gpu")
    return bv::cli::bench_gpu_command(bench_kernels, bench_json,
                                      bench->count("--repeat") ? repeat : 20, warmup,
                                      bench_variants, cooldown_ms);
  if (*bench && bench_backend == "amd-emu") {
    std::vector<int64_t> bench_size;
    if (!bench_size_arg.empty() && !bv::cli::parse_size(bench_size_arg, bench_size, err)) {
      fmt::print(stderr, "blockvec bench: {}\n", err);
      return 2;
    }
    return bv::cli::bench_amd_emu_command(bench_kernels, bench_size, bench_json,
                                          bench->count("--repeat") ? repeat : 2);
  }
  if (*bench) return bv::cli::bench_command(bench_kernels, bench_json, repeat, bench_per_check);
  if (*demo) return bv::cli::demo_command(demo_json, demo_reports);
  return 2;
}
