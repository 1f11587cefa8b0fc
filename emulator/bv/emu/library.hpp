// Launch recipes for library kernels in the emulator: each kernel launched as its launcher in
// kernels/ launches it, on emulated tensors, in the launch configuration the kernel declares for
// the emulated target (its *_configs table through with_config), returning every launch's
// bv::emu::result (the counters, which the launchers' launch_result does not carry). Shared by
// the emulator's library test and the blockvec command's --backend amd-emu, so both run a kernel
// the same way.
//
// One header per kernel family under bv/emu/lib/; include only the families a translation unit
// runs, since each recipe instantiates its kernels for every configuration its table lists for the
// key. Include only from an emulated translation unit (one linking blockvec::emu). A recipe returns
// the launch's bv::emu::result (diagnostics and counters), or one per launch when it makes several.
#pragma once
#include "bv/emu/lib/act_mul.hpp"
#include "bv/emu/lib/attention.hpp"
#include "bv/emu/lib/conv2d.hpp"
#include "bv/emu/lib/cross_entropy.hpp"
#include "bv/emu/lib/elementwise.hpp"
#include "bv/emu/lib/matmul.hpp"
#include "bv/emu/lib/norms.hpp"
#include "bv/emu/lib/rope.hpp"
#include "bv/emu/lib/softmax.hpp"
