// matmul.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/matmul.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_MATMUL_INSTANCES)
}  // namespace bv::kernels
