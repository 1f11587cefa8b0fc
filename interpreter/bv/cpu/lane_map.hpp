// Which wave and lane of the GPU build hold each element of a block access: the layout maps of
// bv/layout.hpp for the running target (config().tgt). Diagnostics name the waves of offending
// elements with it, the coalescing check counts each wave's segments with it, and live mode
// colours lanes with it, so all of them describe the registers the GPU lowering uses.
#pragma once
#include <vector>

#include "bv/cpu/runtime.hpp"
#include "bv/layout.hpp"

namespace bv::detail {

// The GPU layout of the access's block under target t: flat for a 1-D block, factorised for a
// 2-D one (a 1xN block included).
inline layout::block_map lane_map(const access& a, target t) {
  return layout::map_for(t, a.rank, a.rows, a.cols, a.waves);
}
inline layout::block_map lane_map(const access& a) { return lane_map(a, config().tgt); }

// The wave holding (the first copy of) each of the given block elements, under config().tgt;
// elements outside the block count as wave 0.
std::vector<int> waves_of_lanes(const access& a, const std::vector<int>& lanes);

}  // namespace bv::detail
