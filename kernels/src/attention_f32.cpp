// attention.hpp's launchers for float, built once for the interpreter (bv/kernels/instances.hpp);
// one file per element type, so that they build in parallel.
#include "bv/kernels/attention.hpp"

namespace bv::kernels {
BV_ATTENTION_INSTANCES_OF(BV_DEFINE_INSTANCE, float)
}  // namespace bv::kernels
