// copy.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/copy.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_COPY_INSTANCES)
}  // namespace bv::kernels
