// The library's launchers, built once for the interpreter.
//
// A launcher such as attention_fwd<half> instantiates its kernels for every target's row of its
// launch table, and on the interpreter each kernel body is a large piece of code: every
// translation unit that calls it pays minutes of compile time for the same object code. Each kernel
// header therefore lists its launchers for the element types the tree uses (BV_<KERNEL>_INSTANCES,
// a list of declarations handed to a macro), and:
//  - a translation unit compiled with BV_KERNEL_INSTANCES=1 (CMake: link
//    blockvec::kernel_instances) declares them `extern template` and calls the ones built in
//    libblockvec_kernel_instances (kernels/src/);
//  - any other translation unit, a GPU or emulated one included, instantiates what it calls: the
//    lists change nothing there.
// A launcher with explicit tiles, or for a type not listed, is instantiated where it is called.
#pragma once
#include "bv/config.hpp"

// BV_EXTERN_INSTANCES(LIST): LIST's launchers declared extern where the prebuilt ones are linked.
#if defined(BV_KERNEL_INSTANCES) && BV_KERNEL_INSTANCES && !BV_GPU
#define BV_EXTERN_INSTANCE(...) extern template __VA_ARGS__;
#define BV_EXTERN_INSTANCES(LIST) LIST(BV_EXTERN_INSTANCE)
#else
#define BV_EXTERN_INSTANCES(LIST)
#endif
// In kernels/src/: BV_DEFINE_INSTANCES(LIST) builds LIST's launchers (an explicit instantiation
// may follow the extern declaration in the same translation unit).
#define BV_DEFINE_INSTANCE(...) template __VA_ARGS__;
#define BV_DEFINE_INSTANCES(LIST) LIST(BV_DEFINE_INSTANCE)
