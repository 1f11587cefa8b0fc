// rmsnorm.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/rmsnorm.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_RMSNORM_INSTANCES)
}  // namespace bv::kernels
