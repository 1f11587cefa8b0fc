// bv::gpu::bench_names() and bv::gpu::bench() (bv/gpu/host_bench.hpp) over the registry that the
// host_api*.cu units fill (src/bench_registry.hpp).
#include <stdexcept>

#include "bench_registry.hpp"

namespace bv::gpu {
namespace benchreg {
std::vector<entry>& entries() {
  static std::vector<entry> e;
  return e;
}
int& pause_ms() {
  static int ms = 0;
  return ms;
}
}  // namespace benchreg

std::vector<std::string> bench_names() {
  std::vector<std::string> n;
  for (const auto& e : benchreg::entries()) n.push_back(e.name);
  return n;
}

bench_figure bench(const std::string& name, int warmup, int reps, int pause_ms) {
  if (device_count() == 0) throw error("blockvec GPU: no GPU device found");
  if (reps < 1) throw std::invalid_argument("blockvec GPU bench: reps must be at least 1");
  for (const auto& e : benchreg::entries())
    if (e.name == name) {
      benchreg::pause_ms() = pause_ms;
      bench_figure f = e.run(warmup, reps);
      f.kernel = name;
      synchronize();
      return f;
    }
  throw std::invalid_argument("blockvec GPU bench: no benchmark named '" + name + "'");
}

}  // namespace bv::gpu
