// conv2d.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/conv2d.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_CONV2D_INSTANCES)
}  // namespace bv::kernels
