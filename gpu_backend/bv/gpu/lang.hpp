// The block-vector language on the GPU: what bv/bv.hpp brings when a GPU compiler (hipcc,
// clang -x hip, nvcc) compiles a kernel file. Same spelling as the interpreter's headers; the
// definitions live in the inline namespace bv::gpu_lang, so a program that links a GPU-compiled
// and a CPU-compiled translation unit never mixes the two (no ODR clash).
#pragma once
#include "bv/gpu/accumulator.hpp"
#include "bv/gpu/block.hpp"
#include "bv/gpu/block_ptr.hpp"
#include "bv/gpu/debug.hpp"
#include "bv/gpu/dot.hpp"
#include "bv/gpu/elementwise.hpp"
#include "bv/gpu/memory.hpp"
#include "bv/gpu/program.hpp"
#include "bv/gpu/reduce.hpp"
#include "bv/gpu/tile_loop.hpp"
#if BV_AMD_EMU
#include "bv/emu/launch.hpp"  // the AMD emulator's launch and host tensors (emulator/)
#else
#include "bv/gpu/runtime.hpp"
#endif
