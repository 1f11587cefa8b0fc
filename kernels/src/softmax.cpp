// softmax.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/softmax.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_SOFTMAX_INSTANCES)
}  // namespace bv::kernels
