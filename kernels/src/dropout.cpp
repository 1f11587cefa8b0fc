// dropout.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/dropout.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_DROPOUT_INSTANCES)
}  // namespace bv::kernels
