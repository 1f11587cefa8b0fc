// `blockvec bench --backend amd-emu` (cli/emu/bench_emu.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bv::cli {

// Each named kernel (default: every kernel with an AMD emulator entry) at `size` (only with one
// kernel named; empty: each kernel's default size) through the emulator and the interpreter with
// checks off, side by side: the emulator's counters and its time as a ratio to the interpreter's.
// Best of `repeat` rounds (the first emulated launch of a kernel also sets up its lanes' stacks).
// Exit status: 0, 1 when a result does not match or the emulator reports an error, 2 for a usage
// error.
int bench_amd_emu_command(const std::vector<std::string>& kernels, const std::vector<int64_t>& size,
                          bool json, int repeat);

// Why a kernel has no AMD emulator entry, for the messages ("" when it has one or none is known).
std::string amd_emu_excluded_reason(const std::string& kernel);
// Records why a kernel loaded with --lib has none (cli/library.cpp), for those messages.
void note_amd_emu_missing(const std::string& kernel, const std::string& why);

}  // namespace bv::cli
