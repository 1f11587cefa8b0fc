// The block-vector language. Include this one header in a kernel file: it brings the backend the
// compiler targets (the CPU interpreter, or the GPU backend under hipcc/nvcc).
#pragma once
#include "bv/config.hpp"
#include "bv/dtype.hpp"
#include "bv/layout.hpp"
#include "bv/math.hpp"
#include "bv/shape.hpp"

#if BV_GPU
#include "bv/gpu/lang.hpp"
#else
#include "bv/cpu/block.hpp"
#include "bv/cpu/block_ptr.hpp"
#include "bv/cpu/debug.hpp"
#include "bv/cpu/dot.hpp"
#include "bv/cpu/elementwise.hpp"
#include "bv/cpu/launch.hpp"
#include "bv/cpu/memory.hpp"
#include "bv/cpu/program.hpp"
#include "bv/cpu/ptr.hpp"
#include "bv/cpu/reduce.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/cpu/tensor.hpp"
#endif
