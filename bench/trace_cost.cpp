// What tracing costs: each seed kernel run untraced (checks on, their defaults) and traced, best
// of three each, in one process; prints the slowdown and the trace's bytes per accessed element.
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace {
double best_of(int n, const std::function<void()>& f) {
  double best = 1e30;
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}
int64_t accesses_in(const std::string& path) {
  sqlite3* db = nullptr;
  int64_t n = 0;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT sum(accesses) FROM launches", -1, &s, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return n;
}
void measure(const char* name, const std::string& dir, const std::function<void()>& run) {
  auto& cfg = bv::config();
  cfg.trace_path.clear();
  run();  // warm up: stacks, pages
  const double plain = best_of(3, run);
  const std::string path = dir + "/trace_cost_" + name + ".bvtrace";
  cfg.trace_path = path;
  // Each traced run replaces nothing (same path, appended launches): time one launch per file.
  double traced = 1e30;
  for (int i = 0; i < 3; ++i) {
    cfg.trace_path = path + std::to_string(i);
    traced = std::min(traced, best_of(1, run));
  }
  cfg.trace_path = path + "size";
  run();
  cfg.trace_path.clear();
  run();  // closes nothing, but moves the writer off the measured file
  struct stat st {};
  stat((path + "size").c_str(), &st);
  const int64_t acc = accesses_in(path + "size");
  std::printf(
      "%-8s untraced %8.1f ms  traced %8.1f ms  x%.2f   trace %9lld bytes, %10lld accesses, %.3f "
      "bytes/access\n",
      name, plain * 1e3, traced * 1e3, traced / plain, static_cast<long long>(st.st_size),
      static_cast<long long>(acc), acc ? double(st.st_size) / acc : 0.0);
  for (int i = 0; i < 3; ++i) std::remove((path + std::to_string(i)).c_str());
}
}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  auto& cfg = bv::config();
  cfg.quiet = true;
  std::printf("blockvec trace cost: checks %s (0x%x), schedule %s, best of 3\n",
              cfg.enabled == bv::checks::defaults ? "defaults" : "custom", cfg.enabled,
              bv::schedule_name(cfg.sched));
  {
    const int n = 1 << 22;
    auto x = bv::tensor<float>::randn("x", {n}, 1), y = bv::tensor<float>::randn("y", {n}, 2);
    auto o = bv::tensor<float>::zeros("out", {n});
    measure("add", dir, [&] { bv::kernels::add(x, y, o); });
  }
  {
    auto x = bv::tensor<float>::randn("x", {512, 1024}, 3);
    auto o = bv::tensor<float>::zeros("out", {512, 1024});
    measure("softmax", dir, [&] { bv::kernels::softmax(x, o); });
  }
  {
    auto a = bv::tensor<float>::randn("a", {256, 256}, 4),
         b = bv::tensor<float>::randn("b", {256, 256}, 5);
    auto c = bv::tensor<float>::zeros("c", {256, 256});
    measure("matmul", dir, [&] { bv::kernels::matmul<64, 64, 32, 8>(a, b, c); });
  }
  return 0;
}
