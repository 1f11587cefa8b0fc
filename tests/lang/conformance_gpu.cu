// The conformance suite on a GPU: the cases of conformance/cases.hpp (the kernels and references
// test_conformance.cpp runs on the interpreter), on the device. Exits 0 when every case matches,
// 1 on a mismatch, 77 when no GPU can be used (ctest's skip code).
#include <cstdio>
#include <random>

#include "bv/bv.hpp"
#include "conformance/cases.hpp"

namespace {

struct gpu_backend {
  template <class T>
  using tensor = bv::device_tensor<T>;
  template <class T>
  static tensor<T> make(const char* name, std::vector<int64_t> shape, const std::vector<T>& v) {
    return tensor<T>::from_host(name, std::move(shape), v.data());
  }
  template <class T>
  static std::vector<T> read(const tensor<T>& t) {
    return t.to_host();
  }
  // (grid, args...) or (gpu_tuning, grid, args...), as bv::launch takes them.
  template <auto K, class... A>
  static bv::launch_result launch(A&&... args) {
    auto r = bv::launch<K>(std::forward<A>(args)...);
    bv::gpu::synchronize();
    return r;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (bv::gpu::device_count() == 0) {
    std::printf("conformance_gpu: no GPU found; nothing run\n");
    return 77;
  }
  const uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::random_device{}();
  std::printf("conformance_gpu: target %s, seed %llu\n", bv::target_name(bv::gpu::device_target()),
              static_cast<unsigned long long>(seed));
  int failed = 0, run = 0;
  conformance::run_all<gpu_backend>(seed, [&](const char* name, const conformance::outcome& o) {
    ++run;
    if (!o.ok) ++failed;
    std::printf("%-24s %s%s%s\n", name, o.ok ? "ok" : "MISMATCH", o.ok ? "" : ": ", o.what.c_str());
  });
  std::printf("conformance_gpu: %d of %d cases match\n", run - failed, run);
  return failed ? 1 : 0;
}
