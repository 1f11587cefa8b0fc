// layernorm.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/layernorm.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_LAYERNORM_INSTANCES)
}  // namespace bv::kernels
