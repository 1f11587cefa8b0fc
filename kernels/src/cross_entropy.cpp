// cross_entropy.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/cross_entropy.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_CROSS_ENTROPY_INSTANCES)
}  // namespace bv::kernels
