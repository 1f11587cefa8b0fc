// rope.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/rope.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_ROPE_INSTANCES)
}  // namespace bv::kernels
