// act_mul.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/act_mul.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_ACT_MUL_INSTANCES)
}  // namespace bv::kernels
