// The device bench as a CPU-compiled program sees it (`blockvec bench --backend gpu`): plain C++,
// defined by libblockvec_gpu (src/bench.cu and the host_api*.cu units that register their
// kernels' benchmarks), or by the stub of builds without a GPU compiler (src/no_gpu.cpp).
#pragma once
#include <string>
#include <vector>

namespace bv::gpu {

// Benchmarks on the device (`blockvec bench --backend gpu`): inputs made on the device (random,
// never zeros), `warmup` untimed launches, then the median of `reps` launches timed with device
// events, each alone, and the mean of `reps` launches issued back to back between two events.
// Shapes are the Triton peers' where a peer exists (bench/gpu/triton_peer.py).
struct bench_figure {
  std::string kernel;   // the CLI's kernel name, or NAME@VARIANT for a launch-config variant
  std::string dtype;    // "f16", "f32", ...
  std::string shape;    // "8192x8192", ...
  std::string note;     // what is timed (e.g. "non-causal", "zero + split products")
  double ms = 0;        // median of single launches, each between two events
  double min_ms = 0, max_ms = 0;
  // The mean of `reps` launches issued back to back between two events: the kernel's own time,
  // as the peers' "back to back" figures are, since the host's launch work (the launcher's
  // checks, the launch call) overlaps the launches before it; a single launch waits for it on an
  // idle device. 0 where reps is 1 (one launch only).
  double batch_ms = 0;
  double bytes = 0;     // fewest bytes moved (inputs read once, outputs written once)
  double flops = 0;     // 0 for memory-bound kernels
  int reps = 0;
};
// The benchmarks this build has, in registration order (variants included).
std::vector<std::string> bench_names();
// Runs one; throws std::invalid_argument for a name bench_names() does not list. pause_ms: the
// device idles that long (after a synchronize) before the back-to-back launches and their warm-up,
// as before the single ones (`blockvec bench --cooldown`), so neither figure pays for the other.
bench_figure bench(const std::string& name, int warmup, int reps, int pause_ms = 0);

}  // namespace bv::gpu
