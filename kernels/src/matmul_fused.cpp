// matmul_fused.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/matmul_fused.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_MATMUL_FUSED_INSTANCES)
}  // namespace bv::kernels
