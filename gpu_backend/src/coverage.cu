// Device code of every kernel in kernels/, one representative instantiation each, for the
// compile-only builds (the ISA check; nvcc -c): a kernel the GPU backend cannot compile fails
// here. Kernels with GPU launchers and tests are also instantiated, in their launch
// configurations, by host_api.cu (add, copy, softmax, matmul) and host_api_lib.cu (rmsnorm,
// add_rmsnorm, layernorm fwd, act_mul, dropout, cross_entropy, attention fwd) and
// host_api_lib2.cu (matmul_bias_act with GELU, conv2d) and host_api_lib3.cu (the norm and
// attention backward kernels, col_sum).
#include "bv/bv.hpp"
#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/conv2d.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/dropout.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/matmul_fused.hpp"
#include "bv/kernels/rmsnorm.hpp"
#include "bv/kernels/rope.hpp"

namespace bv::gpu {
using namespace bv::kernels;
using bv::gpu_lang::detail::kernel_entry;

// Referenced so that the compiler emits every kernel below.
const void* const coverage_kernels[] = {
    (const void*)kernel_entry<act_mul_fwd_kernel<half, gate_act::silu, 1024>>(),
    (const void*)kernel_entry<act_mul_bwd_kernel<half, gate_act::gelu_tanh, 1024>>(),
    (const void*)kernel_entry<attention_fwd_kernel<half, 64, 64, 64, true>>(),
    (const void*)kernel_entry<attention_bwd_preprocess_kernel<half, 64, 64>>(),
    (const void*)kernel_entry<attention_bwd_dkdv_kernel<half, 64, 64, 64, true>>(),
    (const void*)kernel_entry<attention_bwd_dq_kernel<half, 64, 64, 64, true>>(),
    (const void*)kernel_entry<col_sum_kernel<float, 32, 128>>(),
    (const void*)kernel_entry<conv2d_kernel<float, 32, 64, 32>>(),
    (const void*)kernel_entry<cross_entropy_fwd_kernel<float, 1024>>(),
    (const void*)kernel_entry<cross_entropy_bwd_kernel<float, 1024>>(),
    (const void*)kernel_entry<dropout_kernel<float, 1024>>(),
    (const void*)kernel_entry<layernorm_fwd_kernel<half, 1024>>(),
    (const void*)kernel_entry<layernorm_bwd_lock_kernel<half, 1024>>(),
    (const void*)kernel_entry<layernorm_bwd_twostage_kernel<half, 1024>>(),
    (const void*)kernel_entry<matmul_bias_act_kernel<half, half, epilogue::silu, 64, 64, 32, 8>>(),
    (const void*)kernel_entry<zero_kernel>(),
    (const void*)kernel_entry<matmul_splitk_kernel<half, 64, 64, 32>>(),
    (const void*)kernel_entry<rmsnorm_fwd_kernel<half, 1024>>(),
    (const void*)kernel_entry<add_rmsnorm_fwd_kernel<half, 1024>>(),
    (const void*)kernel_entry<rmsnorm_bwd_kernel<half, 1024>>(),
    (const void*)kernel_entry<rope_split_kernel<half, 64>>(),
    (const void*)kernel_entry<rope_merge_kernel<half, 64>>(),
};

}  // namespace bv::gpu
