// col_sum.hpp's launchers, built once for the interpreter (bv/kernels/instances.hpp).
#include "bv/kernels/col_sum.hpp"

namespace bv::kernels {
BV_DEFINE_INSTANCES(BV_COL_SUM_INSTANCES)
}  // namespace bv::kernels
