// libblockvec_gpu for builds without a GPU compiler: the interface exists, no GPU does.
#include <stdexcept>

#include "bv/gpu/host_api.hpp"
#include "bv/gpu/host_bench.hpp"

namespace bv::gpu {
namespace {
[[noreturn]] void none() {
  throw std::runtime_error(
      "blockvec GPU: this program was built without a GPU backend (configure with "
      "-DBV_GPU_NVCC=ON with nvcc or -DBV_GPU_HIP=ON with hipcc, or use --backend cpu)");
}
}  // namespace
bool built() { return false; }
bool available() { return false; }
std::string describe() {
  return "no GPU backend in this build (configure with -DBV_GPU_NVCC=ON or -DBV_GPU_HIP=ON)";
}
double add(dtype_id, const void*, const void*, void*, int64_t) { none(); }
double copy(dtype_id, const void*, void*, int64_t) { none(); }
double softmax(dtype_id, const void*, void*, int, int) { none(); }
double matmul(dtype_id, dtype_id, const void*, const void*, void*, int, int, int) { none(); }
double rmsnorm_fwd(dtype_id, const void*, const void*, void*, float*, int, int, float) { none(); }
double add_rmsnorm_fwd(dtype_id, const void*, const void*, const void*, void*, void*, float*, int,
                       int, float) {
  none();
}
double layernorm_fwd(dtype_id, const void*, const void*, const void*, void*, float*, float*, int,
                     int, float) {
  none();
}
double act_mul_fwd(dtype_id, bool, const void*, void*, int, int) { none(); }
double act_mul_bwd(dtype_id, bool, const void*, const void*, void*, int, int) { none(); }
double dropout(dtype_id, const void*, void*, int64_t, float, int) { none(); }
double cross_entropy_fwd(dtype_id, const void*, const int32_t*, float*, float*, int, int) {
  none();
}
double cross_entropy_bwd(dtype_id, const void*, const int32_t*, const float*, const float*, void*,
                         int, int) {
  none();
}
double attention_fwd(dtype_id, const void*, const void*, const void*, void*, float*, int, int, int,
                     int, bool) {
  none();
}
double matmul_bias_gelu(dtype_id, const void*, const void*, const void*, void*, int, int, int) {
  none();
}
double conv2d(dtype_id, const void*, const void*, const void*, void*, int, int, int, int, int, int,
              int, int, int, int, int) {
  none();
}
double rmsnorm_bwd(dtype_id, const void*, const void*, const void*, const float*, void*, void*, int,
                   int) {
  none();
}
double col_sum(const float*, float*, int, int) { none(); }
double layernorm_bwd(dtype_id, bool, const void*, const void*, const void*, const float*,
                     const float*, void*, void*, void*, int, int) {
  none();
}
double attention_bwd(dtype_id, const void*, const void*, const void*, const void*, const float*,
                     const void*, void*, void*, void*, int, int, int, int, bool) {
  none();
}
double matmul_splitk(dtype_id, const void*, const void*, float*, int, int, int, int) { none(); }
double rope_split(dtype_id, const void*, void*, const float*, const float*, int, int, int, int, int,
                  float) {
  none();
}
double rope_merge(dtype_id, const void*, void*, const float*, const float*, int, int, int, int, int,
                  float) {
  none();
}
std::vector<std::string> bench_names() { return {}; }
bench_figure bench(const std::string&, int, int, int) { none(); }
double transformer_block(const transformer_block_io&, int) { none(); }
}  // namespace bv::gpu
