// A live-mode plugin for blockvec-viewer: two versions of a "shift add" kernel,
// out[i] = x[i] + x[i+1] (x[n] taken as 0), the first with the classic off-by-one in its mask.
//   blockvec-viewer --live-plugin build/samples/live_plugin/bv_live_shift_add.so
// then pick shift_add_bug in the Live tab, break at program =2 and Step onto the x[i+1] load of
// the last program: its last lane reads one element past the end of x.
#include <cmath>
#include <string>

#include "bv/bv.hpp"
#include "bv/live_plugin.hpp"

namespace {

template <int BLOCK, bool FIXED>
BV_KERNEL void shift_add(bv::program<4> p, bv::ptr<const float> x, bv::ptr<float> out, int n) {
  auto offs = p.id(0) * BLOCK + bv::arange<BLOCK>(p);
  auto mask = offs < n;
  auto here = bv::load(x + offs, mask, 0.0f);
  // BUG (FIXED=false): x[i+1] is guarded by i < n, so lane n-1 reads x[n], one past the end.
  auto next = bv::load(x + offs + 1, FIXED ? (offs + 1 < n) : mask, 0.0f);
  bv::watch(p, "next", next);
  bv::store(out + offs, here + next, mask);
}

template <bool FIXED>
int run(const char* size, uint64_t seed, char* message, size_t len) {
  return bv::live::guarded(
      [&]() -> std::string {
        const int64_t n = bv::live::parse_size(size, 1)[0];
        auto x = bv::tensor<float>::randn("x", {n}, seed);
        auto out = bv::tensor<float>::empty("out", {n});
        constexpr int B = 256;
        const bv::launch_result r = bv::launch<shift_add<B, FIXED>>(
            bv::grid(bv::cdiv(static_cast<int>(n), B)), x, out, static_cast<int>(n));
        if (r.quit) return "stopped by the user";
        // The reference on the host; where the buggy read hit memory past x the result differs.
        double worst = 0;
        for (int64_t i = 0; i < n; ++i) {
          const float want = x(i) + (i + 1 < n ? x(i + 1) : 0.0f);
          worst = std::max(worst, double(std::fabs(out(i) - want)));
        }
        return std::to_string(r.programs) + " programs, " + std::to_string(r.errors) +
               " error(s); max abs error vs reference " + std::to_string(worst);
      },
      message, len);
}

const bv_live_kernel kernels[] = {
    {"shift_add_bug", "out[i] = x[i] + x[i+1], with an off-by-one mask on x[i+1]", "1000",
     &run<false>},
    {"shift_add_fixed", "the same kernel with the mask fixed", "1000", &run<true>},
};

}  // namespace

BV_LIVE_PLUGIN(kernels)
