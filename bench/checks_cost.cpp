// The cost of each check: the interpreter with one check on, and with all of them, as a ratio to
// checks off, on the first kernels (add 1M f32, softmax 256x1024, matmul 256^3 with 64x64x32
// tiles), and all checks against a native single-threaded Eigen implementation. Sequential
// schedule, best of several runs, one process: the figures are ratios from one run. Times are
// the process's CPU time, not wall time: on a shared machine, time spent descheduled is not the
// check's (every run here is single-threaded).
#include <time.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double best_of(int reps, const std::function<void()>& f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = cpu_seconds();
    f();
    best = std::min(best, cpu_seconds() - t0);
  }
  return best;
}

struct workload {
  const char* name;
  std::function<void()> native, interp;
};

}  // namespace

void bench_checks_cost(int reps) {
  using namespace bv;
  auto& cfg = config();
  const options saved = cfg;
  cfg.sched = schedule::sequential;
  cfg.quiet = true;

  const int n = 1 << 20;
  auto ax = tensor<float>::randn("x", {n}, 1), ay = tensor<float>::randn("y", {n}, 2);
  auto aout = tensor<float>::zeros("out", {n});
  auto sx = tensor<float>::randn("x", {256, 1024}, 3);
  auto sout = tensor<float>::zeros("out", {256, 1024});
  auto ma = tensor<float>::randn("a", {256, 256}, 4), mb = tensor<float>::randn("b", {256, 256}, 5);
  auto mc = tensor<float>::zeros("c", {256, 256});

  using arr = Eigen::Map<Eigen::ArrayXf>;
  using mat = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  std::vector<workload> w{
      {"add 1M f32",
       [&] { arr(aout.data(), n) = arr(ax.data(), n) + arr(ay.data(), n); },
       [&] { kernels::add(ax, ay, aout); }},
      {"softmax 256x1024",
       [&] {
         mat x(sx.data(), 256, 1024), o(sout.data(), 256, 1024);
         for (int r = 0; r < 256; ++r) {
           auto e = (x.row(r).array() - x.row(r).maxCoeff()).exp();
           o.row(r) = (e / e.sum()).matrix();
         }
       },
       [&] { kernels::softmax(sx, sout); }},
      {"matmul 256^3",
       [&] {
         mat a(ma.data(), 256, 256), b(mb.data(), 256, 256), c(mc.data(), 256, 256);
         c.noalias() = a * b;
       },
       [&] { kernels::matmul<64, 64, 32>(ma, mb, mc); }},
  };

  std::vector<std::pair<std::string, uint32_t>> cols{{"off", checks::none}};
  for (const check_name* c = check_names; c->name; ++c) cols.emplace_back(c->name, c->bit);
  cols.emplace_back("all", checks::all);

  std::printf("%-18s %9s %9s", "kernel", "native", "off");
  for (size_t i = 1; i < cols.size(); ++i) std::printf(" %10s", cols[i].first.c_str());
  std::printf(" %12s\n", "all/native");
  for (auto& k : w) {
    const double tn = best_of(reps, k.native);
    std::vector<double> t;
    for (auto& [name, bits] : cols) {
      cfg.enabled = bits;
      k.interp();  // warm (stacks, shadow memory)
      t.push_back(best_of(reps, k.interp));
    }
    std::printf("%-18s %7.2fms %7.2fms", k.name, tn * 1e3, t[0] * 1e3);
    for (size_t i = 1; i < cols.size(); ++i) std::printf(" %9.2fx", t[i] / t[0]);
    std::printf(" %11.2fx\n", t.back() / tn);
  }
  std::printf("(columns after `off`: time with that check alone on, as a ratio to checks off)\n");
  clear_diagnostics();
  cfg = saved;
}

#ifndef BV_CHECKS_COST_NO_MAIN
int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  bench_checks_cost(reps);
  return 0;
}
#endif
