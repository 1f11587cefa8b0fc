// add.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/add.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_ADD_INSTANCES)
}  // namespace bv::kernels
