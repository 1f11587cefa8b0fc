// The blockvec subcommands. Each returns the process exit status.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bv/bv.hpp"

namespace bv::cli {

// --sarif FILE / --junit FILE on run and demo: reports for CI.
struct report_request {
  std::string sarif, junit;
  std::string command_line;  // recorded in the SARIF log
};

struct run_request {
  std::string kernel;
  std::vector<int64_t> size;  // empty: the kernel's default
  uint64_t seed = 0;
  bool seed_given = false;
  bool json = false;
  std::string backend = "cpu";
  report_request reports;
};

int list_command();
int run_command(const run_request& r);
// per_check: also time each check alone (sequential), as a ratio to checks off.
int bench_command(const std::vector<std::string>& kernels, bool json, int repeat,
                  bool per_check = false);
// bench --backend gpu (cli/bench_gpu.cpp): median of `reps` device-timed launches after `warmup`,
// each kernel after `cooldown_ms` of an idle device (the default is --cooldown's, in main.cpp).
int bench_gpu_command(const std::vector<std::string>& kernels, bool json, int reps, int warmup,
                      bool variants, int cooldown_ms);
int demo_command(bool json, const report_request& reports = {});

// "256,1024" or "256x1024" -> {256, 1024}; false with a message when malformed.
bool parse_size(const std::string& text, std::vector<int64_t>& out, std::string& error);
// Size arity a kernel expects, from its size_help ("ROWS,COLS" -> 2).
int size_arity(const std::string& size_help);
std::string checks_text(uint32_t bits);

}  // namespace bv::cli
